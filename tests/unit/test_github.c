/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_github.c - GitHub Actions reporting against a fake REST API
 *
 * Drives runner/report/github.c with the recorded pull_request event in
 * tests/fixtures/github/ and the in-process fake of GitHub's API
 * (tests/helper/fake_github.c): annotations and their caps and escaping,
 * runner commands ("##[", "::", GitLab sections) in every untrusted
 * field, the stop-commands guard, the job summary, the outputs file, the SARIF
 * upload body (decoded back to the file), polling, the review at the head
 * sha, and the fork behaviour.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <git2.h>

#include "tests/helper/fake_github.h"
#include "ci_commands.h"
#include "runner/report/github.h"
#include "diff/changeset.h"
#include "runner/report/removal_review.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define FIXTURE "tests/fixtures/github/pull_request.json"
#define DIFF_FIXTURE "tests/fixtures/github/pr.diff"
#define BASE_SHA "5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d"
#define HEAD_SHA "9c2e4a6b8d0f1e3a5c7b9d1f3e5a7c9b1d3f5e7a"
#define MERGE_SHA "3a1f5b7d9e2c4a6b8d0f2e4a6c8b0d2f4e6a8c0b"
#define TOKEN "ghs_testtoken0123456789abcdefABCDEF"
#define HOSTILE "boom %0A::error::pwned\r\n::set-output name=x::y, 100%"

/* --- helpers -------------------------------------------------------------- */

struct tmpdir {
	char path[64];
};

static void tmpdir_make(struct tmpdir *t)
{
	strcpy(t->path, "/tmp/test_github.XXXXXX");
	assert_non_null(mkdtemp(t->path));
}

static void tmpdir_remove(struct tmpdir *t)
{
	assert_int_equal(fs_remove_tree(t->path), 0);
}

static char *tpath(const struct tmpdir *t, const char *name)
{
	return xasprintf("%s/%s", t->path, name);
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(fs_write_file_atomic(path, text, strlen(text)), 0);
}

static char *read_text(const char *path)
{
	struct buf b = BUF_INIT;

	assert_int_equal(fs_read_file(&b, path, 64u << 20), 0);
	return buf_detach(&b, NULL);
}

static size_t count_lines_prefix(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, prefix, pl))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static struct finding *add(struct finding_set *fs, const char *id,
			   const char *novelty, const char *file, int line)
{
	struct finding *x = finding_set_add(fs);

	x->id = xstrdup(id);
	x->signature = xasprintf("Heap-buffer-overflow WRITE 4\n%s", id);
	x->crash_type = xstrdup("Heap-buffer-overflow WRITE 4");
	x->function = xstrdup("parse_ext");
	x->harness = xstrdup("fuzz_parse");
	x->found_by = xstrdup("crs-libfuzzer");
	x->found_after_s = 12;
	x->file = file ? xstrdup(file) : NULL;
	x->line = line;
	x->column = 5;
	x->reproduced = 5;
	x->attempts = 5;
	x->novelty = novelty ? xstrdup(novelty) : NULL;
	x->pov_path = xasprintf("povs/%s", id);
	return x;
}

static void summary_init(struct finding_set *fs)
{
	finding_set_init(fs);
	fs->summary.project = xstrdup("recparse");
	fs->summary.fail_on = xstrdup("new");
	fs->summary.base = xstrdup(BASE_SHA);
	fs->summary.head = xstrdup(HEAD_SHA);
	fs->summary.mode = xstrdup("delta");
	fs->summary.harnesses = xcalloc(2, sizeof(char *));
	fs->summary.harnesses[0] = xstrdup("fuzz_parse");
	fs->summary.harnesses[1] = xstrdup("fuzz_<b>ext</b>");
	fs->summary.harnesses_nr = 2;
	fs->summary.crs = xcalloc(1, sizeof(char *));
	fs->summary.crs[0] = xstrdup("crs-libfuzzer");
	fs->summary.crs_nr = 1;
	fs->summary.povs_submitted = 7;
	fs->summary.duration_s = 93;
}

static char *stream_text(FILE *f, char **mem)
{
	assert_int_equal(fclose(f), 0);
	return *mem;
}

/* --- escaping and annotations --------------------------------------------- */

static void test_escaping(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	github_escape_data(&b, HOSTILE);
	assert_string_equal(b.ptr, "boom %250A::error::pwned%0D%0A"
			    "::set-output name=x::y, 100%25");
	buf_reset(&b);
	github_escape_property(&b, HOSTILE);
	assert_string_equal(b.ptr, "boom %250A%3A%3Aerror%3A%3Apwned%0D%0A"
			    "%3A%3Aset-output name=x%3A%3Ay%2C 100%25");
	buf_reset(&b);
	github_escape_data(&b, "\x1b[31mred\tx");
	assert_string_equal(b.ptr, "%1B[31mred\tx");
	buf_reset(&b);
	/* runner commands are shown, not run: "##[" anywhere, "::" first */
	github_escape_data(&b, HOSTILE_CI_ERROR " " HOSTILE_CI_STOP " "
			   HOSTILE_CI_SECTION " C#");
	assert_string_equal(b.ptr, "%3A:error::x ##%5Bstop-commands]tok "
			    "%1B[0Ksection_start:1:x%0D%1B[0K C%23");
	buf_reset(&b);
	github_escape_property(&b, "src/" HOSTILE_CI_STOP ".c");
	assert_string_equal(b.ptr, "src/##%5Bstop-commands]tok.c");
	buf_reset(&b);
	github_escape_markdown(&b, "a|b <script>x</script> [l](http://e) "
			       "`c` @team\n# h");
	assert_null(strchr(b.ptr, '<'));
	assert_null(strchr(b.ptr, '\n'));
	assert_non_null(strstr(b.ptr, "a\\|b &lt;script&gt;"));
	assert_non_null(strstr(b.ptr, "\\[l\\]\\(http\\:"));
	assert_non_null(strstr(b.ptr, "\\`c\\` \\@team \\# h"));
	buf_release(&b);
}

static void test_annotation_hostile(void **state)
{
	struct finding_set fs;
	struct finding *x;
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	char *text;

	(void)state;
	summary_init(&fs);
	x = add(&fs, "0123456789abcdef", "new", "src/a,b:c.c", 44);
	free(x->crash_type);
	x->crash_type = xstrdup(HOSTILE);
	x->description = xstrdup("ERROR: AddressSanitizer: ::warning::x\n"
				 "second line 50%");
	assert_int_equal(github_annotations(f, &fs, "out"), 0);
	text = stream_text(f, &mem);
	/* exactly one line: nothing hostile broke out of it */
	assert_int_equal(count_lines_prefix(text, "::"), 1);
	assert_int_equal(strchr(text, '\n') - text, (long)strlen(text) - 1);
	assert_string_equal(text,
		"::error file=src/a%2Cb%3Ac.c,line=44,col=5,"
		"title=crs-ci%3A boom %250A%3A%3Aerror%3A%3Apwned%0D%0A"
		"%3A%3Aset-output name=x%3A%3Ay%2C 100%25 (new)::"
		"boom %250A::error::pwned%0D%0A::set-output name=x::y, 100%25"
		" in parse_ext, reproduced 5/5 on the head build, harness "
		"fuzz_parse, found by crs-libfuzzer.%0AERROR: AddressSanitizer"
		": ::warning::x%0Asecond line 50%25%0APoV: out/povs/"
		"0123456789abcdef\n");
	free(text);
	finding_set_release(&fs);
}

