/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_html.c - report.html (runner/report/html.c)
 *
 * Writes the page for a finding set full of hostile strings (markup,
 * quotes, ampersands, control bytes, invalid UTF-8) with a sanitizer
 * report and an LLM spend file beside it, parses it back with libxml2's
 * HTML parser and checks: no <script> element, the hostile text present
 * as text, in-change frames and diff lines carrying their classes, the
 * verdict, the spend, and that a symlinked report is not followed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/report/html.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTILE "<script>alert(\"x\")</script> & 'q' \x1b[31m \xff\xfe end"

struct ctx {
	char dir[64];
	struct finding_set fs;
	struct buf raw;
	htmlDocPtr doc;
};

static void frame(struct finding_frame *fr, const char *func,
		  const char *file, int line, int proj, int chg)
{
	fr->func = xstrdup(func);
	fr->file = file ? xstrdup(file) : NULL;
	fr->line = line;
	fr->in_project = proj;
	fr->in_change = chg;
}

static void build_set(struct finding_set *s)
{
	struct finding *f;
	struct finding_patch *p;

	finding_set_init(s);
	s->summary.project = xstrdup("tiny" HOSTILE);
	s->summary.fail_on = xstrdup("new");
	s->summary.base = xstrdup("4b825dc6");
	s->summary.head = xstrdup("9fceb02d");
	s->summary.mode = xstrdup("delta");
	s->summary.duration_s = 61;
	s->summary.harnesses = xcalloc(1, sizeof(char *));
	s->summary.harnesses[0] = xstrdup("fuzz_parse");
	s->summary.harnesses_nr = 1;
	s->summary.crs = xcalloc(1, sizeof(char *));
	s->summary.crs[0] = xstrdup("crsA");
	s->summary.crs_nr = 1;
	s->summary.crs_povs = xcalloc(1, sizeof(size_t));
	s->summary.crs_povs[0] = 3;
	s->summary.crs_first_pov_s = xcalloc(1, sizeof(double));
	s->summary.crs_first_pov_s[0] = 12.5;

	f = finding_set_add(s);
	f->id = xstrdup("07b256e0bc4a2f9f");
	f->crash_type = xstrdup("Heap-buffer-overflow WRITE 4");
	f->signature = xstrdup("Heap-buffer-overflow WRITE 4\nparse");
	f->description = xstrdup("ERROR: " HOSTILE);
	f->function = xstrdup("parse" HOSTILE);
	f->file = xstrdup("parse.c");
	f->line = 20;
	f->in_change = 1;
	f->harness = xstrdup("fuzz_parse");
	f->reproduced = f->attempts = 5;
	f->novelty = xstrdup("new");
	f->found_by = xstrdup("crsA");
	f->found_after_s = 12.5;
	f->pov_path = xstrdup("povs/abc");
	f->report_path = xstrdup("reports/07b256e0bc4a2f9f.txt");
	f->stack = xcalloc(3, sizeof(*f->stack));
	frame(&f->stack[0], "__asan_memcpy", NULL, 0, 0, 0);
	frame(&f->stack[1], "changed_fn", "parse.c", 20, 1, 1);
	frame(&f->stack[2], "LLVMFuzzerTestOneInput", "fuzz.c", 9, 1, 0);
	f->stack_nr = 3;

	f = finding_set_add(s);
	f->id = xstrdup("1111111111111111");
	f->crash_type = xstrdup("Null-dereference READ");
	f->signature = xstrdup("Null-dereference READ\nx");
	f->harness = xstrdup("fuzz_parse");
	f->reproduced = 2;
	f->attempts = 5;
	f->novelty = xstrdup("pre-existing");
	f->report_path = xstrdup("../../etc/passwd");

	p = finding_set_add_patch(s);
	p->sha256 = xstrdup("aaaaaaaaaaaaaaaaaaaa");
	p->path = xstrdup("patches/aaaaaaaaaaaa.patch");
	p->crs = xstrdup("crsA");
	p->validated = 1;
	p->diff = xstrdup("--- a/parse.c\n+++ b/parse.c\n@@ -1,2 +1,2 @@\n"
			  " keep\n-old line\n+fixed line " HOSTILE "\n");
	finding_patch_add_step(p, "build", "passed", NULL, NULL);
	p = finding_set_add_patch(s);
	p->sha256 = xstrdup("bbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	p->crs = xstrdup("crsB" HOSTILE);
	p->failed_step = xstrdup("build");
	p->failure = xstrdup("cc: error " HOSTILE);
	finding_patch_add_step(p, "policy", "passed", NULL, NULL);
	finding_patch_add_step(p, "build", "failed", "does not compile", NULL);
	scan_summary_add_incomplete(&s->summary, "fuzz_b", "the run ended "
				    "12s after finding 0123456789abcdef was "
				    "proved (--after-finding default)", 3, 60);
	scan_summary_add_incomplete(&s->summary, "fuzz_c", "no time left "
				    "before the deadline", 0, 60);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);

	assert_int_equal(fs_write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static int setup(void **state)
{
	struct ctx *c = xcalloc(1, sizeof(*c));
	char *sub;

	strcpy(c->dir, "/tmp/crs-ci-test-html.XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	sub = xasprintf("%s/reports", c->dir);
	assert_int_equal(fs_mkdir_p(sub), 0);
	free(sub);
	write_file(c->dir, "reports/07b256e0bc4a2f9f.txt",
		   "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n"
		   "READ of " HOSTILE "\n");
	sub = xasprintf("%s/povs", c->dir);
	assert_int_equal(fs_mkdir_p(sub), 0);
	free(sub);
	/* the PoV: printable bytes, a control byte and markup */
	write_file(c->dir, "povs/abc", "RP\001<script>");
	write_file(c->dir, "llm-spend.json",
		   "{\"totals\":{\"dollars\":0.00214,\"requests\":2},"
		   "\"crs\":{\"crsA\":{\"dollars\":0.00214,"
		   "\"budget_dollars\":1.5}}}");
	build_set(&c->fs);
	buf_init(&c->raw);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	xmlFreeDoc(c->doc);
	buf_release(&c->raw);
	finding_set_release(&c->fs);
	fs_remove_tree(c->dir);
	free(c);
	return 0;
}

static void render(struct ctx *c)
{
	char *path = xasprintf("%s/%s", c->dir, HTML_REPORT_NAME);

	assert_int_equal(html_report_write(&c->fs, c->dir), 0);
	assert_int_equal(fs_read_file(&c->raw, path, 1u << 24), 0);
	free(path);
	c->doc = htmlReadMemory(c->raw.ptr, (int)c->raw.len, NULL, "UTF-8",
				HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
				HTML_PARSE_NONET);
	assert_non_null(c->doc);
}

/* Elements named `tag` anywhere under n. */
static size_t count_tag(xmlNodePtr n, const char *tag)
{
	size_t k = 0;

	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE &&
		    !xmlStrcasecmp(n->name, BAD_CAST tag))
			k++;
		k += count_tag(n->children, tag);
	}
	return k;
}

/* First element with a class word `cls` whose text contains `text`. */
static int has_class_text(xmlNodePtr n, const char *cls, const char *text)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			xmlChar *c = xmlGetProp(n, BAD_CAST "class");
			int hit = 0;

			if (c) {
				char *dup = xstrdup((const char *)c);
				char *save = NULL;

				for (char *w = strtok_r(dup, " ", &save); w;
				     w = strtok_r(NULL, " ", &save))
					hit |= !strcmp(w, cls);
				free(dup);
				xmlFree(c);
			}
			if (hit) {
				xmlChar *t = xmlNodeGetContent(n);

				hit = t && strstr((const char *)t, text);
				xmlFree(t);
				if (hit)
					return 1;
			}
		}
		if (has_class_text(n->children, cls, text))
			return 1;
	}
	return 0;
}

