/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_change_anchor.c - choosing a finding's change anchor, reading it
 * back from a hostile results.json, and the SARIF result it shapes
 *
 * The choice: the crash line when it is changed; else the executed
 * changed line nearest the crash in the crashing function, then in a
 * caller, then off the stack; none executed: the crash site. SARIF puts
 * a moved anchor first as one line, keeps the crash site related, and
 * keeps the fingerprints whatever the anchor. Run from the repository
 * root (the SARIF part reads tests/fixtures/crash/src-tiny).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "finding_builder.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define SRC "tests/fixtures/crash/src-tiny"

/* Function spans of the pretend source: parse.c 11-24 parse_record,
 * 26-40 sum_fields; fuzz_parse.c 5-15 LLVMFuzzerTestOneInput. */
static int spans(void *ctx, const char *file, int line, int *start,
		 int *end, const char **name)
{
	static const struct { const char *file, *name; int s, e; } v[] = {
		{ "parse.c", "parse_record", 11, 24 },
		{ "parse.c", "sum_fields", 26, 40 },
		{ "fuzz_parse.c", "LLVMFuzzerTestOneInput", 5, 15 },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(v[i].file, file) && line >= v[i].s &&
		    line <= v[i].e) {
			*start = v[i].s;
			*end = v[i].e;
			*name = v[i].name;
			return 1;
		}
	return 0;
}

/* parse_record crashes at parse.c:20, called from fuzz_parse.c:12. */
static struct finding *crash_at_20(struct finding_set *s)
{
	struct finding *f;

	finding_set_init(s);
	f = finding_add(s, "0123456789abcdef",
			"Heap-buffer-overflow WRITE 4", 1, "parse.c", 20,
			"parse_record", "fuzz_parse", 5, 5, "new");
	finding_add_frame(f, "__asan_memcpy", "/src/llvm/asan.cpp", 1, 0);
	finding_add_frame(f, "parse_record", "parse.c", 20, 1);
	finding_add_frame(f, "LLVMFuzzerTestOneInput", "fuzz_parse.c", 12, 1);
	return f;
}

static void test_pick_crash_function(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	/* 16 and 24 are 4 away from 20: the line above wins the tie; 28
	 * lies in another function; 9 before parse_record starts */
	int parse_lines[] = { 9, 16, 24, 28 }, fuzz_lines[] = { 10 };
	struct anchor_file exec[] = {
		{ "fuzz_parse.c", fuzz_lines, 1 },
		{ "parse.c", parse_lines, 4 },
	};
	struct change_anchor *a;

	(void)st;
	a = change_anchor_pick(f, exec, 2, spans, NULL);
	assert_string_equal(a->how, ANCHOR_CRASH_FUNCTION);
	assert_string_equal(a->file, "parse.c");
	assert_int_equal(a->line, 16);
	assert_string_equal(a->function, "parse_record");
	assert_int_equal(a->frame, 1);
	assert_true(change_anchor_moved(a));
	assert_int_equal(change_anchor_file(a, "parse.c")->nr, 4);
	assert_int_equal(change_anchor_file(a, "parse.c")->lines[3], 28);
	assert_null(change_anchor_file(a, "other.c"));
	assert_int_equal(a->executed_nr, 2);
	change_anchor_free(a);
	finding_set_release(&s);
}

static void test_pick_caller_then_off_stack(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	int fuzz_lines[] = { 6, 14 }, parse_lines[] = { 5, 30 };
	struct anchor_file exec[] = {
		{ "fuzz_parse.c", fuzz_lines, 2 },
		{ "parse.c", parse_lines, 2 },
	};
	struct change_anchor *a;
	const char *file;
	int line, moved;

	(void)st;
	/* none in parse_record: the caller's nearest to its call at 12 */
	a = change_anchor_pick(f, exec, 2, spans, NULL);
	assert_string_equal(a->how, ANCHOR_CALLER);
	assert_string_equal(a->file, "fuzz_parse.c");
	assert_int_equal(a->line, 14);
	assert_string_equal(a->function, "LLVMFuzzerTestOneInput");
	assert_int_equal(a->frame, 2);
	f->anchor = a;
	file = change_anchor_place(f, &line, &moved);
	assert_string_equal(file, "fuzz_parse.c");
	assert_int_equal(line, 14);
	assert_true(moved);
	/* off the stack: the nearest above the crash in its file (5, not
	 * 30 below it), named by its function when one is known */
	a = change_anchor_pick(f, &exec[1], 1, spans, NULL);
	assert_string_equal(a->how, ANCHOR_EXECUTED);
	assert_string_equal(a->file, "parse.c");
	assert_int_equal(a->line, 5);
	assert_null(a->function);
	assert_int_equal(a->frame, -1);
	change_anchor_free(a);
	/* no function spans at all: off the stack, the first line */
	a = change_anchor_pick(f, exec, 1, NULL, NULL);
	assert_string_equal(a->how, ANCHOR_EXECUTED);
	assert_string_equal(a->file, "fuzz_parse.c");
	assert_int_equal(a->line, 6);
	change_anchor_free(a);
	finding_set_release(&s);
}