/*
 * A crash outside the change, anchored on the changed line its PoV ran:
 * the annotation is on that line (no column) and says where it crashes;
 * the job summary shows the changed lines with the crash line, a hostile
 * source line kept inside its code block.
 */
static void test_anchor(void **state)
{
	static const char lines_json[] =
		"{\"version\":1,\"findings\":{\"0123456789abcdef\":[{"
		"\"file\":\"src/a.c\",\"line\":41,\"first\":37,"
		"\"lines\":[\"a\",\"```\\n::error::x\",\"c\",\"d\",\"e\","
		"\"f\",\"g\",\"h\"],\"changed\":[40,41],"
		"\"role\":\"anchor\",\"crash\":44}]}}";
	int exec_lines[] = { 40, 41 };
	struct anchor_file exec[] = { { "src/a.c", exec_lines, 2 } };
	struct finding_set fs;
	struct finding *x;
	struct tmpdir t;
	struct buf md = BUF_INIT;
	char *mem = NULL, *text, *p;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	(void)state;
	tmpdir_make(&t);
	p = tpath(&t, "change-lines.json");
	assert_int_equal(fs_write_file_atomic(p, lines_json,
					      strlen(lines_json)), 0);
	free(p);
	p = tpath(&t, "povs");
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	p = tpath(&t, "povs/0123456789abcdef");
	assert_int_equal(fs_write_file_atomic(p, "RP\001```", 6), 0);
	free(p);
	summary_init(&fs);
	x = add(&fs, "0123456789abcdef", "new", "src/a.c", 44);
	x->anchor = change_anchor_pick(x, exec, 1, NULL, NULL);
	assert_string_equal(x->anchor->how, ANCHOR_EXECUTED);
	assert_int_equal(github_annotations(f, &fs, "out"), 0);
	text = stream_text(f, &mem);
	assert_non_null(strstr(text, "::error file=src/a.c,line=41,title="));
	assert_non_null(strstr(text, "::This change leads to a heap-buffer-"
			       "overflow WRITE 4 at src/a.c:44 in parse_ext."));
	free(text);
	github_summary(&md, &fs, t.path, NULL, 0);
	assert_non_null(strstr(md.ptr, "src/a\\.c\\:41 (changed line the "
			       "PoV ran), crash at src/a\\.c\\:44"));
	/* the failing finding's proof leads, with the changed lines */
	assert_non_null(strstr(md.ptr, "### [new] "));
	assert_true(strstr(md.ptr, "### [new] ") < strstr(md.ptr, "| novelty"));
	assert_null(strstr(md.ptr, "**Changed lines that led to the "
			   "crash**"));
	assert_non_null(strstr(md.ptr, "\n+    40  d\n*    41  e\n"));
	assert_non_null(strstr(md.ptr, "\n>    44  h\n"));
	/* the PoV's bytes, in hex and printable */
	assert_non_null(strstr(md.ptr, "**The PoV** (6 byte(s)):"));
	assert_non_null(strstr(md.ptr, "00000000  52 50 01 60 60 60"));
	assert_non_null(strstr(md.ptr, "|RP.```|"));
	/* the fence is longer than any backtick run in the lines */
	assert_non_null(strstr(md.ptr, "\n````\n"));
	buf_release(&md);
	finding_set_release(&fs);
	tmpdir_remove(&t);
}

/* Runner commands in every untrusted field: crs-ci's own line still runs. */
static void test_annotation_commands(void **state)
{
	const char *cmd = HOSTILE_CI_STOP " " HOSTILE_CI_ERROR " "
		HOSTILE_CI_SECTION;
	struct finding_set fs;
	struct finding *x;
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	char *text;

	(void)state;
	summary_init(&fs);
	x = add(&fs, "0123456789abcdef", "new",
		"src/" HOSTILE_CI_STOP HOSTILE_CI_ERROR ".c", 44);
	free(x->crash_type);
	free(x->function);
	free(x->harness);
	free(x->found_by);
	x->crash_type = xstrdup(HOSTILE_CI_ERROR);
	x->function = xstrdup(cmd);
	x->harness = xstrdup(HOSTILE_CI_STOP);
	x->found_by = xstrdup(HOSTILE_CI_SECTION);
	x->description = xstrdup(cmd);
	github_annotations(f, &fs, "out");
	text = stream_text(f, &mem);
	assert_int_equal(count_lines_prefix(text, "::error file=src/##%5B"
					    "stop-commands]tok%3A%3Aerror"
					    "%3A%3Ax.c,line=44,"), 1);
	assert_int_equal(ci_command_lines(text), 1);
	assert_false(ci_command_anywhere(text));
	assert_non_null(strstr(text, "::%3A:error::x in ##%5Bstop-commands]"
			       "tok ::error::x %1B[0Ksection_start:1:x%0D"
			       "%1B[0K, reproduced"));
	free(text);
	finding_set_release(&fs);
}

static void test_annotation_caps(void **state)
{
	struct finding_set fs;
	char *mem = NULL, *text, id[17];
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	(void)state;
	summary_init(&fs);
	for (int i = 0; i < 25; i++) {
		snprintf(id, sizeof(id), "%016x", i);
		add(&fs, id, "new", "src/parse.c", 10 + i);
	}
	for (int i = 0; i < 15; i++) {
		snprintf(id, sizeof(id), "%016x", 100 + i);
		add(&fs, id, "pre-existing", "src/parse.c", 50 + i);
	}
	for (int i = 0; i < 8; i++) {
		snprintf(id, sizeof(id), "%016x", 200 + i);
		add(&fs, id, "fixed-by-change", NULL, 0);
	}
	/* 25-10 errors, 15-9 warnings, 8-7 notices */
	assert_int_equal(github_annotations(f, &fs, "out"), 15 + 6 + 1);
	text = stream_text(f, &mem);
	assert_int_equal(count_lines_prefix(text, "::error "),
			 GITHUB_ANNOTATIONS_ERRORS);
	assert_int_equal(count_lines_prefix(text, "::warning "),
			 GITHUB_ANNOTATIONS_WARNINGS);
	assert_int_equal(count_lines_prefix(text, "::notice "),
			 GITHUB_ANNOTATIONS_NOTICES + 1);
	assert_true(count_lines_prefix(text, "::error ") <=
		    GITHUB_ANNOTATIONS_MAX);
	assert_non_null(strstr(text, "::notice title=crs-ci::22 more "
			       "finding(s) not annotated"));
	/* a finding without a location has no file= */
	assert_non_null(strstr(text, "::notice title=crs-ci%3A "
			       "Heap-buffer-overflow WRITE 4 "
			       "(fixed-by-change)::"));
	/* the policy decides: under "any" pre-existing ones are errors */
	free(text);
	free(fs.summary.fail_on);
	fs.summary.fail_on = xstrdup("none");
	mem = NULL;
	f = open_memstream(&mem, &len);
	github_annotations(f, &fs, "out");
	text = stream_text(f, &mem);
	assert_int_equal(count_lines_prefix(text, "::error "), 0);
	free(text);
	finding_set_release(&fs);
}