static int text_has(struct ctx *c, const char *s)
{
	xmlChar *t = xmlNodeGetContent(xmlDocGetRootElement(c->doc));
	int yes = t && strstr((const char *)t, s);

	xmlFree(t);
	return yes;
}

static void test_hostile_strings_stay_text(void **state)
{
	struct ctx *c = *state;
	xmlNodePtr root;

	render(c);
	root = xmlDocGetRootElement(c->doc);
	assert_int_equal(count_tag(root, "script"), 0);
	assert_null(strstr(c->raw.ptr, "<script"));
	assert_non_null(strstr(c->raw.ptr, "&lt;script&gt;"));
	assert_null(memchr(c->raw.ptr, 0x1b, c->raw.len));
	assert_null(memchr(c->raw.ptr, 0xff, c->raw.len));
	/* the text survives as text, quotes and & included */
	assert_true(text_has(c, "parse<script>alert(\"x\")</script> & 'q'"));
	assert_true(text_has(c, "ERROR: <script>"));
	/* from the sanitizer report, inside a <pre> */
	assert_true(has_class_text(root, "report", "READ of <script>"));
	/* no external resource, no event handler */
	assert_int_equal(count_tag(root, "link"), 0);
	assert_int_equal(count_tag(root, "img"), 0);
	assert_int_equal(count_tag(root, "iframe"), 0);
	assert_null(strstr(c->raw.ptr, "onerror"));
}

