/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_verdict.c - honest verdicts (issue 14, item 4)
 *
 * The verdict logic (sarif/finding.c: FAIL wins over INCOMPLETE, PASS
 * only with nothing short), its exit codes (runner/scan/exit_code.c), the rule
 * that calls a harness's run short (runner/scan/harness_runs.c), the
 * "incomplete" list through results.json and SARIF, and one bug, one
 * finding: the bug key and the fold (sarif/bug_key.c), with the fold's
 * harnesses and PoVs in results.json and in the one SARIF result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/cli/cmd.h"
#include "runner/scan/harness_runs.h"
#include "sarif/bug_key.h"
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "finding_builder.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void test_verdict_rules(void **state)
{
	struct finding_set s;
	size_t failing = 9;

	(void)state;
	finding_set_init(&s);
	assert_int_equal(finding_set_verdict(&s, "new", &failing),
			 VERDICT_PASS);
	assert_int_equal(failing, 0);
	/* a short harness: never PASS */
	scan_summary_add_incomplete(&s.summary, "fuzz_a", "no time left "
				    "before the deadline", 0, 120);
	assert_int_equal(finding_set_verdict(&s, "new", NULL),
			 VERDICT_INCOMPLETE);
	assert_string_equal(finding_verdict_name(VERDICT_INCOMPLETE),
			    "INCOMPLETE");
	assert_int_equal(report_exit_code(VERDICT_INCOMPLETE, "new"),
			 EXIT_INCOMPLETE);
	assert_int_equal(report_exit_code(VERDICT_INCOMPLETE, "any"), 4);
	/* --fail-on none never fails, not even a short scan */
	assert_int_equal(report_exit_code(VERDICT_INCOMPLETE, "none"), 0);
	/* a pre-existing finding does not fail --fail-on new: INCOMPLETE */
	finding_add(&s, "00000000000000aa", "Heap-buffer-overflow", 1,
		    "src/a.c", 3, "fa", "fuzz_b", 5, 5, "pre-existing");
	assert_int_equal(finding_set_verdict(&s, "new", &failing),
			 VERDICT_INCOMPLETE);
	assert_int_equal(failing, 0);
	/* a failing finding: FAIL wins over INCOMPLETE */
	assert_int_equal(finding_set_verdict(&s, "any", &failing),
			 VERDICT_FAIL);
	assert_int_equal(failing, 1);
	assert_int_equal(report_exit_code(VERDICT_FAIL, "any"), EXIT_FINDINGS);
	assert_int_equal(report_exit_code(VERDICT_PASS, "new"), EXIT_OK);
	finding_set_release(&s);
}

static void test_shortfall_rule(void **state)
{
	char *why;

	(void)state;
	/* ran its whole share: not short */
	assert_null(harness_run_shortfall(60, 60, 60.2, 1, 0, NULL));
	/* the deadline gave less than --fuzz-seconds */
	why = harness_run_shortfall(600, 25, 25, 1, 0, NULL);
	assert_non_null(why);
	assert_non_null(strstr(why, "25s of the 600s"));
	free(why);
	/* stopped by the deadline before its share was up */
	why = harness_run_shortfall(60, 60, 12, 1, 0, NULL);
	assert_string_equal(why, "stopped at the scan's deadline");
	free(why);
	/* a CRS that exits 0 early has decided it is done */
	assert_null(harness_run_shortfall(600, 600, 3, 1, 1, NULL));
	assert_null(harness_run_shortfall(600, 25, 3, 1, 1, NULL));
	/* one that exits 0 at the limit the deadline gave it: short */
	why = harness_run_shortfall(600, 25, 25.5, 1, 1, NULL);
	assert_non_null(why);
	assert_non_null(strstr(why, "25s of the 600s"));
	free(why);
	/* one that failed early is a short run */
	why = harness_run_shortfall(600, 600, 3, 1, 1,
				    "CRS module c/m exited with status 2");
	assert_string_equal(why, "CRS module c/m exited with status 2 "
			    "before its time was up");
	free(why);
	/* no CRS ran at all (every one needs an LLM, --no-llm) */
	why = harness_run_shortfall(60, 60, 0, 0, 1, NULL);
	assert_string_equal(why, "no CRS module ran on it");
	free(why);
}