/* --report-timeouts/--report-ooms no: a suppressed finding is no annotation */
static void test_annotation_suppressed(void **state)
{
	struct finding_set fs;
	char *mem = NULL, *text;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	(void)state;
	summary_init(&fs);
	add(&fs, "00000000000000aa", "new", "src/parse.c", 10);
	add(&fs, "00000000000000bb", "new", "src/parse.c", 20);
	fs.items[0].suppressed = xstrdup("report-ooms");
	github_annotations(f, &fs, "out");
	text = stream_text(f, &mem);
	assert_int_equal(count_lines_prefix(text, "::error "), 1);
	assert_null(strstr(text, "line=10"));
	assert_non_null(strstr(text, "line=20"));
	free(text);
	finding_set_release(&fs);
}

static void test_echo_reports(void **state)
{
	struct tmpdir t;
	struct finding_set fs;
	struct finding *x;
	char *mem = NULL, *text, *p, *rep, token[33], resume[40];
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	const char *hostile = "==1==ERROR: AddressSanitizer: heap\n"
		"::endgroup::\n::error file=x::pwned\n"
		"::stop-commands::deadbeef\n::deadbeef::\n::add-mask::x\n"
		"    #0 0x4f5a2b in " HOSTILE_CI_STOP " /src/a.c:3:5\n"
		"\t#1 0x4f5a2c in ns::f(int) /src/a.c:9\n";
	const char *shown = "==1==ERROR: AddressSanitizer: heap\n"
		"\\x3a:endgroup::\n\\x3a:error file=x::pwned\n"
		"\\x3a:stop-commands::deadbeef\n\\x3a:deadbeef::\n"
		"\\x3a:add-mask::x\n"
		"    #0 0x4f5a2b in ##\\x5bstop-commands]tok /src/a.c:3:5\n"
		"\t#1 0x4f5a2c in ns::f(int) /src/a.c:9\n";
	const char *hostile_tail = "\x1b[31mred\x1b[0m\r\n";

	(void)state;
	tmpdir_make(&t);
	summary_init(&fs);
	x = add(&fs, "0123456789abcdef", "new", "src/parse.c", 44);
	x->report_path = xstrdup("reports/0123456789abcdef.txt");
	x = add(&fs, "1123456789abcdef", "new", "src/parse.c", 45);
	x->report_path = xstrdup("../../etc/passwd");	/* never read */
	rep = tpath(&t, "reports");
	assert_int_equal(fs_mkdir_p(rep), 0);
	free(rep);
	rep = tpath(&t, "reports/0123456789abcdef.txt");
	{
		char *all = xasprintf("%s%s", hostile, hostile_tail);

		write_text(rep, all);
		free(all);
	}
	assert_int_equal(github_echo_reports(f, &fs, t.path, 10), 0);
	text = stream_text(f, &mem);
	assert_int_equal(count_lines_prefix(text, "::group::"), 1);
	p = strstr(text, "\n::stop-commands::");
	assert_non_null(p);
	p += strlen("\n::stop-commands::");
	memcpy(token, p, 32);
	token[32] = '\0';
	for (int i = 0; i < 32; i++)
		assert_true(isxdigit((unsigned char)token[i]));
	assert_int_equal(p[32], '\n');
	/* the report sits between the guard and its resume, its runner
	 * commands shown as log lines show them */
	assert_memory_equal(p + 33, shown, strlen(shown));
	/* control bytes (ANSI escapes, CR) are shown, not sent to the log */
	assert_memory_equal(p + 33 + strlen(shown),
			    "\\x1b[31mred\\x1b[0m\\x0d\n", 23);
	snprintf(resume, sizeof(resume), "\n::%s::\n", token);
	assert_ptr_equal(strstr(p, resume), p + 33 + strlen(shown) + 22);
	assert_false(ci_command_anywhere(text));
	assert_non_null(strstr(text, resume));
	assert_non_null(strstr(strstr(text, resume), "::endgroup::\n"));
	assert_null(strstr(text, "root:"));
	free(text);
	free(rep);
	finding_set_release(&fs);
	tmpdir_remove(&t);
}

/* --- summary and outputs -------------------------------------------------- */

