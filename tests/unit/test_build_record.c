/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_build_record.c - the record of what produced out/
 * (runner/exec/build_record.c)
 *
 * A record matches only when it says exactly the build about to be
 * made: any field changed, added or missing, a link in its place, a
 * FIFO, bad JSON or no record at all is no match; a removed record is
 * gone, and a link in its place is removed without touching its target.
 * A CRS build step's record (its step, inputs and project folder too)
 * and a record under another name are told apart the same way.
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
	.image_id = "sha256:1111", .sanitizer = "address",
	.project = "recparse",
	.source_hash = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	.commit = "0123456789abcdef0123456789abcdef01234567",
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

#define FIELD(f) offsetof(struct build_record, f)

/* <dir>/<name> does not match `base` with the field at `off` set to `v` */
static void no_match_if(const char *name, const struct build_record *base,
			size_t off, const char *v)
{
	struct build_record o = *base;

	memcpy((char *)&o + off, &v, sizeof(v));
	assert_int_equal(build_record_matches(dir, name, &o), 0);
}

static void test_exact_match_only(void **st)
{
	struct build_record other = rec;

	(void)st;
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);	/* none */
	assert_int_equal(build_record_write(dir, "build.json", &rec), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 1);
	other.project = "cjson";
	assert_int_equal(build_record_matches(dir, "build.json", &other), 0);
	no_match_if("build.json", &rec, FIELD(image_id), "sha256:2222");
	no_match_if("build.json", &rec, FIELD(source_hash), "forged");
	/* a field more, a field less, not JSON */
	put("build.json", "{\"format\": \"crs-ci build record 1\", "
	    "\"image\": \"sha256:1111\", \"sanitizer\": \"address\", "
	    "\"project\": \"recparse\", \"source\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", "
	    "\"commit\": \"0123456789abcdef0123456789abcdef01234567\", "
	    "\"extra\": 1}");
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
	put("build.json", "{\"format\": \"crs-ci build record 1\"}");
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
	put("build.json", "not json");
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
	assert_int_equal(build_record_remove(dir, "build.json"), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
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
	assert_int_equal(build_record_write(sub, "build.json", &rec), 0);
	snprintf(t, sizeof(t), "%s/build.json", sub);
	snprintf(p, sizeof(p), "%s/build.json", dir);
	unlink(p);
	assert_int_equal(symlink(t, p), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
	assert_int_equal(build_record_remove(dir, "build.json"), 0);
	assert_int_not_equal(lstat(p, &sb), 0);
	assert_int_equal(lstat(t, &sb), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 0);
	assert_int_equal(build_record_remove(dir, "build.json"), 0);
	/* the folder itself a link: no match */
	snprintf(p, sizeof(p), "%s/via-link", dir);
	assert_int_equal(symlink(sub, p), 0);
	assert_int_equal(build_record_matches(sub, "build.json", &rec), 1);
	assert_int_equal(build_record_matches(p, "build.json", &rec), 0);
}

/* a CRS build step's record: the step's fields count, one more or less
 * is another build; records under two names are two records */
static void test_step_record(void **st)
{
	struct build_record step = rec, other;
	char p[300];
	struct stat sb;

	(void)st;
	step.step = "crs-libfuzzer/build";
	step.fetch_hash = "no-inputs";
	step.project_hash = "bbbb";
	assert_int_equal(build_record_write(dir, "build.json", &rec), 0);
	assert_int_equal(build_record_matches(dir, "step.json", &step), 0);
	assert_int_equal(build_record_write(dir, "step.json", &step), 0);
	assert_int_equal(build_record_matches(dir, "step.json", &step), 1);
	/* the target build's record is no step's, nor the other way */
	assert_int_equal(build_record_matches(dir, "step.json", &rec), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &step), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 1);
	no_match_if("step.json", &step, FIELD(step), "crs-libfuzzer/other");
	no_match_if("step.json", &step, FIELD(fetch_hash), "cccc");
	no_match_if("step.json", &step, FIELD(project_hash), NULL);
	no_match_if("step.json", &step, FIELD(source_hash), "forged");
	/* an empty file under the old marker's kind of name is nothing */
	put("build.sha256:1111.no-inputs", "");
	assert_int_equal(build_record_matches(dir, "build.sha256:1111.no-inputs",
					      &step), 0);
	/* a name with a slash is never read */
	assert_int_equal(build_record_matches("/", "tmp/x.json", &step), 0);
	/* removing one record leaves the other */
	assert_int_equal(build_record_remove(dir, "step.json"), 0);
	snprintf(p, sizeof(p), "%s/step.json", dir);
	assert_int_not_equal(lstat(p, &sb), 0);
	assert_int_equal(build_record_matches(dir, "build.json", &rec), 1);
	/* a record missing a field every record has is never written */
	other = rec;
	other.commit = NULL;
	assert_int_not_equal(build_record_write(dir, "null.json", &other), 0);
	assert_int_equal(build_record_matches(dir, "null.json", &other), 0);
	assert_int_equal(build_record_remove(dir, "build.json"), 0);
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
		cmocka_unit_test(test_step_record),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
