/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_change_file.c - change.json and change.dict from a ChangeSet
 *
 * Patches written out by hand go through diff_changeset_from_patch(),
 * the touched functions are read through a reader that serves the head
 * file, and the rendered JSON is parsed back with jansson to check the
 * files, line ranges, functions, literals and comparison count. The
 * hostile cases feed literals that are huge, full of control
 * characters, quotes and invalid UTF-8, and too many.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff/change_json.h"
#include "diff/changeset.h"
#include "diff/literals.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <git2.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The head file of the change below, one line per literal. */
static const char *const head_lines[] = {
	"#include <string.h>",						/* 1 */
	"",								/* 2 */
	"int parse_ext(const char *p, unsigned n)",			/* 3 */
	"{",								/* 4 */
	"\tif (n < 4)",							/* 5 */
	"\t\treturn -1;",						/* 6 */
	"\tif (memcmp(p, \"EXT\\n\", 4) == 0 && p[4] == 0x7f)",	/* 7 + */
	"\t\treturn 2; /* \"notme\" */ // \"nor me\"",			/* 8 + */
	"\treturn 0;",							/* 9 */
	"}",								/* 10 */
	"",								/* 11 */
	"int other(int c)",						/* 12 */
	"{",								/* 13 */
	"\tswitch (c) {",						/* 14 */
	"\tcase 1000: return 1;",					/* 15 + */
	"\t}",								/* 16 */
	"\treturn 0;",							/* 17 */
	"}",								/* 18 */
};
#define HEAD_NR (sizeof(head_lines) / sizeof(head_lines[0]))

static int is_added(size_t line)
{
	return line == 7 || line == 8 || line == 15;
}

static char *head_text(void)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < HEAD_NR; i++)
		buf_printf(&b, "%s\n", head_lines[i]);
	return buf_detach(&b, NULL);
}

/* A git diff of src/x.c (base: the head without lines 7, 8, 15), a
 * README change with a quoted word and a deleted C file. */
static char *modified_patch(void)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "diff --git a/src/x.c b/src/x.c\n"
		 "index 1111111..2222222 100644\n"
		 "--- a/src/x.c\n+++ b/src/x.c\n");
	buf_printf(&b, "@@ -1,%zu +1,%zu @@\n", HEAD_NR - 3, HEAD_NR);
	for (size_t i = 0; i < HEAD_NR; i++)
		buf_printf(&b, "%c%s\n", is_added(i + 1) ? '+' : ' ',
			   head_lines[i]);
	buf_adds(&b, "diff --git a/README b/README\n"
		 "index 3333333..4444444 100644\n"
		 "--- a/README\n+++ b/README\n"
		 "@@ -1 +1,2 @@\n text\n+say \"readme\" == 77\n"
		 "diff --git a/gone.c b/gone.c\n"
		 "deleted file mode 100644\n"
		 "index 5555555..0000000\n"
		 "--- a/gone.c\n+++ /dev/null\n"
		 "@@ -1 +0,0 @@\n-int gone(void) { return \"x\"[0] == 'y'; }\n");
	return buf_detach(&b, NULL);
}

/* A new file src/<name> holding `lines` (each '\n'-terminated). */
static char *new_file_patch(const char *name, const char *lines)
{
	struct buf b = BUF_INIT;
	size_t n = 0;

	for (const char *p = lines; *p; p++)
		n += *p == '\n';
	buf_printf(&b, "diff --git a/src/%s b/src/%s\n"
		   "new file mode 100644\nindex 0000000..1111111\n"
		   "--- /dev/null\n+++ b/src/%s\n@@ -0,0 +1,%zu @@\n",
		   name, name, name, n);
	for (const char *p = lines; *p;) {
		const char *nl = strchr(p, '\n');

		buf_addch(&b, '+');
		buf_add(&b, p, (size_t)(nl - p) + 1);
		p = nl + 1;
	}
	return buf_detach(&b, NULL);
}

/* The dictionary of one set. */
static char *dict_of_one(const struct diff_literals *l)
{
	return diff_literals_dict(&l, 1);
}

