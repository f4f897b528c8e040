/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_junit.c - the JUnit XML report (runner/report/junit.c)
 *
 * Builds a finding set with a new, a pre-existing, a flaky, a
 * fixed-by-change and a location-less finding plus a harness without
 * findings, writes junit.xml, parses it back with libxml2 and checks
 * each testcase; then feeds hostile strings (markup, quotes, control
 * characters, invalid UTF-8) and checks the file still parses and keeps
 * the text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/report/junit.h"
#include "sarif/finding.h"
#include "tests/unit/finding_builder.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void build_set(struct finding_set *s)
{
	struct finding *f;
	const char *h[] = { "fuzz_parse", "fuzz_list", "fuzz_idle" };

	finding_set_init(s);
	s->summary.project = xstrdup("tiny");
	s->summary.fail_on = xstrdup("new");
	s->summary.started_at = xstrdup("2024-05-01T10:00:00Z");
	s->summary.duration_s = 1200.5;
	s->summary.harnesses = xcalloc(3, sizeof(char *));
	for (size_t i = 0; i < 3; i++)
		s->summary.harnesses[i] = xstrdup(h[i]);
	s->summary.harnesses_nr = 3;
	f = finding_add(s, "07b256e0bc4a2f9f", "Heap-buffer-overflow WRITE 4",
			1, "parse.c", 20, "parse_record", "fuzz_parse", 5, 5,
			"new");
	f->in_change = 1;
	f->stack = xcalloc(2, sizeof(*f->stack));
	f->stack[0].func = xstrdup("parse_record");
	f->stack[0].file = xstrdup("parse.c");
	f->stack[0].line = 20;
	f->stack[0].in_project = 1;
	f->stack[1].func = xstrdup("LLVMFuzzerTestOneInput");
	f->stack[1].file = xstrdup("fuzz_parse.c");
	f->stack[1].line = 12;
	f->stack[1].in_project = 1;
	f->stack_nr = 2;
	finding_add(s, "1111aaaa2222bbbb", "Null-dereference READ", 0,
		    "util.c", 7, "get", "fuzz_parse", 5, 5, "pre-existing");
	finding_add(s, "3333cccc4444dddd", "Heap-use-after-free READ 8", 1,
		    "list.c", 33, "list_pop", "fuzz_list", 2, 5, "new");
	finding_add(s, "5555eeee6666ffff", "Stack-buffer-overflow READ 1", 1,
	    "old.c", 3, "old_fn", "fuzz_list", 5, 5, "fixed-by-change");
	finding_add(s, "7777000088889999", "Timeout", 0, NULL, 0, NULL,
		    "fuzz_list", 5, 5, "new");
}

/* The testcase whose name contains `needle`; borrowed or NULL. */
static xmlNodePtr find_case(xmlDocPtr doc, const char *needle)
{
	xmlNodePtr suite = xmlDocGetRootElement(doc)->children;

	for (; suite && suite->type != XML_ELEMENT_NODE; suite = suite->next)
		;
	for (xmlNodePtr n = suite ? suite->children : NULL; n; n = n->next) {
		xmlChar *name;
		int hit;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		name = xmlGetProp(n, BAD_CAST "name");
		hit = name && strstr((char *)name, needle);
		xmlFree(name);
		if (hit)
			return n;
	}
	return NULL;
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    !strcmp((const char *)c->name, name))
			return c;
	return NULL;
}

static void assert_prop(xmlNodePtr n, const char *name, const char *want)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);

	assert_non_null(v);
	assert_string_equal((char *)v, want);
	xmlFree(v);
}

static xmlDocPtr write_and_parse(const struct finding_set *s, char *dir)
{
	char *path = xasprintf("%s/junit.xml", dir);
	xmlDocPtr doc;
	struct buf b = BUF_INIT;

	assert_int_equal(junit_write(s, path), 0);
	assert_int_equal(fs_read_file(&b, path, 1 << 20), 0);
	assert_true(!strncmp(b.ptr, "<?xml version=\"1.0\" "
			     "encoding=\"UTF-8\"?>", 38));
	/* strict parse: any malformed byte is an error, not a recovery */
	doc = xmlReadMemory(b.ptr, (int)b.len, "junit.xml", NULL,
			    XML_PARSE_NONET);
	assert_non_null(doc);
	buf_release(&b);
	unlink(path);
	free(path);
	return doc;
}