static void test_incomplete_round_trip(void **state)
{
	struct finding_set s, back;
	json_t *j, *sarif = NULL, *p, *e;

	(void)state;
	finding_set_init(&s);
	finding_set_init(&back);
	scan_summary_add_incomplete(&s.summary, "fuzz_a", "stopped at the "
				    "scan's deadline", 12.5, 60);
	j = finding_set_to_json(&s);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")),
			    "INCOMPLETE");
	e = json_array_get(json_object_get(j, "incomplete"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "harness")),
			    "fuzz_a");
	assert_true(json_number_value(json_object_get(e, "fuzzed_seconds"))
		    == 12.5);
	assert_true(json_number_value(json_object_get(e, "wanted_seconds"))
		    == 60);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back.summary.incomplete_nr, 1);
	assert_string_equal(back.summary.incomplete[0].reason,
			    "stopped at the scan's deadline");
	/* SARIF: runs[0].properties.verdict and .incomplete */
	assert_int_equal(sarif_from_findings(&sarif, &back, "/src"), 0);
	p = json_object_get(json_array_get(json_object_get(sarif, "runs"), 0),
			    "properties");
	assert_string_equal(json_string_value(json_object_get(p, "verdict")),
			    "INCOMPLETE");
	e = json_array_get(json_object_get(p, "incomplete"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "harness")),
			    "fuzz_a");
	assert_true(json_number_value(json_object_get(e, "wantedSeconds"))
		    == 60);
	/* and a warning notification per harness */
	e = json_array_get(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(sarif, "runs"), 0),
		"invocations"), 0), "toolExecutionNotifications"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(
		json_object_get(e, "message"), "text")), "harness fuzz_a"));
	assert_string_equal(json_string_value(json_object_get(e, "level")),
			    "warning");
	/* a malformed entry names its field */
	json_object_set_new(e = json_array_get(json_object_get(j, "incomplete"),
					       0), "harness", json_integer(3));
	assert_int_equal(finding_set_from_json(&back, j, "r.json"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "incomplete[0].harness"));
	crs_error_clear();
	json_decref(sarif);
	json_decref(j);
	finding_set_release(&s);
	finding_set_release(&back);
}

/* recparse's bug as two harnesses reach it: same frames below the entry */
static struct finding *add_bug(struct finding_set *s, const char *id,
			       const char *harness, const char *type,
			       const char *novelty, double after)
{
	struct finding *f = finding_add(s, id, type, 1, "src/recparse.c", 39,
					"parse_extended", harness, 5, 5,
					novelty);

	free(f->signature);
	/* the signature names the harness: it differs per harness */
	f->signature = xasprintf("Heap-buffer-overflow\nparse_extended\n"
				 "rp_parse\n%s", harness);
	f->pov_sha256 = xasprintf("%s%s", id, id);
	f->found_by = xstrdup(harness);
	f->found_after_s = after;
	finding_add_frame(f, "__asan_memcpy", NULL, 0, 0);
	finding_add_frame(f, "parse_extended", "src/recparse.c", 39, 1);
	finding_add_frame(f, "rp_parse", "src/recparse.c", 95, 1);
	finding_add_frame(f, "LLVMFuzzerTestOneInput", "fuzz/fuzz_records.c", 12, 1);
	return f;
}

static void test_bug_key(void **state)
{
	struct finding_set s;
	char *a, *b, *c;
	struct finding *f;

	(void)state;
	finding_set_init(&s);
	add_bug(&s, "00000000000000a1", "fuzz_records",
		"Heap-buffer-overflow WRITE 4", "new", 5);
	add_bug(&s, "00000000000000a2", "fuzz_records2",
		"Heap-buffer-overflow WRITE 8", "new", 3);
	a = finding_bug_key(&s.items[0]);
	b = finding_bug_key(&s.items[1]);
	assert_string_equal(a, "Heap-buffer-overflow\n"
			    "src/recparse.c:39:parse_extended");
	assert_string_equal(a, b);
	/* another line is another bug */
	s.items[1].stack[1].line = 40;
	c = finding_bug_key(&s.items[1]);
	assert_string_not_equal(a, c);
	free(c);
	/* a crash in the entry function itself: nothing to match on */
	f = finding_add(&s, "00000000000000a3", "Null-deref", 0, NULL, 0,
			NULL, "fuzz_x", 1, 1, "new");
	finding_add_frame(f, "LLVMFuzzerTestOneInput", "fuzz/fuzz_x.c", 3, 1);
	assert_null(finding_bug_key(f));
	free(a);
	free(b);
	finding_set_release(&s);
}