static int read_head(struct buf *out, const char *path, void *payload)
{
	const char *text = payload;

	if (strcmp(path, "src/x.c"))
		return CRS_ENOTFOUND;
	buf_adds(out, text);
	return 0;
}

static struct diff_changeset *parse(const char *patch)
{
	struct diff_changeset *cs = NULL;

	if (diff_changeset_from_patch(&cs, patch, strlen(patch),
				      "t.diff") != 0)
		fail_msg("%s", crs_error_last());
	return cs;
}

/* Render change.json for cs (functions through the reader) and parse it. */
static json_t *render(const struct diff_changeset *cs, const char *head,
		      struct diff_literals *lit)
{
	struct diff_touched *t = NULL;
	json_error_t err;
	json_t *doc;
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(diff_changeset_touched_functions(&t, cs, NULL,
							  read_head,
							  (void *)head), 0);
	assert_int_equal(diff_changeset_literals(lit, cs), 0);
	assert_int_equal(diff_change_json(&text, &len, cs, t, lit), 0);
	assert_int_equal(strlen(text), len);
	doc = json_loads(text, 0, &err);
	if (!doc)
		fail_msg("change.json does not parse: %s\n%s", err.text, text);
	free(text);
	diff_touched_free(t);
	return doc;
}

static void assert_ranges(json_t *a, const int *want, size_t pairs)
{
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), pairs);
	for (size_t i = 0; i < pairs; i++) {
		json_t *r = json_array_get(a, i);	/* borrowed */

		assert_int_equal(json_array_size(r), 2);
		assert_int_equal(json_integer_value(json_array_get(r, 0)),
				 want[2 * i]);
		assert_int_equal(json_integer_value(json_array_get(r, 1)),
				 want[2 * i + 1]);
	}
}

static const char *str_at(json_t *a, size_t i)
{
	return json_string_value(json_array_get(a, i));	/* borrowed */
}

static void test_change_json(void **state)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	char *patch = modified_patch(), *head = head_text(), *dict;
	struct diff_changeset *cs = parse(patch);
	json_t *doc = render(cs, head, &lit), *files, *f, *fns, *fn, *lits;
	static const int added[] = { 7, 8, 15, 15 };
	static const int in_parse[] = { 7, 8 };
	static const int in_other[] = { 15, 15 };

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(doc, "version")),
			 1);
	assert_true(json_is_null(json_object_get(doc, "base_commit")));
	assert_true(json_is_null(json_object_get(doc, "head_commit")));
	files = json_object_get(doc, "files");
	assert_int_equal(json_array_size(files), 2);	/* gone.c: deleted */
	f = json_array_get(files, 0);
	assert_string_equal(json_string_value(json_object_get(f, "path")),
			    "src/x.c");
	assert_string_equal(json_string_value(json_object_get(f, "status")),
			    "modified");
	assert_string_equal(json_string_value(json_object_get(f, "language")),
			    "c");
	assert_ranges(json_object_get(f, "added_lines"), added, 2);
	fns = json_object_get(f, "functions");
	assert_int_equal(json_array_size(fns), 2);
	fn = json_array_get(fns, 0);
	assert_string_equal(json_string_value(json_object_get(fn, "name")),
			    "parse_ext");
	assert_int_equal(json_integer_value(json_object_get(fn, "start")), 3);
	assert_int_equal(json_integer_value(json_object_get(fn, "end")), 10);
	assert_ranges(json_object_get(fn, "changed_lines"), in_parse, 1);
	fn = json_array_get(fns, 1);
	assert_string_equal(json_string_value(json_object_get(fn, "name")),
			    "other");
	assert_ranges(json_object_get(fn, "changed_lines"), in_other, 1);
	f = json_array_get(files, 1);
	assert_string_equal(json_string_value(json_object_get(f, "path")),
			    "README");
	assert_true(json_is_null(json_object_get(f, "language")));
	assert_int_equal(json_array_size(json_object_get(f, "functions")), 0);

	/* the string (decoded), the compared numbers; not 0, not comments,
	 * not the README's text, not the deleted file's */
	lits = json_object_get(doc, "literals");
	assert_int_equal(json_array_size(lits), 3);
	assert_string_equal(str_at(lits, 0), "EXT\n");
	assert_string_equal(str_at(lits, 1), "0x7f");
	assert_string_equal(str_at(lits, 2), "1000");
	/* == 0x7f, case 1000 (not == 0) */
	assert_int_equal(json_integer_value(json_object_get(doc,
							    "comparisons")),
			 2);
	dict = dict_of_one(&lit);
	assert_string_equal(dict, "\"EXT\\x0A\"\n\"0x7f\"\n\"127\"\n"
			    "\"7F\"\n\"7f\"\n"
			    "\"\\x7F\"\n\"1000\"\n\"\\xE8\\x03\"\n"
			    "\"\\x03\\xE8\"\n");
	free(dict);
	json_decref(doc);
	diff_literals_release(&lit);
	diff_changeset_free(cs);
	free(head);
	free(patch);
}

