/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_guards.c - does a change remove or weaken a guard: the atoms of a
 * removed line, and whole patches: the benchmark's real reverts (a
 * removed check, a comparison turned around, a loosened constant, a
 * deleted call) against behaviour-neutral rewrites of the same code
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff/guards.h"
#include "diff/changeset.h"
#include "common/buf.h"
#include "common/error.h"

#include <git2.h>
#include <string.h>

/* The atoms of `line`, joined with '|'. */
static char *atoms_of(const char *line, struct buf *b)
{
	struct buf a = BUF_INIT;

	buf_reset(b);
	diff_guard_atoms(&a, line, strlen(line));
	for (size_t off = 0; off < a.len; off += strlen(a.ptr + off) + 1) {
		if (off)
			buf_addch(b, '|');
		buf_adds(b, a.ptr + off);
	}
	buf_release(&a);
	return b->ptr ? b->ptr : "";
}

static void test_atoms(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_string_equal(atoms_of("  if (len > max) return -1;", &b),
			    "len>max|return-1;");
	assert_string_equal(atoms_of("if ((uptrval)src > LZ4_DISTANCE_MAX)"
				     " x = a->b[i] <= f(c, d);", &b),
			    "(uptrval)src>LZ4_DISTANCE_MAX|[i]|"
			    "a->b[i]<=f(c,d)|f(");
	assert_string_equal(atoms_of("if (!ok) goto  fail; /* a < b */", &b),
			    "!ok|goto fail;");
	assert_string_equal(atoms_of("for (i = 0; i <= n; i++) buf [i] = 0;",
				     &b), "for(i=0;i<=n;i++)|i<=n|[i]");
	assert_string_equal(atoms_of("p = malloc(n + 1);", &b),
			    "malloc(n+1)");
	assert_string_equal(atoms_of("u = a < b - c ? d : e;", &b),
			    "a<b-c");
	assert_string_equal(atoms_of("assert(p);", &b), "p");
	assert_string_equal(atoms_of("\tfree(buf);  // done", &b), "free(");
	assert_string_equal(atoms_of("#define LIMIT 64", &b),
			    "#define LIMIT 64");
	/* no comparison: shifts, arrows, includes, comments */
	assert_string_equal(atoms_of("x = y << 2 >> z->w;", &b), "");
	assert_string_equal(atoms_of("#include <stdio.h>", &b), "");
	/* a literal is kept as it is: its // is no comment */
	assert_string_equal(atoms_of("if (c == '/') x = f(\"a  //b\");", &b),
			    "c=='/'|f(");
	assert_string_equal(atoms_of("ok = strcmp(s, \"a < b\");", &b),
			    "strcmp(");
	assert_string_equal(atoms_of(" * if (a < b) in a comment", &b), "");
	assert_string_equal(atoms_of("n++;", &b), "");
	buf_release(&b);
}

static int weakened(const char *patch, struct diff_guard *g)
{
	struct diff_changeset *cs = NULL;
	int r;

	r = diff_changeset_from_patch(&cs, patch, strlen(patch), "t.patch");
	if (r != 0)
		print_error("%s\n", crs_error_last());
	assert_int_equal(r, 0);
	r = diff_changeset_weakened_guard(g, cs);
	diff_changeset_free(cs);
	return r;
}

#define HEAD "diff --git a/src/p.c b/src/p.c\n--- a/src/p.c\n+++ b/src/p.c\n"

static void test_removed_check(void **state)
{
	struct diff_guard g = DIFF_GUARD_INIT;

	(void)state;
	assert_int_equal(weakened(HEAD "@@ -10,4 +10,3 @@ int f(int n)\n"
				  " {\n-    if (n >= 16) return -1;\n"
				  "     buf[n] = 0;\n     return 0;\n", &g), 1);
	assert_string_equal(g.path, "src/p.c");
	assert_int_equal(g.line, 11);
	assert_string_equal(g.text, "if (n >= 16) return -1;");
	assert_int_equal(g.nr, 1);
	diff_guard_release(&g);
}

static void test_turned_comparison_and_constant(void **state)
{
	struct diff_guard g = DIFF_GUARD_INIT;

	(void)state;
	assert_int_equal(weakened(HEAD "@@ -1,3 +1,3 @@\n"
				  "-#define MAX 16\n+#define MAX 64\n"
				  "-    if (n < len) p[n] = 0;\n"
				  "+    if (n <= len) p[n] = 0;\n"
				  "     return 0;\n", &g), 1);
	assert_int_equal(g.nr, 2);
	assert_string_equal(g.text, "#define MAX 16");
	diff_guard_release(&g);
}

static void test_deleted_call(void **state)
{
	struct diff_guard g = DIFF_GUARD_INIT;

	(void)state;
	assert_int_equal(weakened(HEAD "@@ -1,3 +1,2 @@\n"
				  "     n = read(fd, buf, 16);\n"
				  "-    check_bounds(buf, n);\n"
				  "     use(buf, n);\n", &g), 1);
	assert_string_equal(g.text, "check_bounds(buf, n);");
	diff_guard_release(&g);
}

/* Behaviour-neutral rewrites of conditions: reformatted, comments
 * added, a statement split over lines. None weakens a guard. */
static void test_rewrites_keep_guards(void **state)
{
	struct diff_guard g = DIFF_GUARD_INIT;

	(void)state;
	assert_int_equal(weakened(HEAD "@@ -1,4 +1,8 @@\n"
		"-  if (n == m) { memcpy(d, s, m); return m; }  /* as is */\n"
		"+  if (n == m) {   /* as is */\n"
		"+    memcpy(d, s, m);\n"
		"+    return m;\n"
		"+  }\n"
		"-  if (rows == 0) rows = v;\n"
		"+  if (rows == 0)\n"
		"+    rows = v;\n"
		"-  /* NB: a comment that goes */\n"
		"+  /* NB: a comment that goes, longer */\n"
		"   return 0;\n", &g), 0);
	assert_null(g.path);
	/* not C: no guard */
	assert_int_equal(weakened("diff --git a/README b/README\n"
				  "--- a/README\n+++ b/README\n@@ -1 +1 @@\n"
				  "-if (a < b)\n+text\n", &g), 0);
	diff_guard_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atoms),
		cmocka_unit_test(test_removed_check),
		cmocka_unit_test(test_turned_comparison_and_constant),
		cmocka_unit_test(test_deleted_call),
		cmocka_unit_test(test_rewrites_keep_guards),
	};
	int r;

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return r;
}