static void test_summary(void **state)
{
	struct finding_set fs;
	struct finding *x;
	struct buf md = BUF_INIT;
	const char *notes[] = { "SARIF upload skipped: <fork>" };

	(void)state;
	summary_init(&fs);
	fs.summary.head_build = xstrdup("/work/crs-ci-work/build/head");
	fs.summary.runner_image = xstrdup("crs-ci/runner:abc");
	x = add(&fs, "0123456789abcdef", "new", "src/parse.c", 44);
	x->in_change = 1;
	x = add(&fs, "1123456789abcdef", "pre-existing", "src/x|y.c", 7);
	free(x->function);
	x->function = xstrdup("<img src=x onerror=alert(1)>");
	x->reproduced = 3;
	/* the artifact the action uploads for this matrix job is named */
	setenv("CRS_CI_ARTIFACT_NAME", "crs-ci-undefined", 1);
	github_summary(&md, &fs, "crs-ci-out", notes, 1);
	assert_non_null(strstr(md.ptr, "download this job's artifact "
			       "(` crs-ci-undefined `)"));
	assert_non_null(strstr(md.ptr, "## crs-ci: FAIL (recparse)"));
	assert_non_null(strstr(md.ptr, "**2** proved finding(s), **1** "
			       "failing"));
	assert_non_null(strstr(md.ptr, "| novelty | crash | location | "
			       "reproduced | found by | harness | PoV |"));
	assert_non_null(strstr(md.ptr, "| new (fails) | Heap\\-buffer\\-"
			       "overflow WRITE 4 in parse\\_ext | src/parse\\"
			       ".c\\:44 | 5/5 | crs\\-libfuzzer after 12s | "
			       "fuzz\\_parse | ` crs-ci-out/povs/0123456789"
			       "abcdef ` |"));
	assert_non_null(strstr(md.ptr, "| 3/5 (flaky) |"));
	assert_non_null(strstr(md.ptr, "src/x\\|y\\.c"));
	assert_non_null(strstr(md.ptr, "&lt;img src=x onerror=alert\\(1\\)"
			       "&gt;"));
	assert_null(strstr(md.ptr, "<img"));
	assert_non_null(strstr(md.ptr, "**Harnesses:** fuzz\\_parse, "
			       "fuzz\\_&lt;b&gt;ext&lt;/b&gt;"));
	assert_non_null(strstr(md.ptr, "**CRSs:** crs\\-libfuzzer"));
	assert_non_null(strstr(md.ptr, "docker run --rm -v /work/crs-ci-"
			       "work/build/head:/out:ro -v $PWD/crs-ci-out/"
			       "<pov>:/testcase:ro crs-ci/runner:abc "
			       "reproduce <harness>"));
	assert_non_null(strstr(md.ptr, "- SARIF upload skipped\\: &lt;fork"
			       "&gt;\n"));
	/* table rows are one line each: 2 header lines + 2 rows */
	assert_int_equal(count_lines_prefix(md.ptr, "|"), 4);
	/* a name the action does not write is not echoed */
	setenv("CRS_CI_ARTIFACT_NAME", "crs-ci-a`b", 1);
	buf_reset(&md);
	github_summary(&md, &fs, "crs-ci-out", notes, 1);
	assert_non_null(strstr(md.ptr, "(` crs-ci-results `)"));
	assert_null(strstr(md.ptr, "a`b"));
	unsetenv("CRS_CI_ARTIFACT_NAME");
	buf_release(&md);
	finding_set_release(&fs);

	/* runner commands in every field of the summary stay inert */
	summary_init(&fs);
	x = add(&fs, HOSTILE_CI_STOP, "new", HOSTILE_CI_ERROR, 3);
	free(x->function);
	free(x->harness);
	x->function = xstrdup(HOSTILE_CI_STOP " " HOSTILE_CI_SECTION);
	x->harness = xstrdup(HOSTILE_CI_ERROR);
	fs.summary.incomplete = xcalloc(1, sizeof(*fs.summary.incomplete));
	fs.summary.incomplete[0].harness = xstrdup(HOSTILE_CI_STOP);
	fs.summary.incomplete[0].reason = xstrdup(HOSTILE_CI_ERROR);
	fs.summary.incomplete_nr = 1;
	{
		const char *note = HOSTILE_CI_ERROR " " HOSTILE_CI_STOP;

		github_summary(&md, &fs, "out", &note, 1);
	}
	assert_int_equal(ci_command_lines(md.ptr), 0);
	assert_false(ci_command_anywhere(md.ptr));
	assert_non_null(strstr(md.ptr, "`##\\x5bstop-commands]tok`: fuzzed"));
	assert_non_null(strstr(md.ptr, "` out/povs/##\\x5bstop-commands]tok `"));
	buf_release(&md);
	finding_set_release(&fs);

	summary_init(&fs);
	github_summary(&md, &fs, "out", NULL, 0);
	assert_non_null(strstr(md.ptr, "## crs-ci: PASS"));
	assert_null(strstr(md.ptr, "| novelty"));
	assert_null(strstr(md.ptr, "Coverage of the change"));	/* full */
	buf_release(&md);
	/* the coverage of the change, a hostile path escaped */
	fs.change_coverage = change_cov_new();
	change_cov_add(fs.change_coverage, "src/a.c", 3, CHANGE_COV_HIT);
	change_cov_add(fs.change_coverage, "src/<img src=x>.c", 9,
		       CHANGE_COV_MISSED);
	change_cov_finish(fs.change_coverage);
	github_summary(&md, &fs, "out", NULL, 0);
	assert_non_null(strstr(md.ptr, "**Coverage of the change:** fuzzing "
			       "executed 1 of 2 changed lines; not reached\\: "
			       "src/&lt;img src=x&gt;\\.c\\:9\n\n"));
	buf_release(&md);
	finding_set_release(&fs);
}

/* Parse name<<D ... D blocks; returns the value of `name` (caller frees). */
static char *output_value(const char *text, const char *name)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n'), *lt = strstr(p, "<<");
		char *delim, *end_mark, *v;
		const char *body, *e;

		assert_non_null(nl);
		assert_non_null(lt);
		assert_true(lt < nl);
		delim = xstrndup(lt + 2, (size_t)(nl - lt - 2));
		assert_true(strlen(delim) >= 20);
		body = nl + 1;
		end_mark = xasprintf("\n%s\n", delim);
		e = strstr(body - 1, end_mark);
		assert_non_null(e);
		if ((size_t)(lt - p) == strlen(name) &&
		    !strncmp(p, name, strlen(name))) {
			v = e >= body ? xstrndup(body, (size_t)(e - body)) :
				xstrdup("");
			free(delim);
			free(end_mark);
			return v;
		}
		p = e + strlen(end_mark);
		free(delim);
		free(end_mark);
	}
	return NULL;
}

static void test_outputs(void **state)
{
	struct tmpdir t;
	struct finding_set fs;
	char *path, *text, *v;

	(void)state;
	tmpdir_make(&t);
	summary_init(&fs);
	add(&fs, "0123456789abcdef", "new", "src/parse.c", 44);
	add(&fs, "1123456789abcdef", "pre-existing", "src/parse.c", 45);
	add(&fs, "2123456789abcdef", NULL, "src/parse.c", 46)->in_change = 1;
	path = tpath(&t, "github_output");
	write_text(path, "earlier=kept\n");
	assert_int_equal(github_outputs_write(path, &fs,
					      "out/results\nsarif"), 0);
	text = read_text(path);
	assert_true(!strncmp(text, "earlier=kept\n", 13));
	v = output_value(text + 13, "findings");
	assert_string_equal(v, "3");
	free(v);
	v = output_value(text + 13, "new-findings");
	assert_string_equal(v, "2");
	free(v);
	v = output_value(text + 13, "sarif");
	assert_string_equal(v, "out/results\nsarif");
	free(v);
	v = output_value(text + 13, "verdict");
	assert_string_equal(v, "fail");
	free(v);
	assert_int_equal(count_lines_prefix(text, "verdict<<ghadelimiter_"),
			 1);
	free(text);
	free(path);
	finding_set_release(&fs);
	tmpdir_remove(&t);
}

/* --- event ---------------------------------------------------------------- */

static char *fork_fixture(const struct tmpdir *t, const char *head_repo)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL);
	json_t *repo;	/* borrowed */
	char *path = tpath(t, "event.json");

	assert_non_null(j);
	repo = json_object_get(json_object_get(json_object_get(j,
		"pull_request"), "head"), "repo");
	if (head_repo)
		json_object_set_new(repo, "full_name",
				    json_string(head_repo));
	else
		json_object_del(json_object_get(json_object_get(j,
			"pull_request"), "head"), "repo");
	assert_int_equal(json_dump_file(j, path, 0), 0);
	json_decref(j);
	return path;
}