static void test_classes_and_content(void **state)
{
	struct ctx *c = *state;
	xmlNodePtr root;

	render(c);
	root = xmlDocGetRootElement(c->doc);
	/* the banner names the failing finding's crash */
	assert_true(has_class_text(root, "verdict", "FAIL: Heap-buffer-"
				   "overflow WRITE 4 in parse<script>"));
	assert_true(has_class_text(root, "verdict", "1 finding(s) fail "
				   "--fail-on new"));
	/* its proof leads: the PoV's bytes as a hex dump, as text */
	assert_true(has_class_text(root, "proof", "[new] Heap-buffer-"
				   "overflow WRITE 4"));
	assert_true(has_class_text(root, "hex", "00000000  52 50 01 3c 73 "
				   "63 72 69  70 74 3e"));
	assert_true(has_class_text(root, "hex", "|RP.<script>|"));
	assert_true(text_has(c, "The PoV: 11 byte(s) (povs/abc)"));
	/* a harness cut after the proof is one quiet line; others stay
	 * banners */
	assert_true(has_class_text(root, "quiet", "as --after-finding "
				   "default intends: fuzz_b (3s of 60s)"));
	assert_false(has_class_text(root, "verdict", "fuzz_b"));
	assert_true(has_class_text(root, "verdict", "incomplete: harness "
				   "fuzz_c fuzzed 0s of 60s: no time left"));
	assert_true(has_class_text(root, "fail", "FAIL"));
	assert_true(has_class_text(root, "in-change", "changed_fn"));
	assert_false(has_class_text(root, "in-change", "LLVMFuzzerTest"));
	assert_true(has_class_text(root, "in-project", "LLVMFuzzerTest"));
	assert_false(has_class_text(root, "in-project", "__asan_memcpy"));
	assert_true(has_class_text(root, "frame", "__asan_memcpy"));
	assert_true(has_class_text(root, "add", "+fixed line <script>"));
	assert_true(has_class_text(root, "del", "-old line"));
	assert_false(has_class_text(root, "add", "+++ b/parse.c"));
	assert_true(has_class_text(root, "rejected", "build failed"));
	assert_true(has_class_text(root, "rejected", "cc: error <script>"));
	assert_true(text_has(c, "$0.0021 of $1.50"));
	assert_true(text_has(c, "12.5s"));
	assert_true(text_has(c, "4b825dc6..9fceb02d"));
	assert_true(text_has(c, "2/5 (flaky)"));
	/* a report path leaving the output folder is not read */
	assert_true(text_has(c, "(not readable)"));
}

static void test_symlink_and_bad_spend(void **state)
{
	struct ctx *c = *state;
	char *link = xasprintf("%s/reports/07b256e0bc4a2f9f.txt", c->dir);
	char *secret = xasprintf("%s/secret", c->dir);
	char *pov = xasprintf("%s/povs/abc", c->dir);

	write_file(c->dir, "secret", "TOP-SECRET");
	unlink(link);
	assert_int_equal(symlink(secret, link), 0);
	/* a PoV that is a link: no bytes shown, none of the target's */
	unlink(pov);
	assert_int_equal(symlink(secret, pov), 0);
	write_file(c->dir, "llm-spend.json", "{\"totals\": [1, 2");
	render(c);
	assert_false(text_has(c, "TOP-SECRET"));
	assert_false(text_has(c, "54 4f 50"));
	assert_false(text_has(c, "The PoV:"));
	assert_false(text_has(c, "LLM spend"));
	assert_true(text_has(c, "changed_fn"));
	free(link);
	free(secret);
	free(pov);
}