/* Each dictionary line: a quoted run of printable ASCII or \xNN. */
static void assert_dict_lines(const char *dict, size_t want_lines)
{
	regex_t re;
	size_t n = 0;
	char *copy = xstrdup(dict), *save = NULL;

	assert_int_equal(regcomp(&re, "^\"([] !#-[^-~]|\\\\x[0-9A-F]{2})*\"$",
				 REG_EXTENDED | REG_NOSUB), 0);
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save), n++)
		if (regexec(&re, l, 0, NULL, 0) != 0)
			fail_msg("bad dictionary line '%s'", l);
	assert_int_equal(n, want_lines);
	regfree(&re);
	free(copy);
}

static void test_hostile_literals(void **state)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	struct buf src = BUF_INIT;
	struct diff_changeset *cs;
	json_t *doc, *lits;
	char *patch, *dict;
	size_t n;

	(void)state;
	/* 65 bytes: one too many; 64 are fine */
	buf_printf(&src, "s = \"%065d\";\n", 0);
	buf_printf(&src, "s = \"%064d\";\n", 0);
	buf_adds(&src, "s = \"\\001\\x02ctl\\\"q\\\\\\x1b[31m\";\n");
	buf_adds(&src, "s = \"\\xff\\xfe\";\n");	/* not UTF-8 */
	buf_adds(&src, "s = \"a\\0b\";\n");		/* a NUL inside */
	buf_adds(&src, "s = \"\\u00e9t\\u00e9\";\n");
	buf_adds(&src, "s = \"unterminated\n");
	for (int i = 0; i < 300; i++)
		buf_printf(&src, "if (x == \"s%03d\") return;\n", i);
	buf_adds(&src, "s = \"s000\";\n");		/* a duplicate */
	patch = new_file_patch("h.c", src.ptr);
	cs = parse(patch);
	doc = render(cs, "", &lit);
	assert_int_equal(lit.nr, DIFF_LITERALS_MAX);
	/* the 65-byte one, and the 300 + 5 - 256 over the count */
	assert_int_equal(lit.dropped, 1 + 305 - DIFF_LITERALS_MAX);
	assert_int_equal(json_integer_value(json_object_get(doc,
						"literals_dropped")),
			 lit.dropped);
	lits = json_object_get(doc, "literals");
	/* all but the invalid UTF-8 one and the one with a NUL */
	assert_int_equal(json_array_size(lits), DIFF_LITERALS_MAX - 2);
	assert_int_equal(strlen(str_at(lits, 0)), 64);
	assert_string_equal(str_at(lits, 1), "\001\002ctl\"q\\\033[31m");
	assert_string_equal(str_at(lits, 2), "\xc3\xa9t\xc3\xa9");
	assert_string_equal(str_at(lits, 3), "s000");
	dict = dict_of_one(&lit);
	assert_non_null(strstr(dict, "\"\\x01\\x02ctl\\x22q\\x5C\\x1B[31m\"\n"));
	assert_non_null(strstr(dict, "\n\"\\xFF\\xFE\"\n"));
	assert_non_null(strstr(dict, "\n\"a\\x00b\"\n"));
	assert_dict_lines(dict, DIFF_LITERALS_MAX);
	n = lit.nr;
	free(dict);
	json_decref(doc);
	diff_literals_release(&lit);
	diff_changeset_free(cs);
	free(patch);
	buf_release(&src);
	assert_int_equal(n, DIFF_LITERALS_MAX);
}

