/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_build_record.c - the record of what produced out/
 * (runner/exec/build_record.c)
 *
 * A record matches only when it says exactly the build about to be
 * made: any field changed, added or missing, a link in its place, a
 * FIFO, bad JSON or no record at all is no match; a removed record is
 * gone, and a link in its place is removed without touching its target.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/build_record.h"
#include "common/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_build_record.XXXXXX";

static const struct build_record rec = {
	"sha256:1111", "address", "recparse",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"0123456789abcdef0123456789abcdef01234567",
};

static void put(const char *name, const char *data)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(data, f);
	fclose(f);
}

static void test_exact_match_only(void **st)
{
	struct build_record other = rec;

	(void)st;
	assert_int_equal(build_record_matches(dir, &rec), 0);	/* none */
	assert_int_equal(build_record_write(dir, &rec), 0);
	assert_int_equal(build_record_matches(dir, &rec), 1);
	other.project = "cjson";
	assert_int_equal(build_record_matches(dir, &other), 0);
	other = rec;
	other.image_id = "sha256:2222";
	assert_int_equal(build_record_matches(dir, &other), 0);
	other = rec;
	other.source_hash = "forged";
	assert_int_equal(build_record_matches(dir, &other), 0);
	/* a field more, a field less, not JSON */
	put("build.json", "{\"format\": \"crs-ci build record 1\", "
	    "\"image\": \"sha256:1111\", \"sanitizer\": \"address\", "
	    "\"project\": \"recparse\", \"source\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", "
	    "\"commit\": \"0123456789abcdef0123456789abcdef01234567\", "
	    "\"extra\": 1}");
	assert_int_equal(build_record_matches(dir, &rec), 0);
	put("build.json", "{\"format\": \"crs-ci build record 1\"}");
	assert_int_equal(build_record_matches(dir, &rec), 0);
	put("build.json", "not json");
	assert_int_equal(build_record_matches(dir, &rec), 0);
	assert_int_equal(build_record_remove(dir), 0);
	assert_int_equal(build_record_matches(dir, &rec), 0);
}

/* a link to a matching record is no record; removing it leaves its
 * target; a FIFO is never opened */
static void test_link_and_fifo(void **st)
{
	char sub[200], p[300], t[300];
	struct stat sb;

	(void)st;
	snprintf(sub, sizeof(sub), "%s/elsewhere", dir);
	assert_int_equal(fs_mkdir_p(sub), 0);
	assert_int_equal(build_record_write(sub, &rec), 0);
	snprintf(t, sizeof(t), "%s/build.json", sub);
	snprintf(p, sizeof(p), "%s/build.json", dir);
	unlink(p);
	assert_int_equal(symlink(t, p), 0);
	assert_int_equal(build_record_matches(dir, &rec), 0);
	assert_int_equal(build_record_remove(dir), 0);
	assert_int_not_equal(lstat(p, &sb), 0);
	assert_int_equal(lstat(t, &sb), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(build_record_matches(dir, &rec), 0);
	assert_int_equal(build_record_remove(dir), 0);
	/* the folder itself a link: no match */
	snprintf(p, sizeof(p), "%s/via-link", dir);
	assert_int_equal(symlink(sub, p), 0);
	assert_int_equal(build_record_matches(sub, &rec), 1);
	assert_int_equal(build_record_matches(p, &rec), 0);
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
		cmocka_unit_test(test_exact_match_only),
		cmocka_unit_test(test_link_and_fifo),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
