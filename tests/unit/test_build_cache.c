/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_build_cache.c - restoring a kept build (runner/exec/build_cache.c)
 *
 * A cached build archive holds what a hostile build.sh wrote. Restoring
 * it yields only its regular files and folders: a symlink, a hard link,
 * a FIFO, a name with ".." and an absolute name are left out (and
 * counted), setuid bits dropped, executable bits kept; an entry the
 * index does not list is a miss; a truncated archive is a miss with
 * nothing half-restored; an archive whose first entry is not the key's
 * material this scan computed is a miss; a saved build restores under
 * its own material only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/build_cache.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_build_cache.XXXXXX";
/* what build_cache_key would say the build "k" was made of */
#define MATERIAL "crs-ci build cache 2\ntree t\nsource s\n"

static void add(struct archive *a, const char *name, mode_t type,
		mode_t perm, const char *data, const char *link)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, data ? (la_int64_t)strlen(data) : 0);
	if (link && type == AE_IFLNK)
		archive_entry_set_symlink(e, link);
	else if (link)
		archive_entry_set_hardlink(e, link);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	if (data)
		assert_int_equal(archive_write_data(a, data, strlen(data)),
				 (la_ssize_t)strlen(data));
	archive_entry_free(e);
}

/* <dir>/cache with index.json naming build:k -> builds/k.tar; cut in
 * the first file's data when truncate_it */
static void make_cache(int truncate_it)
{
	char path[256], index[256];
	struct archive *a = archive_write_new();
	FILE *f;

	snprintf(path, sizeof(path), "%s/cache/builds", dir);
	assert_int_equal(fs_mkdir_p(path), 0);
	snprintf(path, sizeof(path), "%s/cache/builds/k.tar", dir);
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	add(a, ".crs-ci-build-key", AE_IFREG, 0644, MATERIAL, NULL);
	add(a, "fuzz_x", AE_IFREG, 04755, "ELF harness", NULL);
	add(a, "sub/", AE_IFDIR, 0755, NULL, NULL);
	add(a, "sub/seed", AE_IFREG, 0644, "seed", NULL);
	add(a, "link", AE_IFLNK, 0777, NULL, "/etc/passwd");
	add(a, "hard", AE_IFREG, 0644, NULL, "fuzz_x");
	add(a, "fifo", AE_IFIFO, 0644, NULL, NULL);
	add(a, "../escape", AE_IFREG, 0644, "out", NULL);
	add(a, "sub/../../escape2", AE_IFREG, 0644, "out", NULL);
	add(a, "/abs", AE_IFREG, 0644, "out", NULL);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	if (truncate_it)
		/* past the key entry (a header, a block): in fuzz_x's data */
		assert_int_equal(truncate(path, 3 * 512 + 5), 0);
	snprintf(index, sizeof(index), "%s/cache/index.json", dir);
	f = fopen(index, "w");
	assert_non_null(f);
	fputs("{\"version\": 2, \"entries\": {\"build:k\": {\"path\": "
	      "\"builds/k.tar\", \"size\": 10, \"last_used\": 1}}}", f);
	fclose(f);
}

/* A scan whose --cache-dir is <dir>/cache, its work folder <dir>/WORK,
 * restoring into <dir>/WORK/out. */
struct fixture {
	struct scan_opts o;
	struct scan s;
	char cache[256], out[256], work[256];
};

static void fixture_init(struct fixture *f, const char *work)
{
	memset(f, 0, sizeof(*f));
	f->s.opts = &f->o;
	snprintf(f->cache, sizeof(f->cache), "%s/cache", dir);
	snprintf(f->out, sizeof(f->out), "%s/%s/out", dir, work);
	/* a save writes its archive in the work folder first */
	snprintf(f->work, sizeof(f->work), "%s/%s", dir, work);
	assert_int_equal(fs_mkdir_p(f->work), 0);
	f->s.work_dir = f->work;
	f->o.cache_dir = f->cache;
	scan_exec_bind(&f->s);
}