static void test_pick_at_crash_site(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	int lines[] = { 16 };
	struct anchor_file exec[] = { { "parse.c", lines, 1 } };
	struct change_anchor *a;
	const char *file;
	int line, moved = 1;

	(void)st;
	/* nothing executed: the crash site, labelled so */
	a = change_anchor_pick(f, NULL, 0, spans, NULL);
	assert_string_equal(a->how, ANCHOR_NOT_EXECUTED);
	assert_string_equal(a->file, "parse.c");
	assert_int_equal(a->line, 20);
	assert_false(change_anchor_moved(a));
	assert_non_null(strstr(change_anchor_how_text(a), "no changed line"));
	f->anchor = a;
	file = change_anchor_place(f, &line, &moved);
	assert_string_equal(file, "parse.c");
	assert_int_equal(line, 20);
	assert_false(moved);
	/* the crash line is a changed line: nothing moves */
	f->in_change = 1;
	f->stack[1].in_change = 1;
	a = change_anchor_pick(f, exec, 1, spans, NULL);
	assert_string_equal(a->how, ANCHOR_CRASH_SITE);
	assert_int_equal(a->line, 20);
	assert_int_equal(a->frame, 1);
	assert_false(change_anchor_moved(a));
	change_anchor_free(a);
	/* unknown coverage */
	a = change_anchor_unmeasured(f, "no coverage build");
	assert_string_equal(a->how, ANCHOR_UNMEASURED);
	assert_string_equal(a->reason, "no coverage build");
	assert_int_equal(a->line, 20);
	assert_false(change_anchor_moved(a));
	change_anchor_free(a);
	finding_set_release(&s);
}

static void test_lead_text(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	struct buf b = BUF_INIT;

	(void)st;
	change_anchor_lead_text(&b, f, 1);
	assert_string_equal(b.ptr, "This change leads to a heap-buffer-"
			    "overflow WRITE 4 at parse.c:20 in parse_record");
	buf_reset(&b);
	free(f->crash_type);
	f->crash_type = xstrdup("UBSan: signed-integer-overflow");
	change_anchor_lead_text(&b, f, 0);
	assert_string_equal(b.ptr, "this change leads to a UBSan: signed-"
			    "integer-overflow at parse.c:20 in parse_record");
	buf_release(&b);
	finding_set_release(&s);
}

/* --- results.json -------------------------------------------------------- */

static void test_json_round_trip(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	int lines[] = { 16, 18 };
	struct anchor_file exec[] = { { "parse.c", lines, 2 } };
	struct change_anchor *a = change_anchor_pick(f, exec, 1, spans, NULL);
	struct change_anchor *b = NULL;
	json_t *j = change_anchor_to_json(a);

	(void)st;
	assert_int_equal(change_anchor_from_json(&b, j, 3, "r.json",
						 "findings[0].change_anchor"),
			 0);
	assert_string_equal(b->how, ANCHOR_CRASH_FUNCTION);
	assert_string_equal(b->file, "parse.c");
	assert_int_equal(b->line, 18);
	assert_int_equal(b->frame, 1);
	assert_int_equal(b->executed_nr, 1);
	assert_int_equal(b->executed[0].nr, 2);
	assert_string_equal(b->function, "parse_record");
	assert_int_equal(b->executed[0].lines[1], 18);
	change_anchor_free(b);
	json_decref(j);
	/* through the whole finding set */
	f->anchor = a;
	j = finding_set_to_json(&s);
	{
		struct finding_set t;

		finding_set_init(&t);
		assert_int_equal(finding_set_from_json(&t, j, "r.json"), 0);
		assert_non_null(t.items[0].anchor);
		assert_int_equal(t.items[0].anchor->line, 18);
		finding_set_release(&t);
	}
	json_decref(j);
	finding_set_release(&s);
}