/* Which numbers are comparison constants, and what the line yields. */
static void scan_one(const char *line, size_t want_cmp, const char *want)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	struct buf got = BUF_INIT;
	int in_comment = 0;

	diff_literals_scan_line(&lit, line, strlen(line), &in_comment);
	for (size_t i = 0; i < lit.nr; i++)
		buf_printf(&got, "%s%s", i ? "|" : "", lit.v[i].bytes);
	if (lit.comparisons != want_cmp || strcmp(got.ptr ? got.ptr : "",
						  want))
		fail_msg("'%s': %zu comparison(s) '%s', want %zu '%s'", line,
			 lit.comparisons, got.ptr ? got.ptr : "", want_cmp,
			 want);
	buf_release(&got);
	diff_literals_release(&lit);
}

static void test_comparisons(void **state)
{
	(void)state;
	scan_one("x = v << 8 | w >> 16;", 0, "");
	scan_one("a = 5; b += 300; c <<= 12;", 0, "");
	scan_one("if (p->n > 300 && n >= 70000)", 2, "300|70000");
	scan_one("if (-5 == x || y != -129)", 2, "-5|-129");
	scan_one("while (0x1234ABCDu <= (v))", 1, "0x1234ABCDu");
	scan_one("if (c == 'A' || 'z' < c)", 2, "A|z");
	scan_one("if (n < 1'000'000 && f > 1.5)", 1, "1'000'000");
	scan_one("if (n == 0 || m != 1 || c == '\\0' || !x)", 0, "");
	scan_one("case 0b1011: case 7: break;", 2, "0b1011|7");
	scan_one("if (x == 2) /* == 3 */ y = 4;", 1, "2");
	scan_one("#include \"local.h\"", 0, "");
	scan_one("#define MAGIC \"MG\"", 0, "MG");
}

static void test_dict_numbers(void **state)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	const char *line = "if (a == -2 || b == 70000 || c == 0x100000000)";
	int in_comment = 0;
	char *dict;

	(void)state;
	diff_literals_scan_line(&lit, line, strlen(line), &in_comment);
	dict = dict_of_one(&lit);
	assert_string_equal(dict,
		"\"-2\"\n\"\\xFE\"\n"
		"\"70000\"\n\"p\\x11\\x01\\x00\"\n\"\\x00\\x01\\x11p\"\n"
		"\"0x100000000\"\n\"4294967296\"\n\"100000000\"\n"
		"\"\\x00\\x00\\x00\\x00\\x01\\x00\\x00\\x00\"\n"
		"\"\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\"\n");
	free(dict);
	diff_literals_release(&lit);
	/* nothing: no file */
	assert_null(dict_of_one(&lit));
}

/*
 * A change that edits one bound: the dictionary holds the changed line's
 * "2" first, then the touched function's own tokens (the escape's '\\'
 * and 'u', 0xD800 and its hex digits), then those of the function it
 * calls in the same file, and nothing of a function it does not call.
 */
static const char *const fn_lines[] = {
	"static int hex_digit(int c)",				/* 1 */
	"{",							/* 2 */
	"\treturn c >= 'a' && c <= 'f';",			/* 3 */
	"}",							/* 4 */
	"static int unrelated(void) { return strcmp(s, \"nope\"); }", /* 5 */
	"int parse_escape(const char *p, unsigned n)",		/* 6 */
	"{",							/* 7 */
	"\tif (n < 2)",						/* 8 +- */
	"\t\treturn -1;",					/* 9 */
	"\tif (p[0] == '\\\\' && p[1] == 'u' && hex_digit (p[2]))", /* 10 */
	"\t\treturn cp >= 0xD800;",				/* 11 */
	"\treturn 0;",						/* 12 */
	"}",							/* 13 */
};