static void test_only_files_and_folders(void **st)
{
	struct fixture f;
	char *out = f.out, p[300];
	struct stat sb;
	int hit = -1;

	(void)st;
	make_cache(0);
	fixture_init(&f, "work");
	assert_int_equal(build_cache_restore(&f.s, "k", MATERIAL, out, &hit), 0);
	assert_int_equal(hit, 1);
	snprintf(p, sizeof(p), "%s/fuzz_x", out);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0755);	/* no setuid */
	snprintf(p, sizeof(p), "%s/sub/seed", out);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	for (const char *const *n = (const char *const[]){ "link", "hard",
	     "fifo", NULL }; *n; n++) {
		snprintf(p, sizeof(p), "%s/%s", out, *n);
		assert_int_not_equal(lstat(p, &sb), 0);
	}
	snprintf(p, sizeof(p), "%s/work/escape", dir);
	assert_int_not_equal(lstat(p, &sb), 0);
	snprintf(p, sizeof(p), "%s/escape2", dir);
	assert_int_not_equal(lstat(p, &sb), 0);
	assert_int_not_equal(lstat("/abs", &sb), 0);
	/* not in the index: a miss */
	hit = -1;
	assert_int_equal(build_cache_restore(&f.s, "other", MATERIAL, out, &hit), 0);
	assert_int_equal(hit, 0);
	/* without --cache-dir: a miss */
	f.o.cache_dir = NULL;
	assert_int_equal(build_cache_restore(&f.s, "k", MATERIAL, out, &hit), 0);
	assert_int_equal(hit, 0);
}

static void test_truncated_is_a_miss(void **st)
{
	struct fixture f;
	char *out = f.out, p[300];
	struct stat sb;
	int hit = -1;

	(void)st;
	make_cache(1);
	fixture_init(&f, "work2");
	assert_int_equal(build_cache_restore(&f.s, "k", MATERIAL, out, &hit), 0);
	assert_int_equal(hit, 0);
	snprintf(p, sizeof(p), "%s/fuzz_x", out);
	/* nothing half-restored */
	assert_int_not_equal(lstat(p, &sb), 0);
	assert_int_equal(lstat(out, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
}

/* Kept for other material: a miss, nothing restored. */
static void test_other_material_is_a_miss(void **st)
{
	struct fixture f;
	char *out = f.out, p[300];
	struct stat sb;
	int hit = -1;

	(void)st;
	make_cache(0);
	fixture_init(&f, "work3");
	assert_int_equal(build_cache_restore(&f.s, "k", "crs-ci build cache "
					     "2\ntree t\nsource forged\n",
					     out, &hit), 0);
	assert_int_equal(hit, 0);
	snprintf(p, sizeof(p), "%s/fuzz_x", out);
	assert_int_not_equal(lstat(p, &sb), 0);
}

static void write_file(const char *path, const char *data)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(data, fp);
	fclose(fp);
}

/* save, then restore: the same material hits, another misses; a key
 * file the build planted in out/ is neither kept nor restored */
static void test_save_restore(void **st)
{
	struct fixture f;
	char src[256], p[300];
	struct stat sb;
	int hit = -1;

	(void)st;
	make_cache(0);
	fixture_init(&f, "work4");
	snprintf(src, sizeof(src), "%s/built", dir);
	assert_int_equal(fs_mkdir_p(src), 0);
	snprintf(p, sizeof(p), "%s/fuzz_y", src);
	write_file(p, "harness");
	snprintf(p, sizeof(p), "%s/.crs-ci-build-key", src);
	write_file(p, "planted");
	assert_int_equal(build_cache_save(&f.s, "saved", "mat\n", src), 0);
	assert_int_equal(build_cache_has(&f.s, "saved"), 1);
	assert_int_equal(build_cache_restore(&f.s, "saved", "mat2\n", f.out,
					     &hit), 0);
	assert_int_equal(hit, 0);
	assert_int_equal(build_cache_restore(&f.s, "saved", "mat\n", f.out,
					     &hit), 0);
	assert_int_equal(hit, 1);
	snprintf(p, sizeof(p), "%s/fuzz_y", f.out);
	assert_int_equal(lstat(p, &sb), 0);
	snprintf(p, sizeof(p), "%s/.crs-ci-build-key", f.out);
	assert_int_not_equal(lstat(p, &sb), 0);
}

static int setup(void **st)
{
	(void)st;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	fs_remove_tree(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_files_and_folders),
		cmocka_unit_test(test_truncated_is_a_miss),
		cmocka_unit_test(test_other_material_is_a_miss),
		cmocka_unit_test(test_save_restore),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