/* Each hostile change_anchor object is refused with its field named. */
static void test_json_rejected(void **st)
{
	static const struct { const char *json, *want; } bad[] = {
		{ "[]", "change_anchor: expected an object" },
		{ "{\"how\":\"blame\",\"file\":\"a.c\",\"line\":1}",
		  "change_anchor.how:" },
		{ "{\"how\":\"crash-site\",\"file\":\"/etc/passwd\",\"line\":1}",
		  "change_anchor.file: expected a repo-relative path" },
		{ "{\"how\":\"crash-site\",\"file\":\"a/../../x\",\"line\":1}",
		  "change_anchor.file: expected a repo-relative path" },
		{ "{\"how\":\"crash-site\",\"file\":\"a.c\",\"line\":0}",
		  "change_anchor.line:" },
		{ "{\"how\":\"crash-site\",\"line\":3}", "change_anchor.line:" },
		{ "{\"how\":\"crash-site\",\"file\":\"a.c\",\"line\":3,"
		  "\"frame\":3}", "change_anchor.frame:" },
		{ "{\"how\":\"crash-site\",\"file\":\"a.c\",\"line\":3,"
		  "\"function\":\"a\\nb\"}", "change_anchor.function:" },
		{ "{\"how\":\"caller\",\"file\":\"a.c\",\"line\":3,"
		  "\"executed\":[{\"file\":\"a.c\",\"lines\":[4]}]}",
		  "change_anchor.line: an anchor off the crash site" },
		{ "{\"how\":\"caller\",\"file\":\"a.c\",\"line\":3,"
		  "\"executed\":[{\"file\":\"a.c\",\"lines\":[3,3]}]}",
		  "change_anchor.executed: lines must be ascending" },
		{ "{\"how\":\"caller\",\"file\":\"a.c\",\"line\":3,"
		  "\"executed\":[{\"file\":\"b.c\",\"lines\":[1]},"
		  "{\"file\":\"a.c\",\"lines\":[3]}]}",
		  "change_anchor.executed: files not sorted" },
		{ "{\"how\":\"executed\",\"file\":\"a.c\",\"line\":3,"
		  "\"executed\":[{\"file\":\"../a.c\",\"lines\":[3]}]}",
		  "change_anchor.executed: expected objects" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i].json, JSON_DECODE_ANY, NULL);
		struct change_anchor *a = NULL;

		assert_non_null(j);
		assert_int_equal(change_anchor_from_json(&a, j, 3, "r.json",
					"findings[0].change_anchor"),
				 CRS_EINPUT);
		assert_null(a);
		if (!strstr(crs_error_last(), bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i,
				 crs_error_last(), bad[i].want);
		assert_non_null(strstr(crs_error_last(), "r.json: findings[0]"));
		crs_error_clear();
		json_decref(j);
	}
}

/* --- SARIF --------------------------------------------------------------- */

static json_t *result_of(struct finding_set *s)
{
	json_t *log = NULL, *r;

	if (!s->summary.mode)
		s->summary.mode = xstrdup("delta");
	assert_int_equal(sarif_from_findings(&log, s, SRC), 0);
	r = json_array_get(json_object_get(json_array_get(
		json_object_get(log, "runs"), 0), "results"), 0);
	json_incref(r);
	json_decref(log);
	return r;
}

static const char *sget(json_t *j, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(j, a), b));
}

static void test_sarif_primary_on_anchor(void **st)
{
	struct finding_set s;
	struct finding *f = crash_at_20(&s);
	int lines[] = { 16, 18 };
	struct anchor_file exec[] = { { "parse.c", lines, 2 } };
	json_t *plain, *moved, *loc, *rel, *region;
	const char *text;
	char *fp_plain;

	(void)st;
	plain = result_of(&s);
	fp_plain = xstrdup(sget(plain, "partialFingerprints",
				"primaryLocationLineHash"));
	f->anchor = change_anchor_pick(f, exec, 1, spans, NULL);
	moved = result_of(&s);
	/* locations[0]: the anchor, one line, no column */
	loc = json_object_get(json_array_get(json_object_get(moved,
				"locations"), 0), "physicalLocation");
	region = json_object_get(loc, "region");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(loc, "artifactLocation"), "uri")), "parse.c");
	assert_int_equal(json_integer_value(json_object_get(region,
				"startLine")), 18);
	assert_int_equal(json_integer_value(json_object_get(region,
				"endLine")), 18);
	assert_null(json_object_get(region, "startColumn"));
	text = sget(moved, "message", "text");
	assert_non_null(strstr(text, "This change leads to a heap-buffer-"
			       "overflow WRITE 4 at parse.c:20 in parse_record "
			       "([crash site](1))."));
	/* the crash site is related, the stack stays a code flow */
	rel = json_array_get(json_object_get(moved, "relatedLocations"), 0);
	assert_int_equal(json_integer_value(json_object_get(rel, "id")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(rel, "physicalLocation"), "region"),
		"startLine")), 20);
	assert_non_null(json_object_get(moved, "codeFlows"));
	/* the fingerprints do not follow the anchor */
	assert_string_equal(sget(moved, "partialFingerprints",
				 "primaryLocationLineHash"), fp_plain);
	assert_string_equal(sget(moved, "partialFingerprints",
				 "crsCiSignature/v1"), "0123456789abcdef");
	/* no moved anchor: the result as before */
	change_anchor_free(f->anchor);
	f->anchor = change_anchor_pick(f, NULL, 0, spans, NULL);
	json_decref(moved);
	moved = result_of(&s);
	assert_true(json_equal(moved, plain));
	json_decref(moved);
	json_decref(plain);
	free(fp_plain);
	finding_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_crash_function),
		cmocka_unit_test(test_pick_caller_then_off_stack),
		cmocka_unit_test(test_pick_at_crash_site),
		cmocka_unit_test(test_lead_text),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_rejected),
		cmocka_unit_test(test_sarif_primary_on_anchor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