/* Valid UTF-8 (jansson's rule) but markup, quotes and an escape. */
#define HOSTILE_J "<script>alert('x')</script> & \"q\" \x1b[31m end"

static void write_json(const char *dir, const char *rel, json_t *j)
{
	char *text = json_dumps(j, 0);

	assert_non_null(text);
	write_file(dir, rel, text);
	free(text);
	json_decref(j);
}

/* How many <rect>s sit at y="<y>" (the row of a lane). */
static size_t rects_at(xmlNodePtr n, const char *y)
{
	size_t k = 0;

	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE &&
		    !xmlStrcasecmp(n->name, BAD_CAST "rect")) {
			xmlChar *v = xmlGetProp(n, BAD_CAST "y");

			k += v && !strcmp((const char *)v, y);
			xmlFree(v);
		}
		k += rects_at(n->children, y);
	}
	return k;
}

/*
 * results.json's "timings" as an SVG: phases on top, spans in their
 * lanes, hostile names as text only, bogus spans dropped.
 */
static void test_timeline(void **state)
{
	struct ctx *c = *state;
	xmlNodePtr root;

	write_json(c->dir, "results.json", json_pack(
		"{s:{s:f,s:i,s:f,s:f,s:[{s:s,s:s,s:f,s:f,s:i},"
		"{s:s,s:s,s:f,s:f,s:i},{s:s,s:s,s:f,s:f,s:i},"
		"{s:s,s:s,s:f,s:f,s:i},{s:s,s:s,s:f,s:f,s:i},"
		"{s:s,s:s,s:f,s:f,s:i},{s:s,s:s,s:f,s:f,s:i}]}}",
		"timings", "total_s", 93.2, "cores", 2, "fuzz_s", 61.0,
		"first_pov_s", 4.1, "spans",
		"kind", "phase", "name", "build-target", "start_s", 1.2,
		"end_s", 60.3, "lane", 0,
		"kind", "compile", "name", "head address", "start_s", 2.0,
		"end_s", 30.1, "lane", 0,
		"kind", "compile", "name", "base address", "start_s", 2.5,
		"end_s", 33.0, "lane", 1,
		"kind", "fuzz", "name", "fuzz_" HOSTILE_J, "start_s", 61.0,
		"end_s", 90.0, "lane", 2,
		/* reversed, out-of-range lane, negative: not drawn */
		"kind", "fuzz", "name", "backwards", "start_s", 50.0,
		"end_s", 40.0, "lane", 0,
		"kind", "fuzz", "name", "far", "start_s", 1.0,
		"end_s", 2.0, "lane", 99,
		"kind", "replay", "name", "neg", "start_s", -3.0,
		"end_s", 2.0, "lane", 0));
	render(c);
	root = xmlDocGetRootElement(c->doc);
	assert_int_equal(count_tag(root, "svg"), 1);
	assert_int_equal(count_tag(root, "script"), 0);
	assert_null(strstr(c->raw.ptr, "<script"));
	assert_null(memchr(c->raw.ptr, 0x1b, c->raw.len));
	assert_int_equal(count_tag(root, "rect"), 4);
	/* the phase band, then one row per lane */
	assert_int_equal(rects_at(root, "8.0"), 1);
	assert_int_equal(rects_at(root, "36.0"), 1);
	assert_int_equal(rects_at(root, "64.0"), 1);
	assert_int_equal(rects_at(root, "92.0"), 1);
	assert_true(text_has(c, "slot 3"));
	assert_false(text_has(c, "slot 4"));
	assert_true(text_has(c, "fuzz fuzz_<script>alert('x')</script> & "
			     "\"q\""));
	assert_true(has_class_text(root, "timeline-totals", "93.2 s in all "
				   "on 2 core(s); 61.0 s of fuzzing; first PoV "
				   "4.1 s after fuzzing began; 3 span(s) not "
				   "drawn"));
	assert_false(text_has(c, "backwards"));
	assert_true(text_has(c, "90s"));	/* an axis tick */
}