static void test_event(void **state)
{
	struct github_pr pr;
	struct tmpdir t;
	char *path;

	(void)state;
	assert_int_equal(github_pr_refs(&pr, FIXTURE), 0);
	assert_int_equal(pr.number, 42);
	assert_string_equal(pr.base_sha, BASE_SHA);
	assert_string_equal(pr.head_sha, HEAD_SHA);
	assert_string_not_equal(pr.head_sha, MERGE_SHA);
	assert_string_equal(pr.base_ref, "main");
	assert_string_equal(pr.head_ref, "extended-records");
	assert_string_equal(pr.head_repo, "example-org/recparse");
	assert_int_equal(pr.is_fork, 0);
	github_pr_release(&pr);

	tmpdir_make(&t);
	path = fork_fixture(&t, "mallory/recparse");
	assert_int_equal(github_pr_refs(&pr, path), 0);
	assert_int_equal(pr.is_fork, 1);
	github_pr_release(&pr);
	free(path);
	path = fork_fixture(&t, NULL);	/* deleted fork */
	assert_int_equal(github_pr_refs(&pr, path), 0);
	assert_int_equal(pr.is_fork, 1);
	github_pr_release(&pr);

	write_text(path, "{\"pull_request\":{\"number\":1,\"base\":{\"sha\":"
		   "\"abc\"},\"head\":{\"sha\":\"" HEAD_SHA "\"}}}");
	assert_int_equal(github_pr_refs(&pr, path), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "pull_request.base.sha"));
	write_text(path, "{\"ref\":\"refs/heads/main\"}");
	assert_int_equal(github_pr_refs(&pr, path), CRS_EINPUT);
	write_text(path, "{\"pull_request\":");
	assert_int_equal(github_pr_refs(&pr, path), CRS_EINPUT);
	assert_int_equal(pr.head_sha, NULL);
	free(path);
	path = tpath(&t, "missing.json");
	assert_int_equal(github_pr_refs(&pr, path), CRS_ENOTFOUND);
	free(path);
	crs_error_clear();
	tmpdir_remove(&t);
}

static void set_env(const char *api_url, const char *event_name)
{
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_EVENT_NAME", event_name, 1);
	setenv("GITHUB_EVENT_PATH", FIXTURE, 1);
	setenv("GITHUB_REPOSITORY", "example-org/recparse", 1);
	setenv("GITHUB_SHA", MERGE_SHA, 1);
	setenv("GITHUB_REF", "refs/pull/42/merge", 1);
	setenv("GITHUB_TOKEN", TOKEN, 1);
	if (api_url)
		setenv("GITHUB_API_URL", api_url, 1);
	else
		unsetenv("GITHUB_API_URL");
	unsetenv("GITHUB_STEP_SUMMARY");
	unsetenv("GITHUB_OUTPUT");
}

static void test_env_load(void **state)
{
	struct github_env env;

	(void)state;
	set_env(NULL, "pull_request");
	assert_int_equal(github_env_load(&env), 0);
	assert_true(env.actions);
	assert_true(env.has_pr);
	assert_string_equal(env.pr.head_sha, HEAD_SHA);
	assert_string_equal(env.sha, MERGE_SHA);
	assert_string_equal(env.api_url, "https://api.github.com");
	assert_string_equal(env.token, TOKEN);
	github_env_release(&env);
	assert_null(env.token);

	set_env(NULL, "push");
	assert_int_equal(github_env_load(&env), 0);
	assert_false(env.has_pr);
	github_env_release(&env);
	{
		struct github_report_opts o = GITHUB_REPORT_OPTS_INIT;

		setenv("CRS_CI_GITHUB_UPLOAD_SARIF", "api", 1);
		setenv("CRS_CI_GITHUB_POST_SUGGESTIONS", "true", 1);
		github_report_opts_env(&o);
		assert_true(o.upload_sarif && o.post_suggestions);
		setenv("CRS_CI_GITHUB_UPLOAD_SARIF", "action", 1);
		unsetenv("CRS_CI_GITHUB_POST_SUGGESTIONS");
		github_report_opts_env(&o);
		assert_false(o.upload_sarif || o.post_suggestions);
		unsetenv("CRS_CI_GITHUB_UPLOAD_SARIF");
	}
	unsetenv("GITHUB_TOKEN");
	setenv("GITHUB_EVENT_PATH", "/nonexistent/event.json", 1);
	setenv("GITHUB_EVENT_NAME", "pull_request", 1);
	assert_int_equal(github_env_load(&env), CRS_ENOTFOUND);
	assert_false(env.has_pr);
	assert_null(env.token);
	github_env_release(&env);
	crs_error_clear();
}

/* --- REST against the fake ------------------------------------------------ */

static void load_env(struct github_env *env, const struct fake_github *f)
{
	char *url = xasprintf("http://127.0.0.1:%u", f->port);

	set_env(url, "pull_request");
	free(url);
	assert_int_equal(github_env_load(env), 0);
}

static const char *sarif_text =
	"{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
	"  \"version\": \"2.1.0\",\n  \"runs\": [{\"tool\": {\"driver\": "
	"{\"name\": \"crs-ci\", \"rules\": []}}, \"results\": []}]\n}\n";

static void decode_sarif(struct buf *out, const char *b64)
{
	size_t n = strlen(b64);
	unsigned char *gz = xmalloc(n);
	int gz_len = EVP_DecodeBlock(gz, (const unsigned char *)b64, (int)n);
	z_stream z;
	unsigned char chunk[4096];
	int zr;

	assert_true(gz_len > 18);
	while (n && b64[n - 1] == '=') {	/* DecodeBlock keeps pad */
		gz_len--;
		n--;
	}
	assert_int_equal(gz[0], 0x1f);	/* gzip, not zlib or raw */
	assert_int_equal(gz[1], 0x8b);
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)gz_len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		assert_true(zr == Z_OK || zr == Z_STREAM_END);
		buf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (zr != Z_STREAM_END);
	inflateEnd(&z);
	free(gz);
}

