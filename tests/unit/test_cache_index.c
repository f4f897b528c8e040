/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cache_index.c - the --cache-dir index (runner/exec/cache_index.c)
 *
 * Round trip through the file, LRU eviction order under a cap (oldest
 * first, larger first on a tie, none when it fits, all when the cap is
 * 0), touch marking the index changed only past the granularity, and
 * index files that are rejected (bad JSON, a path leaving the cache, a
 * link or a FIFO where index.json should be: never followed or opened).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/cache_index.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_cache_index.XXXXXX";

/* A fresh folder `name` in dir, opened. */
static int sub(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fs_remove_tree(path);
	assert_int_equal(mkdir(path, 0755), 0);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	return fd;
}

static void add(struct cache_index *ix, const char *name, int64_t size,
		int64_t used)
{
	struct cache_entry *e = cache_index_put(ix, name);
	char path[128];

	snprintf(path, sizeof(path), "images/%s.tar", name);
	e->path = strdup(path);
	e->size = size;
	e->last_used = used;
}

static void test_round_trip(void **st)
{
	struct cache_index ix = CACHE_INDEX_INIT, back = CACHE_INDEX_INIT;
	struct cache_entry *e;
	int fd = sub("rt");

	(void)st;
	assert_int_equal(cache_index_load(&back, fd, "rt"), 0); /* missing */
	assert_int_equal(back.nr, 0);
	add(&ix, "a", 100, 10);
	add(&ix, "b", 200, 20);
	e = cache_index_find(&ix, "a");
	e->id = strdup("sha256:abc");
	e->base = strdup("crs-ci/base-runner:stand-in");
	assert_true(ix.dirty);
	assert_int_equal(cache_index_save(&ix, fd), 0);
	assert_int_equal(cache_index_load(&back, fd, "rt"), 0);
	assert_int_equal(back.nr, 2);
	assert_false(back.dirty);
	e = cache_index_find(&back, "a");
	assert_non_null(e);
	assert_string_equal(e->path, "images/a.tar");
	assert_string_equal(e->id, "sha256:abc");
	assert_string_equal(e->base, "crs-ci/base-runner:stand-in");
	assert_int_equal(e->size, 100);
	assert_int_equal(e->last_used, 10);
	assert_null(cache_index_find(&back, "b")->id);
	assert_int_equal(cache_index_size(&back), 300);
	cache_index_release(&ix);
	cache_index_release(&back);
	cache_index_release(&back);	/* twice: a no-op */
	close(fd);
}

static void test_evict_lru(void **st)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	struct strvec paths = STRVEC_INIT;

	(void)st;
	add(&ix, "new", 100, 30);
	add(&ix, "old", 100, 10);
	add(&ix, "mid-small", 50, 20);
	add(&ix, "mid-big", 150, 20);
	/* fits: nothing goes */
	assert_int_equal(cache_index_evict(&ix, 400, &paths), 0);
	assert_int_equal(paths.nr, 0);
	/* 400 > 250: the oldest, then the bigger of the two equal times */
	assert_int_equal(cache_index_evict(&ix, 250, &paths), 2);
	assert_int_equal(paths.nr, 2);
	assert_string_equal(paths.v[0], "images/old.tar");
	assert_string_equal(paths.v[1], "images/mid-big.tar");
	assert_int_equal(ix.nr, 2);
	assert_non_null(cache_index_find(&ix, "new"));
	assert_non_null(cache_index_find(&ix, "mid-small"));
	assert_int_equal(cache_index_size(&ix), 150);
	/* a cap of 100 keeps the newest entry only */
	assert_int_equal(cache_index_evict(&ix, 100, &paths), 1);
	assert_int_equal(ix.nr, 1);
	assert_string_equal(ix.v[0].name, "new");
	/* a cap of 0 empties the cache */
	assert_int_equal(cache_index_evict(&ix, 0, &paths), 1);
	assert_int_equal(ix.nr, 0);
	assert_int_equal(paths.nr, 4);
	strvec_release(&paths);
	cache_index_release(&ix);
}

static void test_touch(void **st)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	struct cache_entry *e;

	(void)st;
	add(&ix, "a", 1, 1000);
	ix.dirty = 0;
	e = cache_index_find(&ix, "a");
	cache_index_touch(&ix, e, 1500, 3600);
	assert_false(ix.dirty);
	assert_int_equal(e->last_used, 1500);
	cache_index_touch(&ix, e, 1500 + 3600, 3600);
	assert_true(ix.dirty);
	assert_int_equal(e->last_used, 5100);
	cache_index_release(&ix);
}

static void load_text(const char *text, int want)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	char path[256];
	FILE *f;
	int fd = sub("bad");

	snprintf(path, sizeof(path), "%s/bad/index.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(cache_index_load(&ix, fd, "bad"), want);
	if (want) {
		assert_int_equal(ix.nr, 0);
		assert_non_null(strstr(crs_error_last(), "bad/index.json"));
		crs_error_clear();
	}
	cache_index_release(&ix);
	close(fd);
}

/* index.json as a link to a valid index, or a FIFO: refused, not read
 * (a FIFO would block an open); saving replaces the link, whose target
 * stays as it was. */
static void test_not_followed(void **st)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	char target[256], path[256], back[64];
	FILE *f;
	ssize_t n;
	int fd = sub("ln"), tfd;

	(void)st;
	snprintf(target, sizeof(target), "%s/target.json", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("{\"version\": 2, \"entries\": {}}", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ln/index.json", dir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(cache_index_load(&ix, fd, "ln"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "ln/index.json"));
	crs_error_clear();
	add(&ix, "a", 1, 1);
	assert_int_equal(cache_index_save(&ix, fd), 0);
	tfd = open(target, O_RDONLY);
	n = read(tfd, back, sizeof(back) - 1);
	close(tfd);
	assert_true(n > 0);
	back[n] = 0;
	assert_null(strstr(back, "images/a.tar"));	/* not written through */
	cache_index_release(&ix);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(cache_index_load(&ix, fd, "ln"), CRS_EINPUT);
	crs_error_clear();
	close(fd);
}

static void test_rejected(void **st)
{
	(void)st;
	load_text("{", CRS_EINPUT);
	load_text("{\"version\": 1, \"images\": {}}", CRS_EINPUT);
	load_text("{\"version\": 2, \"entries\": {\"x\": {\"path\": "
		  "\"../../etc\", \"size\": 1, \"last_used\": 1}}}", CRS_EINPUT);
	load_text("{\"version\": 2, \"entries\": {\"x\": {\"path\": "
		  "\"/etc/passwd\", \"size\": 1, \"last_used\": 1}}}",
		  CRS_EINPUT);
	load_text("{\"version\": 2, \"entries\": {\"x\": {\"path\": "
		  "\"corpus/p/../../x\", \"size\": 1, \"last_used\": 1}}}",
		  CRS_EINPUT);
	load_text("{\"version\": 2, \"entries\": {\"x\": {\"path\": "
		  "\"images/x.tar\", \"size\": -1, \"last_used\": 1}}}",
		  CRS_EINPUT);
	load_text("{\"version\": 2, \"entries\": {\"x\": {\"path\": "
		  "\"corpus/p/h\", \"size\": 1, \"last_used\": 1}}}", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_evict_lru),
		cmocka_unit_test(test_touch),
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_not_followed),
	};
	int r;

	if (!mkdtemp(dir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	fs_remove_tree(dir);
	return r;
}
