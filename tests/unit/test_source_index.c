/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_source_index.c - a source tree's files by path suffix, and a real
 * Jazzer report's frames placed in a Maven-style tree with it (what
 * triage does for JVM stacks)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/exec/source_index.h"
#include "sarif/crash.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/crs-source-index-XXXXXX";

static void put(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(p, "class X {}\n", 11), 0);
	free(p);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	put("src/main/java/org/dom4j/io/DOMReader.java");
	put("src/main/java/org/dom4j/Node.txt");
	put("a/org/x/A.java");
	put("b/org/x/A.java");
	put(".git/org/y/B.java");
	put("tests/OnlyHere.java");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fs_remove_tree(root);
}

static void test_find(void **state)
{
	struct source_index idx = SOURCE_INDEX_INIT;
	char *link = xasprintf("%s/Linked.java", root);

	(void)state;
	assert_int_equal(symlink("tests/OnlyHere.java", link), 0);
	assert_int_equal(source_index_build(&idx, root, ".java"), 0);
	/* .java files only, sorted; no .git, no symlink */
	assert_int_equal(idx.nr, 4);
	assert_string_equal(idx.paths[0], "a/org/x/A.java");
	assert_string_equal(idx.paths[3], "tests/OnlyHere.java");
	assert_string_equal(source_index_find(&idx,
					      "org/dom4j/io/DOMReader.java"),
			    "src/main/java/org/dom4j/io/DOMReader.java");
	assert_string_equal(source_index_find(&idx, "OnlyHere.java"),
			    "tests/OnlyHere.java");
	/* a whole-component suffix only, and one match only */
	assert_null(source_index_find(&idx, "Here.java"));
	assert_null(source_index_find(&idx, "org/x/A.java"));
	assert_null(source_index_find(&idx, "org/y/B.java"));
	assert_null(source_index_find(&idx, "Linked.java"));
	source_index_release(&idx);
	assert_int_equal(idx.nr, 0);
	unlink(link);
	free(link);
	assert_int_equal(source_index_build(&idx, "/nonexistent/crs", ".java"),
			 CRS_ERR);
	crs_error_clear();
}

/* The dom4j stack overflow's frames, placed as triage places them. */
static void test_jazzer_frames(void **state)
{
	struct source_index idx = SOURCE_INDEX_INIT;
	struct crash_report *cr = NULL;
	struct buf b = BUF_INIT;
	size_t placed = 0;

	(void)state;
	assert_int_equal(fs_read_file(&b, "tests/fixtures/crash/"
				      "jazzer_stack_overflow_a.txt",
				      CRASH_INPUT_MAX), 0);
	assert_int_equal(crash_report_parse(&cr, b.ptr, b.len), 0);
	assert_int_equal(source_index_build(&idx, root, ".java"), 0);
	for (size_t i = 0; i < cr->frames_nr; i++) {
		char *guess = crash_frame_java_path(&cr->frames[i]);
		const char *found = guess ? source_index_find(&idx, guess) :
			NULL;

		if (found) {
			assert_string_equal(found, "src/main/java/org/dom4j/"
					    "io/DOMReader.java");
			assert_non_null(strstr(cr->frames[i].func,
					       "org.dom4j.io.DOMReader."));
			placed++;
		}
		free(guess);
	}
	assert_true(placed >= 2);
	crash_report_free(cr);
	source_index_release(&idx);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_jazzer_frames),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