static void test_function_literals(void **state)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	struct diff_touched *t = NULL;
	struct diff_changeset *cs;
	struct buf head = BUF_INIT, patch = BUF_INIT;
	size_t nr = sizeof(fn_lines) / sizeof(fn_lines[0]);
	char *dict, *json = NULL;
	json_t *doc;

	(void)state;
	buf_adds(&patch, "diff --git a/src/x.c b/src/x.c\n"
		 "index 1111111..2222222 100644\n"
		 "--- a/src/x.c\n+++ b/src/x.c\n");
	buf_printf(&patch, "@@ -1,%zu +1,%zu @@\n", nr, nr);
	for (size_t i = 0; i < nr; i++) {
		buf_printf(&head, "%s\n", fn_lines[i]);
		if (i + 1 == 8)
			buf_adds(&patch, "-\tif (n < 6)\n");
		buf_printf(&patch, "%c%s\n", i + 1 == 8 ? '+' : ' ',
			   fn_lines[i]);
	}
	cs = parse(patch.ptr);
	assert_int_equal(diff_changeset_touched_functions(&t, cs, NULL,
							  read_head,
							  head.ptr), 0);
	assert_int_equal(t->nr, 1);
	assert_string_equal(t->v[0].name, "parse_escape");
	assert_int_equal(diff_changeset_literals(&lit, cs), 0);
	assert_int_equal(lit.nr, 1);	/* "2" */
	assert_int_equal(t->body->nr, 4);	/* 2, \\, u, 0xD800 */
	assert_int_equal(t->callees->nr, 2);	/* hex_digit: a, f */
	dict = diff_literals_dict((const struct diff_literals *[]){
					     &lit, t->body, t->callees },
				     3);
	assert_non_null(dict);
	assert_non_null(strstr(dict, "\"2\"\n"));
	assert_true(strstr(dict, "\"2\"\n") < strstr(dict, "\"u\"\n"));
	assert_non_null(strstr(dict, "\"\\x5C\"\n"));
	assert_non_null(strstr(dict, "\"D800\"\n"));
	assert_true(strstr(dict, "\"D800\"\n") < strstr(dict, "\"f\"\n"));
	assert_non_null(strstr(dict, "\"a\"\n"));
	assert_null(strstr(dict, "nope"));
	assert_int_equal(diff_change_json(&json, NULL, cs, t, &lit), 0);
	doc = json_loads(json, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(
				 doc, "function_literals")),
			 t->body->nr + t->callees->nr);
	json_decref(doc);
	free(json);
	free(dict);
	diff_touched_free(t);
	diff_literals_release(&lit);
	diff_changeset_free(cs);
	buf_release(&head);
	buf_release(&patch);
}

/* A path that is not UTF-8 is repaired, never passed through raw. */
static void test_hostile_path(void **state)
{
	struct diff_literals lit = DIFF_LITERALS_INIT;
	const char *patch =
		"diff --git \"a/src/\\377\\033.c\" \"b/src/\\377\\033.c\"\n"
		"new file mode 100644\nindex 0000000..1111111\n"
		"--- /dev/null\n+++ \"b/src/\\377\\033.c\"\n@@ -0,0 +1 @@\n"
		"+int f(void) { return g(\"hi\"); }\n";
	struct diff_changeset *cs = parse(patch);
	json_t *doc, *f;

	(void)state;
	assert_string_equal(cs->files[0].path, "src/\377\033.c");
	doc = render(cs, "", &lit);
	f = json_array_get(json_object_get(doc, "files"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "path")),
			    "src/? .c");
	assert_string_equal(json_string_value(json_object_get(f, "language")),
			    "c");
	assert_string_equal(str_at(json_object_get(doc, "literals"), 0), "hi");
	json_decref(doc);
	diff_literals_release(&lit);
	diff_changeset_free(cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change_json),
		cmocka_unit_test(test_hostile_literals),
		cmocka_unit_test(test_hostile_path),
		cmocka_unit_test(test_comparisons),
		cmocka_unit_test(test_dict_numbers),
		cmocka_unit_test(test_function_literals),
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