static void test_cases(void **state)
{
	struct finding_set s;
	char dir[] = "/tmp/crs-junit-XXXXXX";
	xmlDocPtr doc;
	xmlNodePtr suite, tc, el;
	xmlChar *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	build_set(&s);
	doc = write_and_parse(&s, dir);
	assert_string_equal((char *)xmlDocGetRootElement(doc)->name,
			    "testsuites");
	suite = child(xmlDocGetRootElement(doc), "testsuite");
	assert_non_null(suite);
	assert_prop(suite, "name", "crs-ci");
	assert_prop(suite, "tests", "6");
	assert_prop(suite, "failures", "2");
	assert_prop(suite, "skipped", "2");
	assert_prop(suite, "errors", "0");
	assert_prop(suite, "time", "1200.500");
	assert_prop(suite, "timestamp", "2024-05-01T10:00:00Z");

	/* new, reproduced 5/5: a failure with the evidence */
	tc = find_case(doc, "07b256e0bc4a2f9f");
	assert_non_null(tc);
	assert_prop(tc, "classname", "crs-ci.fuzz_parse");
	assert_prop(tc, "name", "Heap-buffer-overflow WRITE 4 in parse_record"
		    " [07b256e0bc4a2f9f]");
	assert_prop(tc, "file", "parse.c");
	el = child(tc, "failure");
	assert_non_null(el);
	assert_prop(el, "type", "Heap-buffer-overflow WRITE 4");
	assert_prop(el, "message", "new Heap-buffer-overflow WRITE 4 at "
		    "parse.c:20 (reproduced 5/5)");
	text = xmlNodeGetContent(el);
	assert_non_null(strstr((char *)text, "PoV: povs/07b256e0bc4a2f9f"));
	assert_non_null(strstr((char *)text, "#1 LLVMFuzzerTestOneInput "
			       "fuzz_parse.c:12"));
	assert_non_null(strstr((char *)text, "(a line this change touched)"));
	xmlFree(text);

	/* pre-existing and flaky: reported, skipped with the reason */
	el = child(find_case(doc, "1111aaaa2222bbbb"), "skipped");
	assert_non_null(el);
	assert_prop(el, "message", "pre-existing: the base crashes the same "
		    "way");
	assert_null(child(find_case(doc, "1111aaaa2222bbbb"), "failure"));
	el = child(find_case(doc, "3333cccc4444dddd"), "skipped");
	assert_non_null(el);
	assert_prop(el, "message", "flaky: did not crash on every run");

	/* fixed by the change: passes, the evidence in system-out */
	tc = find_case(doc, "5555eeee6666ffff");
	assert_null(child(tc, "failure"));
	assert_null(child(tc, "skipped"));
	assert_non_null(child(tc, "system-out"));

	/* no location: still a failing test case, without file */
	tc = find_case(doc, "7777000088889999");
	assert_non_null(child(tc, "failure"));
	assert_null(xmlHasProp(tc, BAD_CAST "file"));

	/* harness without findings: one passing case */
	tc = find_case(doc, "fuzz_idle: no crash reproduced");
	assert_non_null(tc);
	assert_prop(tc, "classname", "crs-ci.fuzz_idle");
	assert_null(tc->children);
	assert_null(find_case(doc, "fuzz_parse: no crash"));
	xmlFreeDoc(doc);

	/* --fail-on any: every finding but the fixed one fails */
	free(s.summary.fail_on);
	s.summary.fail_on = xstrdup("any");
	doc = write_and_parse(&s, dir);
	suite = child(xmlDocGetRootElement(doc), "testsuite");
	assert_prop(suite, "failures", "5");
	assert_prop(suite, "skipped", "0");
	xmlFreeDoc(doc);

	/* --report-timeouts no: the timeout is skipped even under any */
	assert_int_equal(finding_set_suppress(&s, 1, 1), 1);
	doc = write_and_parse(&s, dir);
	suite = child(xmlDocGetRootElement(doc), "testsuite");
	assert_prop(suite, "failures", "4");
	el = child(find_case(doc, "7777000088889999"), "skipped");
	assert_non_null(el);
	assert_prop(el, "message", "suppressed: --report-timeouts no");
	xmlFreeDoc(doc);
	finding_set_release(&s);
	rmdir(dir);
}

