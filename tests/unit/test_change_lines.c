/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_change_lines.c - the changed lines around a finding's frames
 * (runner/report/change_lines.c)
 *
 * A head source folder with a changed file and, as a pull request could
 * add, a changed file that is a symlink to a secret: the excerpt around
 * an in-change frame has its lines (tabs expanded) and the changed ones
 * listed; the link, a frame outside the change, a line past the end of
 * the file and a frame not on a changed line give nothing. A change
 * anchor off the crash line gets an excerpt that reaches the crash line;
 * one in the linked file gets none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/report/change_lines.h"
#include "diff/changeset.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <git2.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char PATCH[] =
	"diff --git a/src/a.c b/src/a.c\n"
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -3,4 +3,6 @@\n"
	" line 3\n"
	" line 4\n"
	"+\tline 5 <b>&\n"
	"+line 6\n"
	" line 7\n"
	" line 8\n"
	"diff --git a/src/link.c b/src/link.c\n"
	"--- a/src/link.c\n"
	"+++ b/src/link.c\n"
	"@@ -1 +1,2 @@\n"
	" keep\n"
	"+added\n";

static const char HEAD_A[] =
	"line 1\nline 2\nline 3\nline 4\n\tline 5 <b>&\nline 6\nline 7\n"
	"line 8\nline 9\nline 10\n";

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);

	assert_int_equal(fs_write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

static void frame(struct finding *f, const char *file, int line, int chg)
{
	struct finding_frame *fr = &f->stack[f->stack_nr++];

	fr->func = xstrdup("fn");
	fr->file = xstrdup(file);
	fr->line = line;
	fr->in_project = 1;
	fr->in_change = chg;
}

static void test_excerpts(void **state)
{
	char dir[] = "/tmp/crs-ci-test-change-lines.XXXXXX";
	struct diff_changeset *cs = NULL;
	struct finding_set fs;
	struct finding *f;
	json_t *doc, *ex, *e;
	char *src, *link, *secret;
	int rootfd = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	src = xasprintf("%s/src", dir);
	link = xasprintf("%s/src/link.c", dir);
	secret = xasprintf("%s/secret.c", dir);
	assert_int_equal(fs_mkdir_p(src), 0);
	put(dir, "src/a.c", HEAD_A);
	put(dir, "secret.c", "keep\nTOP-SECRET\n");
	assert_int_equal(symlink(secret, link), 0);
	if (diff_changeset_from_patch(&cs, PATCH, strlen(PATCH), "t.diff"))
		fail_msg("%s", crs_error_last());
	finding_set_init(&fs);
	f = finding_set_add(&fs);
	f->id = xstrdup("07b256e0bc4a2f9f");
	f->stack = xcalloc(7, sizeof(*f->stack));
	frame(f, "src/a.c", 6, 1);
	frame(f, "src/a.c", 6, 1);		/* the same line again */
	frame(f, "src/link.c", 2, 1);		/* a link: never read */
	frame(f, "secret.c", 2, 1);		/* not in the change */
	frame(f, "src/a.c", 100, 1);		/* past the end */
	frame(f, "src/a.c", 9, 0);		/* not on a changed line */
	f = finding_set_add(&fs);
	f->id = xstrdup("1111111111111111");	/* no in-change frame */

	assert_int_equal(fs_open_dir(&rootfd, dir), 0);
	doc = change_lines_build(rootfd, cs, &fs);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "version")),
			 1);
	ex = json_object_get(json_object_get(doc, "findings"),
			     "07b256e0bc4a2f9f");
	assert_int_equal(json_array_size(ex), 1);
	assert_null(json_object_get(json_object_get(doc, "findings"),
				    "1111111111111111"));
	e = json_array_get(ex, 0);
	assert_string_equal(json_string_value(json_object_get(e, "file")),
			    "src/a.c");
	assert_int_equal(json_integer_value(json_object_get(e, "line")), 6);
	assert_int_equal(json_integer_value(json_object_get(e, "first")), 3);
	assert_int_equal(json_array_size(json_object_get(e, "lines")), 7);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(e, "lines"), 0)), "line 3");
	/* the tab expanded to the next tab stop, markup kept as text */
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(e, "lines"), 2)), "        line 5 <b>&");
	assert_int_equal(json_array_size(json_object_get(e, "changed")), 2);
	assert_int_equal(json_integer_value(json_array_get(
		json_object_get(e, "changed"), 0)), 5);
	assert_int_equal(json_integer_value(json_array_get(
		json_object_get(e, "changed"), 1)), 6);
	{
		char *text = json_dumps(doc, 0);

		assert_null(strstr(text, "TOP-SECRET"));
		free(text);
	}
	json_decref(doc);
	close(rootfd);
	finding_set_release(&fs);
	diff_changeset_free(cs);
	fs_remove_tree(dir);
	free(src);
	free(link);
	free(secret);
}