static void test_sarif_upload(void **state)
{
	struct fake_github *f = NULL;
	struct github_env env;
	struct tmpdir t;
	struct buf got = BUF_INIT;
	char *sarif, *id = NULL, *status = NULL;
	json_t *body;

	(void)state;
	tmpdir_make(&t);
	sarif = tpath(&t, "results.sarif");
	write_text(sarif, sarif_text);
	assert_int_equal(fake_github_start(&f, TOKEN), 0);
	f->pending_polls = 2;
	load_env(&env, f);
	assert_int_equal(github_sarif_upload(&id, &env, sarif, "/src/recparse",
					     5000), 0);
	assert_string_equal(id, FAKE_SARIF_ID);
	assert_int_equal(f->uploads, 1);
	assert_string_equal(f->upload_path,
			    "/repos/example-org/recparse/code-scanning/sarifs");
	assert_string_equal(f->last_auth, "Bearer " TOKEN);
	assert_string_equal(f->last_accept, "application/vnd.github+json");
	assert_string_equal(f->last_api_version, "2022-11-28");
	body = json_loads(f->upload_body, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(body);
	/* the scanned head at its PR ref, never the test merge commit */
	assert_string_equal(json_string_value(json_object_get(body,
		"commit_sha")), HEAD_SHA);
	assert_string_equal(json_string_value(json_object_get(body, "ref")),
			    "refs/pull/42/head");
	assert_string_equal(json_string_value(json_object_get(body,
		"tool_name")), "crs-ci");
	assert_string_equal(json_string_value(json_object_get(body,
		"checkout_uri")), "file:///src/recparse");
	assert_non_null(json_string_value(json_object_get(body,
		"started_at")));
	decode_sarif(&got, json_string_value(json_object_get(body, "sarif")));
	assert_int_equal(got.len, strlen(sarif_text));
	assert_memory_equal(got.ptr, sarif_text, got.len);
	json_decref(body);

	/* polling: two "pending", then "complete" */
	assert_int_equal(github_sarif_poll(&status, &env, id, 5, 10, 5000), 0);
	assert_string_equal(status, "complete");
	assert_int_equal(f->polls, 3);
	free(status);
	/* still pending after the last poll: a timeout, bounded */
	f->polls = 0;
	f->pending_polls = 100;
	assert_int_equal(github_sarif_poll(&status, &env, id, 3, 10, 5000),
			 CRS_ETIMEOUT);
	assert_int_equal(f->polls, 3);
	assert_string_equal(status, "pending");
	free(status);
	/* failed processing carries GitHub's errors */
	f->polls = 0;
	f->pending_polls = 0;
	f->fail_processing = 1;
	assert_int_equal(github_sarif_poll(&status, &env, id, 3, 10, 5000),
			 CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "expected artifact "
			       "location"));
	free(status);
	/* an id that would escape the path is refused before any request */
	f->polls = 0;
	assert_int_equal(github_sarif_poll(&status, &env, "../../x", 3, 10,
					   5000), CRS_EINPUT);
	assert_int_equal(f->polls, 0);

	/* a bad token: GitHub's message, and never the token itself */
	free(env.token);
	env.token = xstrdup("ghs_wrong");
	free(id);
	id = NULL;
	assert_int_equal(github_sarif_upload(&id, &env, sarif, NULL, 5000),
			 CRS_ERR);
	assert_null(id);
	assert_non_null(strstr(crs_error_last(), "HTTP 401: Bad "
			       "credentials"));
	assert_null(strstr(crs_error_last(), "ghs_"));
	crs_error_clear();

	buf_release(&got);
	github_env_release(&env);
	fake_github_stop(f);
	free(sarif);
	tmpdir_remove(&t);
}

static void test_hunks(void **state)
{
	struct diff_hunks h;
	struct buf d = BUF_INIT;

	(void)state;
	git_libgit2_init();	/* main() does this in the product */
	assert_int_equal(fs_read_file(&d, DIFF_FIXTURE, 1 << 20), 0);
	assert_int_equal(diff_hunks_parse(&h, d.ptr, d.len), 0);
	/* "+++ not a header" inside a hunk is content, not a new file;
	 * the hunks are head lines 10-18 and 43-49 */
	assert_true(diff_hunks_contain(&h, "src/parse.c", 10, 18));
	assert_true(diff_hunks_contain(&h, "src/parse.c", 43, 49));
	assert_false(diff_hunks_contain(&h, "src/parse.c", 9, 10));
	assert_false(diff_hunks_contain(&h, "src/parse.c", 49, 50));
	assert_true(diff_hunks_contain(&h, "src/parse.c", 13, 15));
	assert_true(diff_hunks_contain(&h, "src/parse.c", 44, 44));
	assert_false(diff_hunks_contain(&h, "src/parse.c", 18, 43));
	assert_false(diff_hunks_contain(&h, "src/parse.c", 30, 30));
	assert_false(diff_hunks_contain(&h, "old.c", 1, 1));
	assert_false(diff_hunks_contain(&h, "src/parse.c", 15, 13));
	diff_hunks_release(&h);
	assert_int_equal(diff_hunks_parse(&h, "--- a/x\n+++ b/x\n"
					  "@@ -1 +zz @@\n", 29), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "diff:3"));
	/* an empty diff (a pull request with no text changes) has none */
	assert_int_equal(diff_hunks_parse(&h, "", 0), 0);
	assert_false(diff_hunks_contain(&h, "x", 1, 1));
	diff_hunks_release(&h);
	crs_error_clear();
	buf_release(&d);
	git_libgit2_shutdown();
}

/* A validated patch becomes one suggestion per hunk, against the head. */
static void test_suggestions_from_patches(void **state)
{
	struct finding_set fs;
	struct finding_patch *p;
	struct patch_suggestions sg = { 0 };
	struct diff_hunks h;
	struct buf d = BUF_INIT;
	size_t skipped = 0;
	json_t *review;

	(void)state;
	git_libgit2_init();	/* main() does this in the product */
	finding_set_init(&fs);
	p = finding_set_add_patch(&fs);
	p->sha256 = xstrdup("ab12ab12ab12ab12ab12ab12ab12ab12"
			    "ab12ab12ab12ab12ab12ab12ab12ab12");
	p->crs = xstrdup("crs-patcher");
	p->validated = 1;
	p->diff = xstrdup(
		"diff --git a/src/parse.c b/src/parse.c\n"
		"--- a/src/parse.c\n"
		"+++ b/src/parse.c\n"
		"@@ -13,2 +13,2 @@ int parse_record(const char *buf, size_t len)\n"
		"-\tif (len > 4 && buf[0] == 'X')\n"
		"+\tif (len > 4 && len < 64 && buf[0] == 'X')\n"
		" \t\treturn parse_ext(buf, len);\n");
	p = finding_set_add_patch(&fs);		/* rejected: never suggested */
	p->sha256 = xstrdup("cd34");
	p->diff = xstrdup(fs.patches[0].diff);
	assert_int_equal(patch_suggestions_from_set(&sg, &fs), 0);
	assert_int_equal(sg.nr, 1);
	assert_string_equal(sg.v[0].path, "src/parse.c");
	assert_int_equal(sg.v[0].start_line, 13);
	assert_int_equal(sg.v[0].end_line, 14);
	assert_string_equal(sg.v[0].replacement,
			    "\tif (len > 4 && len < 64 && buf[0] == 'X')\n"
			    "\t\treturn parse_ext(buf, len);\n");
	/* lines 13-14 are inside the pull request's first hunk */
	assert_int_equal(fs_read_file(&d, DIFF_FIXTURE, 1 << 20), 0);
	assert_int_equal(diff_hunks_parse(&h, d.ptr, d.len), 0);
	{
		struct github_pr pr = { 0 };

		pr.number = 42;
		pr.head_sha = (char *)HEAD_SHA;
		review = github_review_json(&pr, sg.v, sg.nr, &h, &skipped);
	}
	assert_non_null(review);
	assert_int_equal(skipped, 0);
	assert_int_equal(json_array_size(json_object_get(review, "comments")),
			 1);
	json_decref(review);
	diff_hunks_release(&h);
	buf_release(&d);
	patch_suggestions_release(&sg);
	finding_set_release(&fs);
	git_libgit2_shutdown();
}