static void test_fold_two_harnesses(void **state)
{
	struct finding_set s, back;
	json_t *j, *sarif = NULL, *res, *props;
	struct finding *f;

	(void)state;
	finding_set_init(&s);
	finding_set_init(&back);
	add_bug(&s, "00000000000000b1", "fuzz_records",
		"Heap-buffer-overflow WRITE 4", "new", 5);
	f = add_bug(&s, "00000000000000b2", "fuzz_records2",
		    "Heap-buffer-overflow WRITE 4", "new", 3);
	finding_add_pov(f, "fuzz_records2", "povs/other", "other");
	f->duplicates = 1;
	finding_add(&s, "00000000000000b3", "Use-after-free", 1, "src/b.c", 7,
		    "fb", "fuzz_records", 5, 5, "new");
	assert_int_equal(finding_set_fold_bugs(&s), 1);
	assert_int_equal(s.nr, 2);
	f = &s.items[0];
	assert_string_equal(f->id, "00000000000000b1");
	assert_int_equal(f->harnesses_nr, 2);
	assert_string_equal(f->harnesses[0], "fuzz_records");
	assert_string_equal(f->harnesses[1], "fuzz_records2");
	assert_int_equal(f->povs_nr, 3);
	assert_int_equal(f->duplicates, 2);
	/* the earliest finder is credited */
	assert_string_equal(f->found_by, "fuzz_records2");
	assert_true(f->found_after_s == 3);
	assert_string_equal(f->novelty, "new");
	assert_string_equal(s.items[1].id, "00000000000000b3");
	/* results.json lists both harnesses and every PoV, and reads back */
	j = finding_set_to_json(&s);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back.items[0].harnesses_nr, 2);
	assert_int_equal(back.items[0].povs_nr, 3);
	for (size_t i = 0, seen = 0; i <= back.items[0].povs_nr; i++) {
		if (i == back.items[0].povs_nr) {
			assert_int_equal(seen, 1);
			break;
		}
		seen += !strcmp(back.items[0].povs[i].path, "povs/other");
	}
	/* SARIF: one result for the bug, its harnesses and PoVs listed */
	assert_int_equal(sarif_from_findings(&sarif, &back, "/src"), 0);
	res = json_object_get(json_array_get(json_object_get(sarif, "runs"),
					     0), "results");
	assert_int_equal(json_array_size(res), 2);
	props = json_object_get(json_array_get(res, 0), "properties");
	assert_int_equal(json_array_size(json_object_get(props, "harnesses")),
			 2);
	assert_int_equal(json_array_size(json_object_get(props, "povs")), 3);
	json_decref(sarif);
	json_decref(j);
	finding_set_release(&back);
	finding_set_release(&s);
}

/* A bug is new only when the base crashes on none of its PoVs. */
static void test_fold_novelty(void **state)
{
	static const char *const cases[][3] = {
		{ "new", "new", "new" },
		{ "new", "pre-existing", "pre-existing" },
		{ "changed", "new", "changed" },
		{ "changed", "pre-existing", "pre-existing" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct finding_set s;

		finding_set_init(&s);
		add_bug(&s, "00000000000000c1", "fuzz_records",
			"Heap-buffer-overflow READ 1", cases[i][0], 1);
		add_bug(&s, "00000000000000c2", "fuzz_records2",
			"Heap-buffer-overflow READ 1", cases[i][1], 2);
		assert_int_equal(finding_set_fold_bugs(&s), 1);
		assert_string_equal(s.items[0].novelty, cases[i][2]);
		finding_set_release(&s);
	}
}

/* "fixed-by-change" stays its own finding: the head does not crash. */
static void test_fold_keeps_fixed_by_change(void **state)
{
	struct finding_set s;

	(void)state;
	finding_set_init(&s);
	add_bug(&s, "00000000000000d1", "fuzz_records",
		"Heap-buffer-overflow READ 1", "new", 1);
	add_bug(&s, "00000000000000d2", "fuzz_records2",
		"Heap-buffer-overflow READ 1", "fixed-by-change", 2);
	assert_int_equal(finding_set_fold_bugs(&s), 0);
	assert_int_equal(s.nr, 2);
	finding_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_rules),
		cmocka_unit_test(test_shortfall_rule),
		cmocka_unit_test(test_incomplete_round_trip),
		cmocka_unit_test(test_bug_key),
		cmocka_unit_test(test_fold_two_harnesses),
		cmocka_unit_test(test_fold_novelty),
		cmocka_unit_test(test_fold_keeps_fixed_by_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
