/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_coverage.c - the lcov parser and the changed lines a harness hits
 *
 * REAL_LCOV is an excerpt of what `llvm-cov export -format=lcov` (LLVM
 * 14, in the base-runner image) wrote for the recparse example's
 * fuzz_records harness after replaying its seed corpus on the head's
 * coverage build; the rest are hand-made edge cases and hostile input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/scan/coverage.h"
#include "diff/changeset.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* The record for exactly `path`, or NULL. */
static const struct coverage_file *file_named(const struct coverage *c,
					      const char *path)
{
	for (size_t i = 0; c && i < c->nr; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	return NULL;
}

static const char REAL_LCOV[] =
	"SF:/src/recparse/fuzz/fuzz_records.c\n"
	"FN:11,LLVMFuzzerTestOneInput\n"
	"FNDA:4,LLVMFuzzerTestOneInput\n"
	"FNF:1\n"
	"FNH:1\n"
	"DA:11,4\n"
	"DA:12,4\n"
	"DA:13,4\n"
	"DA:14,4\n"
	"DA:16,4\n"
	"DA:17,0\n"
	"DA:18,4\n"
	"DA:19,11\n"
	"DA:20,7\n"
	"DA:21,4\n"
	"DA:22,4\n"
	"DA:23,4\n"
	"BRDA:16,0,0,0\n"
	"BRDA:16,0,1,4\n"
	"BRF:2\n"
	"BRH:1\n"
	"LF:12\n"
	"LH:11\n"
	"end_of_record\n"
	"SF:/src/recparse/src/recparse.c\n"
	"FN:81,rp_parse\n"
	"FN:18,recparse.c:parse_extended\n"
	"FNDA:4,rp_parse\n"
	"FNDA:1,recparse.c:parse_extended\n"
	"FNF:2\n"
	"FNH:2\n"
	"DA:18,1\n"
	"DA:19,1\n"
	"DA:20,1\n"
	"DA:22,1\n"
	"DA:23,0\n"
	"DA:37,2\n"
	"DA:38,0\n"
	"DA:39,2\n"
	"DA:40,2\n"
	"DA:41,2\n"
	"DA:46,0\n"
	"DA:81,4\n"
	"BRDA:23,0,0,0\n"
	"LF:12\n"
	"LH:9\n"
	"end_of_record\n";

/* A git diff: a replacement, a removal only, a new file, a binary file
 * and a deleted file. */
static const char PATCH[] =
	"diff --git a/src/a.c b/src/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -1,6 +1,7 @@\n"
	" int f(int x)\n"
	" {\n"
	"-\treturn x;\n"
	"+\tint y = x + 1;\n"
	"+\treturn y;\n"
	" }\n"
	" \n"
	" int g(void)\n"
	"@@ -10,6 +11,5 @@ int h(int x)\n"
	" {\n"
	" \tif (x)\n"
	" \t\tx++;\n"
	"-\tx--;\n"
	" \treturn x;\n"
	" }\n"
	"diff --git a/data.bin b/data.bin\n"
	"new file mode 100644\n"
	"index 0000000..3333333\n"
	"Binary files /dev/null and b/data.bin differ\n"
	"diff --git a/old.c b/old.c\n"
	"deleted file mode 100644\n"
	"index 4444444..0000000\n"
	"--- a/old.c\n"
	"+++ /dev/null\n"
	"@@ -1,2 +0,0 @@\n"
	"-int old;\n"
	"-int older;\n"
	"diff --git a/src/new.c b/src/new.c\n"
	"new file mode 100644\n"
	"index 0000000..5555555\n"
	"--- /dev/null\n"
	"+++ b/src/new.c\n"
	"@@ -0,0 +1,2 @@\n"
	"+int n(void)\n"
	"+{ return 1; }\n";

static struct coverage *parse_ok(const char *text)
{
	struct coverage *c = NULL;

	assert_int_equal(coverage_parse_lcov(&c, text, strlen(text), "t"), 0);
	assert_non_null(c);
	return c;
}

static void assert_line(const struct coverage_file *f, size_t i, int line,
			int hit)
{
	assert_true(i < f->lines_nr);
	assert_int_equal(f->lines[i], line);
	assert_int_equal(f->hit[i], hit);
}

static void test_real_export(void **state)
{
	struct coverage *c = parse_ok(REAL_LCOV);
	const struct coverage_file *h, *lib;

	(void)state;
	assert_int_equal(c->nr, 2);
	h = file_named(c, "/src/recparse/fuzz/fuzz_records.c");
	lib = file_named(c, "/src/recparse/src/recparse.c");
	assert_non_null(h);
	assert_non_null(lib);
	assert_null(file_named(c, "/src/recparse/src"));
	assert_true(h->defines_entry);
	/* "recparse.c:parse_extended" is a static function, not the entry */
	assert_false(lib->defines_entry);
	assert_int_equal(h->lines_nr, 12);
	assert_line(h, 0, 11, 1);
	assert_line(h, 5, 17, 0);
	assert_line(h, 11, 23, 1);
	assert_int_equal(lib->lines_nr, 12);
	assert_line(lib, 3, 22, 1);
	assert_line(lib, 4, 23, 0);
	assert_line(lib, 8, 40, 1);
	assert_line(lib, 10, 46, 0);
	coverage_free(c);
}

static void test_merges_and_sorts(void **state)
{
	/* two records of one file, lines out of order and repeated, CRLF,
	 * lcov 2's three-field FN:, no final newline */
	struct coverage *c = parse_ok(
		"TN:\r\nSF:/r/b.c\r\nDA:9,0\r\nDA:3,1\r\nDA:9,0\r\n"
		"end_of_record\r\nSF:/r/a.c\nDA:1,0\nend_of_record\n"
		"SF:/r/b.c\nFN:2,20,LLVMFuzzerTestOneInput\nDA:9,7,abc\n"
		"DA:3,0\nDA:5,18446744073709551616000\nend_of_record");
	const struct coverage_file *b;

	(void)state;
	assert_int_equal(c->nr, 2);
	assert_string_equal(c->files[0].path, "/r/a.c");
	assert_string_equal(c->files[1].path, "/r/b.c");
	b = &c->files[1];
	assert_true(b->defines_entry);
	assert_int_equal(b->lines_nr, 3);
	assert_line(b, 0, 3, 1);	/* hit in the first record */
	assert_line(b, 1, 5, 1);	/* a count past 64 bits is a hit */
	assert_line(b, 2, 9, 1);	/* hit in the second record */
	/* counts: the larger of two records', saturated past 64 bits */
	assert_true(b->count[0] == 1);
	assert_true(b->count[1] == ULLONG_MAX);
	assert_true(b->count[2] == 7);
	coverage_free(c);
}

static void test_empty_and_unknown(void **state)
{
	struct coverage *c = parse_ok("");

	(void)state;
	assert_int_equal(c->nr, 0);
	assert_null(file_named(c, "/x"));
	coverage_free(c);
	c = parse_ok("TN:x\nVER:2\nLF:0\n\n\n");
	assert_int_equal(c->nr, 0);
	coverage_free(c);
	coverage_free(NULL);
}

static void assert_bad_n(const char *text, size_t len, const char *msg)
{
	struct coverage *c = (struct coverage *)&c;

	crs_error_clear();
	assert_int_equal(coverage_parse_lcov(&c, text, len, "cov.lcov"),
			 CRS_EINPUT);
	assert_null(c);
	if (!strstr(crs_error_last(), msg))
		fail_msg("error '%s' lacks '%s'", crs_error_last(), msg);
}

static void assert_bad(const char *text, const char *msg)
{
	assert_bad_n(text, strlen(text), msg);
}

static void test_rejects_malformed(void **state)
{
	static const char nul[] = "SF:/a.c\nDA:1,\0001\nend_of_record\n";

	(void)state;
	assert_bad("DA:1,1\n", "cov.lcov:1: DA: outside a file record");
	assert_bad("SF:/a.c\nend_of_record\nFN:1,f\n",
		   "cov.lcov:3: FN: outside a file record");
	assert_bad("SF:\n", "cov.lcov:1: SF: without a file name");
	assert_bad("SF:/a.c\nDA:x,1\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\nDA:0,1\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\nDA:5\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\nDA:5,\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\nDA:5,-1\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\nDA:,1\n", "cov.lcov:2: malformed DA:");
	assert_bad("SF:/a.c\n\nDA:2147483648,1\n", "cov.lcov:3: malformed DA:");
	assert_bad("SF:/a.c\nFN:LLVMFuzzerTestOneInput\n",
		   "cov.lcov:2: malformed FN:");
	assert_bad("BRDA:1,0,0,1\n", "cov.lcov:1: BRDA: outside a file record");
	assert_bad("SF:/a.c\nBRDA:1,0,1\n", "cov.lcov:2: malformed BRDA:");
	assert_bad("SF:/a.c\nBRDA:1,0,0,\n", "cov.lcov:2: malformed BRDA:");
	assert_bad("SF:/a.c\nBRDA:0,0,0,1\n", "cov.lcov:2: malformed BRDA:");
	assert_bad("SF:/a.c\nBRDA:x,0,0,1\n", "cov.lcov:2: malformed BRDA:");
	assert_bad("SF:/a.c\nBRDA:1,0,0,-1\n", "cov.lcov:2: malformed BRDA:");
	assert_bad("SF:/a.c\nBRDA:1,,0\n", "cov.lcov:2: malformed BRDA:");
	assert_bad_n(nul, sizeof(nul) - 1, "NUL byte");
}

/* Mutations of the real export parse or fail cleanly, never crash. */
static void test_hostile_mutations(void **state)
{
	size_t len = strlen(REAL_LCOV);
	char *buf = xmalloc(len);
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	static const char alphabet[] = "0123456789,:\n\r-DAFNS\xff";

	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct coverage *c = NULL;
		int r;

		memcpy(buf, REAL_LCOV, len);
		for (int k = 0; k < 1 + round % 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[x % len] = alphabet[(x >> 32) %
						(sizeof(alphabet) - 1)];
		}
		x ^= x << 13;
		r = coverage_parse_lcov(&c, buf, (size_t)(x % (len + 1)), "m");
		assert_true(r == 0 || r == CRS_EINPUT);
		assert_true((r == 0) == (c != NULL));
		for (size_t i = 0; c && i < c->nr; i++)
			for (size_t k = 1; k < c->files[i].lines_nr; k++)
				assert_true(c->files[i].lines[k - 1] <
					    c->files[i].lines[k]);
		coverage_free(c);
	}
	free(buf);
}