/* A finding beside lines the change removed: a LEFT comment on them. */
static void test_removal_review(void **state)
{
	static const char diff[] =
		"diff --git a/src/parse.c b/src/parse.c\n"
		"--- a/src/parse.c\n+++ b/src/parse.c\n"
		"@@ -22,6 +22,4 @@ static int parse_record(void)\n"
		" \tvlen = buf[p++];\n"
		" \tx = 1;\n"
		"-\tif (len - p < vlen)\n"
		"-\t\treturn RP_ERR_TRUNCATED;\n"
		" \trec->value = malloc(vlen + 1);\n"
		" \ty = 2;\n";
	struct fake_github *f = NULL;
	struct diff_changeset *cs = NULL;
	struct github_report_opts o = GITHUB_REPORT_OPTS_INIT;
	struct github_env env;
	struct finding_set fs;
	struct finding *x;
	struct tmpdir t;
	json_t *body, *c;	/* c borrowed */
	int first = 0, last = 0;
	char *mem = NULL;
	size_t len = 0;
	FILE *log;

	(void)state;
	assert_int_equal(diff_changeset_from_patch(&cs, diff, strlen(diff),
						   "diff"), 0);
	/* head line 24 follows the removal (base 24-25), 23 precedes it */
	assert_int_equal(removal_block(&cs->files[0], 24, &first, &last), 1);
	assert_int_equal(first, 24);
	assert_int_equal(last, 25);
	assert_int_equal(removal_block(&cs->files[0], 23, &first, &last), 1);
	assert_int_equal(first, 24);
	assert_int_equal(removal_block(&cs->files[0], 22, &first, &last), 0);
	summary_init(&fs);
	x = add(&fs, "0123456789abcdef", "new", "src/parse.c", 27);
	x->anchor = xcalloc(1, sizeof(*x->anchor));
	x->anchor->how = xstrdup(ANCHOR_CRASH_FUNCTION);
	x->anchor->file = xstrdup("src/parse.c");
	x->anchor->line = 24;
	x->anchor->frame = 0;
	/* a pre-existing finding fails no policy: no comment */
	x = add(&fs, "fedcba9876543210", "pre-existing", "src/parse.c", 27);
	x->anchor = xcalloc(1, sizeof(*x->anchor));
	x->anchor->how = xstrdup(ANCHOR_CRASH_FUNCTION);
	x->anchor->file = xstrdup("src/parse.c");
	x->anchor->line = 24;
	assert_int_equal(fake_github_start(&f, TOKEN), 0);
	load_env(&env, f);
	/* the report step with post-suggestions: no patch, so the one
	 * review is the removal's */
	tmpdir_make(&t);
	o.post_suggestions = 1;
	o.pr_diff = diff;
	log = open_memstream(&mem, &len);
	unsetenv("GITHUB_STEP_SUMMARY");
	unsetenv("GITHUB_OUTPUT");
	assert_int_equal(github_report(&fs, t.path, &env, log, &o), 0);
	assert_int_equal(fclose(log), 0);
	assert_int_equal(f->reviews, 1);
	assert_string_equal(f->review_path,
			    "/repos/example-org/recparse/pulls/42/reviews");
	body = json_loads(f->review_body, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(body);
	assert_string_equal(json_string_value(json_object_get(body,
		"commit_id")), HEAD_SHA);
	c = json_array_get(json_object_get(body, "comments"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "path")),
			    "src/parse.c");
	assert_string_equal(json_string_value(json_object_get(c, "side")),
			    "LEFT");
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 25);
	assert_int_equal(json_integer_value(json_object_get(c, "start_line")),
			 24);
	assert_string_equal(json_string_value(json_object_get(c,
		"start_side")), "LEFT");
	assert_non_null(strstr(json_string_value(json_object_get(c, "body")),
			       "Heap\\-buffer\\-overflow WRITE 4 in parse\\_ext"));
	assert_int_equal(json_array_size(json_object_get(body, "comments")),
			 1);
	json_decref(body);
	free(mem);
	github_report_opts_release(&o);
	tmpdir_remove(&t);
	finding_set_release(&fs);
	github_env_release(&env);
	fake_github_stop(f);
	diff_changeset_free(cs);
}

static void test_review(void **state)
{
	struct fake_github *f = NULL;
	struct github_env env;
	struct diff_hunks h;
	struct buf d = BUF_INIT;
	size_t posted = 9;
	json_t *body, *c;	/* c borrowed */
	const char *b;
	const struct patch_suggestion s[] = {
		{ "src/parse.c", 13, 14, "\tif (len > 4 && buf[0] == 'X' "
		  "&& len < 64)\n\t\treturn parse_ext(buf, len);\n",
		  "bound the extended record <len>", NULL, NULL },
		{ "src/parse.c", 44, 44, "\tchar tmp[64]; /* ``` */",
		  "grow the buffer", NULL, NULL },
		{ "src/parse.c", 30, 30, "x", "outside the diff", NULL, NULL },
		{ "src/parse.c", 17, 44, "x", "spans two hunks", NULL, NULL },
		{ "old.c", 1, 1, "x", "deleted file", NULL, NULL },
	};

	(void)state;
	git_libgit2_init();	/* main() does this in the product */
	assert_int_equal(fs_read_file(&d, DIFF_FIXTURE, 1 << 20), 0);
	assert_int_equal(diff_hunks_parse(&h, d.ptr, d.len), 0);
	assert_int_equal(fake_github_start(&f, TOKEN), 0);
	load_env(&env, f);
	assert_int_equal(github_review_post(&posted, &env, s, 5, &h, 5000),
			 0);
	assert_int_equal(posted, 2);
	assert_int_equal(f->reviews, 1);
	assert_string_equal(f->review_path,
			    "/repos/example-org/recparse/pulls/42/reviews");
	body = json_loads(f->review_body, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(body);
	assert_string_equal(json_string_value(json_object_get(body,
		"commit_id")), HEAD_SHA);
	assert_string_equal(json_string_value(json_object_get(body, "event")),
			    "COMMENT");
	assert_int_equal(json_array_size(json_object_get(body, "comments")),
			 2);
	c = json_array_get(json_object_get(body, "comments"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "path")),
			    "src/parse.c");
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 14);
	assert_int_equal(json_integer_value(json_object_get(c,
		"start_line")), 13);
	assert_string_equal(json_string_value(json_object_get(c, "side")),
			    "RIGHT");
	assert_string_equal(json_string_value(json_object_get(c,
		"start_side")), "RIGHT");
	b = json_string_value(json_object_get(c, "body"));
	assert_non_null(strstr(b, "&lt;len&gt;"));
	assert_non_null(strstr(b, "\n```suggestion\n\tif (len > 4 && buf[0] "
			       "== 'X' && len < 64)\n\t\treturn parse_ext("
			       "buf, len);\n```\n"));
	c = json_array_get(json_object_get(body, "comments"), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 44);
	assert_null(json_object_get(c, "start_line"));	/* single line */
	b = json_string_value(json_object_get(c, "body"));
	/* fence longer than the ``` inside the replacement */
	assert_non_null(strstr(b, "\n````suggestion\n\tchar tmp[64]; /* ``` "
			       "*/\n````\n"));
	json_decref(body);

	/* nothing inside the diff: no request at all */
	assert_int_equal(github_review_post(&posted, &env, s + 2, 3, &h,
					    5000), 0);
	assert_int_equal(posted, 0);
	assert_int_equal(f->reviews, 1);

	github_env_release(&env);
	fake_github_stop(f);
	diff_hunks_release(&h);
	buf_release(&d);
	git_libgit2_shutdown();
}