/* No "timings" (or no results.json): no timeline. */
static void test_no_timeline(void **state)
{
	struct ctx *c = *state;

	render(c);
	assert_int_equal(count_tag(xmlDocGetRootElement(c->doc), "svg"), 0);
	xmlFreeDoc(c->doc);
	buf_reset(&c->raw);
	write_json(c->dir, "results.json", json_pack("{s:{s:[]}}", "timings",
						     "spans"));
	render(c);
	assert_int_equal(count_tag(xmlDocGetRootElement(c->doc), "svg"), 0);
	assert_false(text_has(c, "Timeline"));
}

/* change_coverage: the line, every range not reached, hostile paths. */
static void test_change_coverage(void **state)
{
	struct ctx *c = *state;
	xmlNodePtr root;

	c->fs.change_coverage = change_cov_new();
	change_cov_add(c->fs.change_coverage, "parse.c", 20, CHANGE_COV_HIT);
	change_cov_add(c->fs.change_coverage, "parse.c", 21,
		       CHANGE_COV_MISSED);
	change_cov_add(c->fs.change_coverage, "parse.c", 22,
		       CHANGE_COV_MISSED);
	change_cov_add(c->fs.change_coverage, "x" HOSTILE_J ".c", 3,
		       CHANGE_COV_MISSED);
	change_cov_finish(c->fs.change_coverage);
	render(c);
	root = xmlDocGetRootElement(c->doc);
	assert_int_equal(count_tag(root, "script"), 0);
	assert_true(has_class_text(root, "change-coverage", "fuzzing executed "
				   "1 of 4 changed lines; not reached: "
				   "parse.c:21-22, x<script>"));
	assert_true(has_class_text(root, "not-reached", "parse.c:21-22"));
	assert_true(has_class_text(root, "not-reached", "</script> & "));
}

/*
 * change-lines.json: numbered lines, the crash line and the changed
 * ones marked, hostile source text as text; a malformed excerpt and
 * another finding's id are not shown.
 */
static void test_change_lines(void **state)
{
	struct ctx *c = *state;
	xmlNodePtr root;

	write_json(c->dir, HTML_CHANGE_LINES_NAME, json_pack(
		"{s:i,s:{s:[{s:s,s:i,s:i,s:[s,s,s],s:[i,i]},"
		"{s:s,s:i,s:i,s:[s],s:[]}],s:[{s:s,s:i,s:i,s:[s],s:[]}]}}",
		"version", 1, "findings", "07b256e0bc4a2f9f",
		"file", "parse.c", "line", 20, "first", 19, "lines",
		"int n = 0;", "memcpy(dst, src, n); /* " HOSTILE_J " */",
		"return n;", "changed", 19, 20,
		"file", "parse.c", "line", 5, "first", -4, "lines", "bogus",
		"changed",
		"ffffffffffffffff", "file", "other.c", "line", 1, "first", 1,
		"lines", "NOT-THIS-ONE", "changed"));
	render(c);
	root = xmlDocGetRootElement(c->doc);
	assert_int_equal(count_tag(root, "script"), 0);
	assert_true(text_has(c, "Changed lines around the crash"));
	assert_true(has_class_text(root, "crash", ">   20  memcpy(dst, src, "
				   "n); /* <script>alert('x')</script>"));
	assert_true(has_class_text(root, "changed", "+   19  int n = 0;"));
	assert_true(has_class_text(root, "snippet", "    21  return n;"));
	assert_false(has_class_text(root, "changed", "return n;"));
	assert_false(text_has(c, "bogus"));
	assert_false(text_has(c, "NOT-THIS-ONE"));
}

static void test_empty_set_passes(void **state)
{
	struct ctx *c = *state;

	finding_set_release(&c->fs);
	finding_set_init(&c->fs);
	render(c);
	assert_true(has_class_text(xmlDocGetRootElement(c->doc), "pass",
				   "PASS: 0 finding(s)"));
	assert_true(text_has(c, "No crash reproduced."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hostile_strings_stay_text,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_classes_and_content,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_and_bad_spend,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_set_passes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_timeline, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_change_coverage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_change_lines, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