static void test_repo_relative(void **state)
{
	static const struct {
		const char *path, *repo, *want;
	} cases[] = {
		{ "/src/recparse/src/recparse.c", "/src/recparse",
		  "src/recparse.c" },
		{ "/src/recparse/./src//recparse.c", "/src/recparse/",
		  "src/recparse.c" },
		{ "/src/recparse/fuzz/../src/a.c", "/src/recparse", "src/a.c" },
		{ "src/a.c", "/src/recparse", "src/a.c" },
		{ "./src/a.c", "/src/recparse", "src/a.c" },
		{ "/src/x.c", "/", "src/x.c" },
		{ "/src/recparse/../other/a.c", "/src/recparse", NULL },
		{ "/src/recparsefoo/a.c", "/src/recparse", NULL },
		{ "/src/recparse", "/src/recparse", NULL },
		{ "/src/recparse/", "/src/recparse", NULL },
		{ "/usr/include/stdio.h", "/src/recparse", NULL },
		{ "/../../etc/passwd", "/src/recparse", NULL },
		{ "../../etc/passwd", "/src/recparse", NULL },
		{ "/src/recparse/a.c", "src/recparse", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = coverage_repo_relative(cases[i].path,
						   cases[i].repo);

		if (!cases[i].want) {
			if (got)
				fail_msg("%s in %s: got '%s', want none",
					 cases[i].path, cases[i].repo, got);
			continue;
		}
		if (!got || strcmp(got, cases[i].want))
			fail_msg("%s in %s: got '%s', want '%s'",
				 cases[i].path, cases[i].repo,
				 got ? got : "(none)", cases[i].want);
		free(got);
	}
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/test_coverage.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

/* As the select phase reads a replay's coverage.lcov: fs_read_regular_at. */
static int load_lcov(struct coverage **out, int dfd, const char *name,
		     size_t max)
{
	struct buf b = BUF_INIT;
	int r;

	*out = NULL;
	if ((r = fs_read_regular_at(&b, dfd, name, NULL, max, NULL)) == 0)
		r = coverage_parse_lcov(out, b.ptr, b.len, name);
	buf_release(&b);
	return r;
}

static void test_load_file(void **state)
{
	char *dir = temp_dir();
	char *file = xasprintf("%s/coverage.lcov", dir);
	char *link = xasprintf("%s/link.lcov", dir);
	char *missing = xasprintf("%s/missing.lcov", dir);
	struct coverage *c = NULL;
	int dfd = -1;

	(void)state;
	assert_int_equal(fs_write_file_atomic(file, REAL_LCOV,
					      strlen(REAL_LCOV)), 0);
	assert_int_equal(fs_open_dir(&dfd, dir), 0);
	assert_int_equal(load_lcov(&c, dfd, "coverage.lcov",
				   COVERAGE_LCOV_MAX), 0);
	assert_int_equal(c->nr, 2);
	coverage_free(c);
	/* a container could plant a symlink to a host file: not followed */
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(load_lcov(&c, dfd, "link.lcov", COVERAGE_LCOV_MAX),
			 CRS_EINPUT);
	assert_null(c);
	/* the size cap */
	assert_int_equal(load_lcov(&c, dfd, "coverage.lcov", 100), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "at most 100 bytes"));
	assert_int_equal(load_lcov(&c, dfd, "missing.lcov", COVERAGE_LCOV_MAX),
			 CRS_ENOTFOUND);
	assert_int_equal(load_lcov(&c, dfd, ".", COVERAGE_LCOV_MAX),
			 CRS_EINPUT);
	assert_null(c);
	crs_error_clear();
	close(dfd);
	assert_int_equal(fs_remove_tree(dir), 0);
	free(dir);
	free(file);
	free(link);
	free(missing);
}

static struct diff_changeset *change(void)
{
	struct diff_changeset *cs = NULL;

	assert_int_equal(diff_changeset_from_patch(&cs, PATCH, strlen(PATCH),
						   "t.diff"), 0);
	return cs;
}

static void assert_target(const struct coverage_target *t, const char *path,
			  const int *lines, size_t nr)
{
	assert_string_equal(t->path, path);
	assert_int_equal(t->lines_nr, nr);
	for (size_t i = 0; i < nr; i++)
		assert_int_equal(t->lines[i], lines[i]);
}

static void test_targets(void **state)
{
	struct diff_changeset *cs = change();
	struct coverage_targets *t = NULL;
	/* 3, 4 added; 13, 14 around the removed "x--"; a replacement adds
	 * no neighbours (line 2 is not a target) */
	static const int a[] = { 3, 4, 13, 14 };
	static const int n[] = { 1, 2 };

	(void)state;
	coverage_targets_from_change(&t, cs);
	/* data.bin is binary, old.c deleted: neither has lines */
	assert_int_equal(t->nr, 2);
	assert_target(&t->files[0], "src/a.c", a, 4);
	assert_target(&t->files[1], "src/new.c", n, 2);
	assert_int_equal(t->lines_total, 6);
	coverage_targets_free(t);
	/* without a patch to re-read, only the added lines count */
	free(cs->patch);
	cs->patch = NULL;
	cs->patch_len = 0;
	coverage_targets_from_change(&t, cs);
	assert_int_equal(t->nr, 2);
	assert_target(&t->files[0], "src/a.c", a, 2);
	coverage_targets_free(t);
	coverage_targets_from_change(&t, NULL);
	assert_int_equal(t->nr, 0);
	assert_int_equal(t->lines_total, 0);
	coverage_targets_free(t);
	coverage_targets_free(NULL);
	diff_changeset_free(cs);
}

static void test_reach(void **state)
{
	struct diff_changeset *cs = change();
	struct coverage_targets *t = NULL;
	struct coverage_reach r = COVERAGE_REACH_INIT;
	struct coverage *c = parse_ok(
		"SF:/src/proj/src/a.c\nFN:1,f\n"
		"DA:1,5\nDA:2,5\nDA:3,5\nDA:4,5\nDA:12,0\nDA:13,0\nDA:14,0\n"
		"end_of_record\n"
		"SF:/src/proj/fuzz/fuzz_a.c\nFN:3,LLVMFuzzerTestOneInput\n"
		"DA:3,1\nend_of_record\n"
		"SF:/usr/include/stdio.h\nFN:1,LLVMFuzzerTestOneInput\n"
		"DA:3,1\nend_of_record\n"
		/* the same file under another spelling */
		"SF:/src/proj/./src/a.c\nDA:13,2\nend_of_record\n");

	(void)state;
	coverage_targets_from_change(&t, cs);
	coverage_reach(&r, c, t, "/src/proj");
	assert_int_equal(r.files_nr, 2);
	assert_int_equal(r.state[0][0], COVERAGE_LINE_HIT);	/* a.c:3 */
	assert_int_equal(r.state[0][1], COVERAGE_LINE_HIT);	/* a.c:4 */
	assert_int_equal(r.state[0][2], COVERAGE_LINE_HIT);	/* a.c:13 */
	assert_int_equal(r.state[0][3], COVERAGE_LINE_MAPPED); /* a.c:14 */
	assert_int_equal(r.state[1][0], COVERAGE_LINE_NONE);	/* new.c */
	assert_int_equal(r.state[1][1], COVERAGE_LINE_NONE);
	assert_int_equal(r.hit_nr, 3);
	assert_int_equal(r.mapped_nr, 4);
	/* outside the repo does not count, even defining the entry */
	assert_string_equal(r.entry_file, "fuzz/fuzz_a.c");
	coverage_reach_release(&r);
	coverage_reach_release(&r);
	/* no coverage at all: nothing hit, nothing mapped */
	coverage_reach(&r, NULL, t, "/src/proj");
	assert_int_equal(r.hit_nr, 0);
	assert_int_equal(r.mapped_nr, 0);
	assert_null(r.entry_file);
	coverage_reach_release(&r);
	/* another repo root: nothing maps */
	coverage_reach(&r, c, t, "/src/other");
	assert_int_equal(r.hit_nr, 0);
	assert_int_equal(r.mapped_nr, 0);
	coverage_reach_release(&r);
	coverage_free(c);
	coverage_targets_free(t);
	diff_changeset_free(cs);
}

/*
 * Branches that ran, out of the target lines: a "-" or 0 count is not
 * taken; two records of one file take the larger count per line, not
 * the sum; file_branch_nr counts every taken branch of a target's file.
 */
static void test_reach_branches(void **state)
{
	struct diff_changeset *cs = change();
	struct coverage_targets *t = NULL;
	struct coverage_reach r = COVERAGE_REACH_INIT;
	struct coverage *c = parse_ok(
		"SF:/src/proj/src/a.c\n"
		"DA:3,5\nDA:4,5\nDA:13,1\nDA:20,1\n"
		"BRDA:3,0,0,5\nBRDA:3,0,1,0\nBRDA:4,0,0,-\n"
		"BRDA:13,0,0,1\nBRDA:20,0,0,1\nBRDA:20,0,1,2\n"
		"end_of_record\n"
		"SF:/src/proj/./src/a.c\nDA:3,1\n"
		"BRDA:3,0,0,1\nBRDA:3,0,1,1\nend_of_record\n");

	(void)state;
	coverage_targets_from_change(&t, cs);
	coverage_reach(&r, c, t, "/src/proj");
	/* a.c:3 (2 taken in the second record), a.c:13 (1); a.c:20 is not
	 * a target line */
	assert_int_equal(r.branch_hit_nr, 3);
	assert_int_equal(r.file_branch_nr, 6);	/* 4 + 2, both records */
	/* target lines' runs: a.c:3 5 (the larger record), a.c:4 5,
	 * a.c:13 1 */
	assert_true(r.runs_nr == 11);
	coverage_reach_release(&r);
	coverage_free(c);
	coverage_targets_free(t);
	diff_changeset_free(cs);
}

/* The touched functions' lines: whole spans, files sorted, repeats and
 * overlaps folded; and file_hit_nr counts every line that ran in a
 * target's file. */
static void test_function_targets(void **state)
{
	struct diff_touched_fn v[] = {
		{ .path = "src/b.c", .name = "g", .start = 10, .end = 12 },
		{ .path = "src/a.c", .name = "f", .start = 3, .end = 4 },
		{ .path = "src/b.c", .name = "h", .start = 12, .end = 13 },
	};
	struct diff_touched d = { .v = v, .nr = 3, .alloc = 3 };
	struct coverage_targets *t = NULL;
	struct coverage *c = NULL;
	struct coverage_reach r = COVERAGE_REACH_INIT;
	static const char lcov[] =
		"SF:/src/src/b.c\nDA:1,1\nDA:11,2\nDA:13,0\nDA:40,1\n"
		"end_of_record\n";

	(void)state;
	coverage_targets_functions(&t, &d);
	assert_int_equal(t->nr, 2);
	assert_string_equal(t->files[0].path, "src/a.c");
	assert_int_equal(t->files[0].lines_nr, 2);
	assert_string_equal(t->files[1].path, "src/b.c");
	assert_int_equal(t->files[1].lines_nr, 4);	/* 10..13 */
	assert_int_equal(t->lines_total, 6);
	assert_int_equal(coverage_parse_lcov(&c, lcov, strlen(lcov), "x"), 0);
	coverage_reach(&r, c, t, "/src");
	assert_int_equal(r.hit_nr, 1);		/* line 11 */
	assert_int_equal(r.mapped_nr, 2);	/* 11 and 13 */
	assert_int_equal(r.file_hit_nr, 3);	/* 1, 11 and 40 */
	coverage_reach_release(&r);
	coverage_free(c);
	coverage_targets_free(t);
	coverage_targets_functions(&t, NULL);
	assert_int_equal(t->nr, 0);
	coverage_targets_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_export),
		cmocka_unit_test(test_merges_and_sorts),
		cmocka_unit_test(test_empty_and_unknown),
		cmocka_unit_test(test_rejects_malformed),
		cmocka_unit_test(test_hostile_mutations),
		cmocka_unit_test(test_repo_relative),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_reach),
		cmocka_unit_test(test_reach_branches),
		cmocka_unit_test(test_function_targets),
	};
	int r;

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return r;
}