/* --- the whole step ------------------------------------------------------- */

static void run_report(struct fake_github *f, const char *event,
		       const struct tmpdir *t, struct github_report_opts *o,
		       char **log_out, int drop_token)
{
	struct github_env env;
	struct finding_set fs;
	struct finding *x;
	char *mem = NULL, *p;
	size_t len = 0;
	FILE *log = open_memstream(&mem, &len);
	char *url = xasprintf("http://127.0.0.1:%u", f->port);

	set_env(url, "pull_request");
	free(url);
	setenv("GITHUB_EVENT_PATH", event, 1);
	if (drop_token)
		unsetenv("GITHUB_TOKEN");
	p = tpath(t, "summary.md");
	setenv("GITHUB_STEP_SUMMARY", p, 1);
	free(p);
	p = tpath(t, "output");
	setenv("GITHUB_OUTPUT", p, 1);
	free(p);
	assert_int_equal(github_env_load(&env), 0);
	summary_init(&fs);
	fs.summary.source_root = xstrdup("/src/recparse");
	x = add(&fs, "0123456789abcdef", "new", "src/parse.c", 44);
	x->description = xstrdup("::error::from the sanitizer");
	p = tpath(t, "results.sarif");
	write_text(p, sarif_text);
	free(p);
	assert_int_equal(github_report(&fs, t->path, &env, log, o), 0);
	assert_int_equal(fclose(log), 0);
	*log_out = mem;
	finding_set_release(&fs);
	github_env_release(&env);
}

static void test_report_step(void **state)
{
	struct fake_github *f = NULL;
	struct github_report_opts o = GITHUB_REPORT_OPTS_INIT;
	struct tmpdir t;
	char *log = NULL, *summary, *out, *p, *v;

	(void)state;
	tmpdir_make(&t);
	assert_int_equal(fake_github_start(&f, TOKEN), 0);
	f->pending_polls = 1;
	o.upload_sarif = 1;
	o.post_suggestions = 1;
	o.poll_interval_ms = 10;
	run_report(f, FIXTURE, &t, &o, &log, 0);
	assert_int_equal(f->uploads, 1);
	assert_int_equal(f->polls, 2);
	assert_int_equal(f->reviews, 0);	/* no patches yet */
	assert_string_equal(o.sarif_id, FAKE_SARIF_ID);
	assert_string_equal(o.processing_status, "complete");
	assert_int_equal(count_lines_prefix(log, "::error "), 1);
	assert_non_null(strstr(log, "::notice title=crs-ci::SARIF uploaded"));
	assert_null(strstr(log, TOKEN));
	p = tpath(&t, "summary.md");
	summary = read_text(p);
	free(p);
	assert_non_null(strstr(summary, "## crs-ci: FAIL (recparse)"));
	assert_non_null(strstr(summary, "SARIF uploaded to code scanning"));
	assert_null(strstr(summary, TOKEN));
	p = tpath(&t, "output");
	out = read_text(p);
	free(p);
	v = output_value(out, "verdict");
	assert_string_equal(v, "fail");
	free(v);
	v = output_value(out, "sarif");
	p = tpath(&t, "results.sarif");
	assert_string_equal(v, p);
	free(p);
	free(v);
	free(out);
	free(summary);
	free(log);
	github_report_opts_release(&o);
	fake_github_stop(f);
	tmpdir_remove(&t);
}

static void test_fork(void **state)
{
	struct fake_github *f = NULL;
	struct github_report_opts o = GITHUB_REPORT_OPTS_INIT;
	struct tmpdir t;
	char *log = NULL, *summary, *p, *event;

	(void)state;
	tmpdir_make(&t);
	event = fork_fixture(&t, "mallory/recparse");
	assert_int_equal(fake_github_start(&f, TOKEN), 0);
	o.upload_sarif = 1;
	o.post_suggestions = 1;
	/* a fork PR's read-only token: no upload, no review, no failure */
	run_report(f, event, &t, &o, &log, 0);
	assert_int_equal(f->requests, 0);
	assert_null(o.sarif_id);
	assert_non_null(strstr(log, "::notice title=crs-ci::SARIF upload "
			       "skipped: this pull request comes from a "
			       "fork"));
	assert_non_null(strstr(log, "review suggestions skipped"));
	p = tpath(&t, "summary.md");
	summary = read_text(p);
	assert_non_null(strstr(summary, "comes from a fork"));
	free(summary);
	free(log);
	/* no token at all (secrets withheld): the same, said so */
	unlink(p);
	free(p);
	run_report(f, FIXTURE, &t, &o, &log, 1);
	assert_int_equal(f->requests, 0);
	assert_non_null(strstr(log, "SARIF upload skipped: no GITHUB_TOKEN"));
	free(log);
	/* an upload refused by GitHub is a warning, not a failed step */
	f->upload_status = 403;
	run_report(f, FIXTURE, &t, &o, &log, 0);
	assert_int_equal(f->uploads, 1);
	assert_non_null(strstr(log, "::warning title=crs-ci::SARIF upload "
			       "did not complete: github: SARIF upload: "
			       "HTTP 403: Resource not accessible by "
			       "integration"));
	free(log);
	github_report_opts_release(&o);
	fake_github_stop(f);
	free(event);
	tmpdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_annotation_hostile),
		cmocka_unit_test(test_annotation_commands),
		cmocka_unit_test(test_annotation_caps),
		cmocka_unit_test(test_annotation_suppressed),
		cmocka_unit_test(test_echo_reports),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_anchor),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_env_load),
		cmocka_unit_test(test_sarif_upload),
		cmocka_unit_test(test_hunks),
		cmocka_unit_test(test_review),
		cmocka_unit_test(test_removal_review),
		cmocka_unit_test(test_suggestions_from_patches),
		cmocka_unit_test(test_report_step),
		cmocka_unit_test(test_fork),
	};
	int r;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return r;
}