/* A finding crashing at src/a.c:`crash`, anchored on `file`:`line`. */
static void anchored(struct finding_set *fs, const char *id, int crash,
		     const char *file, int line)
{
	struct finding *f = finding_set_add(fs);
	int lines[] = { line };
	struct anchor_file exec[] = { { (char *)file, lines, 1 } };

	f->id = xstrdup(id);
	f->file = xstrdup("src/a.c");
	f->line = crash;
	f->stack = xcalloc(2, sizeof(*f->stack));
	frame(f, "src/a.c", crash, 0);
	f->anchor = change_anchor_pick(f, exec, 1, NULL, NULL);
	assert_true(change_anchor_moved(f->anchor));
}

static void test_anchor_excerpts(void **state)
{
	char dir[] = "/tmp/crs-ci-test-change-lines.XXXXXX";
	struct diff_changeset *cs = NULL;
	struct finding_set fs;
	json_t *doc, *all, *e;
	char *src, *link, *secret, *text;
	int rootfd = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	src = xasprintf("%s/src", dir);
	link = xasprintf("%s/src/link.c", dir);
	secret = xasprintf("%s/secret.c", dir);
	assert_int_equal(fs_mkdir_p(src), 0);
	put(dir, "src/a.c", HEAD_A);
	put(dir, "secret.c", "keep\nTOP-SECRET\n");
	assert_int_equal(symlink(secret, link), 0);
	if (diff_changeset_from_patch(&cs, PATCH, strlen(PATCH), "t.diff"))
		fail_msg("%s", crs_error_last());
	finding_set_init(&fs);
	anchored(&fs, "2222222222222222", 9, "src/a.c", 6);
	anchored(&fs, "3333333333333333", 9, "src/link.c", 2);
	assert_int_equal(fs_open_dir(&rootfd, dir), 0);
	doc = change_lines_build(rootfd, cs, &fs);
	all = json_object_get(doc, "findings");
	/* lines 3 (anchor - 3) to 10 (the file's end, before crash + 3) */
	e = json_array_get(json_object_get(all, "2222222222222222"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "role")),
			    "anchor");
	assert_int_equal(json_integer_value(json_object_get(e, "line")), 6);
	assert_int_equal(json_integer_value(json_object_get(e, "crash")), 9);
	assert_int_equal(json_integer_value(json_object_get(e, "first")), 3);
	assert_int_equal(json_array_size(json_object_get(e, "lines")), 8);
	/* the link is never read: no excerpt, and the crash line's file
	 * gets its own excerpt since the crash is not near the anchor */
	e = json_array_get(json_object_get(all, "3333333333333333"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "role")),
			    "crash");
	assert_int_equal(json_integer_value(json_object_get(e, "line")), 9);
	text = json_dumps(doc, 0);
	assert_null(strstr(text, "TOP-SECRET"));
	free(text);
	json_decref(doc);
	close(rootfd);
	finding_set_release(&fs);
	diff_changeset_free(cs);
	fs_remove_tree(dir);
	free(src);
	free(link);
	free(secret);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_excerpts),
		cmocka_unit_test(test_anchor_excerpts),
	};

	int r;

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return r;
}