/*
 * A harness fuzzed short is not a passing case: a failure of type
 * "incomplete" with its reason (skipped under --fail-on none). A
 * folded finding's other harnesses count as having a finding.
 */
static void test_incomplete(void **state)
{
	struct finding_set s;
	xmlDocPtr doc;
	xmlNodePtr tc, el;
	char dir[] = "/tmp/crs-ci-junit-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	build_set(&s);
	finding_add_pov(&s.items[0], "fuzz_parse", "povs/a", "a");
	finding_add_pov(&s.items[0], "fuzz_list", "povs/b", "b");
	scan_summary_add_incomplete(&s.summary, "fuzz_idle", "no time left "
				    "before the deadline", 0, 60);
	doc = write_and_parse(&s, dir);
	assert_null(find_case(doc, "fuzz_idle: no crash reproduced"));
	tc = find_case(doc, "fuzz_idle: incomplete");
	assert_non_null(tc);
	el = child(tc, "failure");
	assert_non_null(el);
	assert_prop(el, "type", "incomplete");
	assert_prop(el, "message", "fuzzed 0s of the 60s it was due: no "
		    "time left before the deadline");
	xmlFreeDoc(doc);
	free(s.summary.fail_on);
	s.summary.fail_on = xstrdup("none");
	doc = write_and_parse(&s, dir);
	tc = find_case(doc, "fuzz_idle: incomplete");
	assert_null(child(tc, "failure"));
	assert_non_null(child(tc, "skipped"));
	xmlFreeDoc(doc);
	finding_set_release(&s);
	rmdir(dir);
}

static void test_hostile(void **state)
{
	struct finding_set s;
	char dir[] = "/tmp/crs-junit-XXXXXX";
	xmlDocPtr doc;
	xmlNodePtr tc, el;
	xmlChar *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	finding_set_init(&s);
	finding_add(&s, "abcdabcdabcdabcd", "Crash \"q\" <x> & 'y'", 1,
	    "a&b<c>.c", 4, "f\x01\x1b[31m<script>&amp;", "h]]>x", 5, 5,
	    "new");
	free(s.items[0].description);
	/* invalid UTF-8: lone continuation, overlong '/', 0xff, truncated */
	s.items[0].description = xstrdup("bad \x80 \xc0\xaf \xff end \xe2\x82");
	doc = write_and_parse(&s, dir);
	tc = find_case(doc, "abcdabcdabcdabcd");
	assert_non_null(tc);
	assert_prop(tc, "name", "Crash \"q\" <x> & 'y' in f  [31m<script>&amp;"
		    " [abcdabcdabcdabcd]");
	assert_prop(tc, "file", "a&b<c>.c");
	assert_prop(tc, "classname", "crs-ci.h]]>x");
	el = child(tc, "failure");
	text = xmlNodeGetContent(el);
	assert_non_null(strstr((char *)text, "bad \xef\xbf\xbd \xef\xbf\xbd"
			       "\xef\xbf\xbd \xef\xbf\xbd end \xef\xbf\xbd"
			       "\xef\xbf\xbd\n"));
	xmlFree(text);
	xmlFreeDoc(doc);
	finding_set_release(&s);
	rmdir(dir);
}

static void test_text_clean(void **state)
{
	char *t;

	(void)state;
	t = junit_text_clean("a\tb\nc\rd\x01" "e\x7f" "f\xef\xbf\xbeg", 100);
	assert_string_equal(t, "a\tb\nc\rd e\x7f" "f g");
	free(t);
	t = junit_text_clean(NULL, 10);
	assert_string_equal(t, "");
	free(t);
	/* surrogate halves are not UTF-8 */
	t = junit_text_clean("\xed\xa0\x80", 10);
	assert_string_equal(t, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(t);
	/* the cap never cuts a character */
	t = junit_text_clean("ab\xe2\x82\xac", 4);
	assert_string_equal(t, "ab");
	free(t);
	t = junit_text_clean("\xf0\x9f\x98\x80x", 5);
	assert_string_equal(t, "\xf0\x9f\x98\x80x");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_text_clean),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return r;
}
