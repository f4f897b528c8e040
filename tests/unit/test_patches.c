/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_patches.c - validated patches in results.json and as SARIF fixes
 *
 * The patch list of a finding set survives results.json (steps, verdicts,
 * fixes, the diff); malformed patch entries are rejected naming the field;
 * a validated patch that fixes a finding becomes the result's `fixes`
 * with whole-line replacements against the unmodified file, and a patch
 * that was not validated never does.
 */
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define SHA_A "aaaa0000000000000000000000000000" \
	"00000000000000000000000000000001"
#define SHA_B "bbbb0000000000000000000000000000" \
	"00000000000000000000000000000002"

/* Replaces line 3, inserts after line 7, deletes line 10 of x.c. */
static const char diff_text[] =
	"diff --git a/src/x.c b/src/x.c\n"
	"--- a/src/x.c\n"
	"+++ b/src/x.c\n"
	"@@ -2,3 +2,4 @@\n"
	" two\n"
	"-three\n"
	"+THREE\n"
	"+three and a half\n"
	" four\n"
	"@@ -7,0 +8,1 @@\n"
	"+after seven\n"
	"@@ -9,3 +10,2 @@\n"
	" nine\n"
	"-ten\n"
	" eleven\n";

static void fill(struct finding_set *s)
{
	struct finding *f;
	struct finding_patch *p;

	finding_set_init(s);
	s->summary.project = xstrdup("tiny");
	f = finding_set_add(s);
	f->id = xstrdup("0123456789abcdef");
	f->signature = xstrdup("Heap-buffer-overflow WRITE 4\nf\n");
	f->crash_type = xstrdup("Heap-buffer-overflow WRITE 4");
	f->file = xstrdup("src/x.c");
	f->line = 3;
	f->reproduced = f->attempts = 5;
	f->fixed_by = xcalloc(3, sizeof(char *));
	f->fixed_by[f->fixed_by_nr++] = xstrdup(SHA_A);
	f->fixed_by[f->fixed_by_nr++] = xstrdup(SHA_B);

	p = finding_set_add_patch(s);
	p->sha256 = xstrdup(SHA_A);
	p->path = xstrdup("patches/aaaa00000000.patch");
	p->crs = xstrdup("crs-patcher");
	p->diff = xstrdup(diff_text);
	p->validated = 1;
	for (size_t i = 0; finding_patch_step_names[i]; i++)
		finding_patch_add_step(p, finding_patch_step_names[i],
				       i == 4 ? "no tests" : "passed", NULL,
				       "patches/logs/aaaa00000000/x.log");
	p->fixes = xcalloc(2, sizeof(char *));
	p->fixes[p->fixes_nr++] = xstrdup("0123456789abcdef");

	/* not validated: listed in fixed_by by mistake, must not show */
	p = finding_set_add_patch(s);
	p->sha256 = xstrdup(SHA_B);
	p->crs = xstrdup("crs-patcher");
	p->diff = xstrdup(diff_text);
	finding_patch_add_step(p, "policy", "passed", NULL, NULL);
	finding_patch_add_step(p, "apply", "failed", "does not apply", NULL);
	p->failed_step = xstrdup("apply");
	p->failure = xstrdup("does not apply\nlog tail");
}

static void test_round_trip(void **state)
{
	struct finding_set a, b;
	json_t *j;

	(void)state;
	fill(&a);
	j = finding_set_to_json(&a);
	finding_set_init(&b);
	assert_int_equal(finding_set_from_json(&b, j, "r.json"), 0);
	assert_int_equal(b.patches_nr, 2);
	assert_string_equal(b.patches[0].sha256, SHA_A);
	assert_true(b.patches[0].validated);
	assert_null(b.patches[0].failed_step);
	assert_int_equal(b.patches[0].steps_nr, 6);
	assert_string_equal(b.patches[0].steps[4].name, "tests");
	assert_string_equal(b.patches[0].steps[4].verdict, "no tests");
	assert_string_equal(b.patches[0].steps[5].log_path,
			    "patches/logs/aaaa00000000/x.log");
	assert_string_equal(b.patches[0].diff, diff_text);
	assert_int_equal(b.patches[0].fixes_nr, 1);
	assert_string_equal(b.patches[0].fixes[0], "0123456789abcdef");
	assert_false(b.patches[1].validated);
	assert_string_equal(b.patches[1].failed_step, "apply");
	assert_string_equal(b.patches[1].steps[1].detail, "does not apply");
	assert_int_equal(b.items[0].fixed_by_nr, 2);
	assert_string_equal(b.items[0].fixed_by[1], SHA_B);
	assert_ptr_equal(finding_set_find_patch(&b, SHA_B), &b.patches[1]);
	assert_null(finding_set_find_patch(&b, "nope"));
	finding_set_clear_patches(&b);
	assert_int_equal(b.patches_nr, 0);
	assert_int_equal(b.items[0].fixed_by_nr, 0);
	json_decref(j);
	finding_set_release(&a);
	finding_set_release(&b);
}

static void test_rejects_bad_verdict(void **state)
{
	struct finding_set a, b;
	json_t *j, *st;

	(void)state;
	fill(&a);
	j = finding_set_to_json(&a);
	st = json_array_get(json_object_get(json_array_get(
		json_object_get(j, "patches"), 1), "steps"), 1);
	json_object_set_new(st, "verdict", json_string("fine"));
	finding_set_init(&b);
	assert_int_equal(finding_set_from_json(&b, j, "r.json"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(),
			       "r.json: patches[1].steps[1].verdict: unknown "
			       "value \"fine\""));
	assert_int_equal(b.patches_nr, 0);
	json_object_del(json_array_get(json_object_get(j, "patches"), 1),
			"sha256");
	assert_int_equal(finding_set_from_json(&b, j, "r.json"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "patches[1].sha256: "
			       "missing"));
	crs_error_clear();
	json_decref(j);
	finding_set_release(&a);
}

static void check_region(json_t *rep, int start, int end, const char *text)
{
	json_t *reg = json_object_get(rep, "deletedRegion");
	json_t *ins = json_object_get(rep, "insertedContent");

	assert_int_equal(json_integer_value(json_object_get(reg, "startLine")),
			 start);
	assert_int_equal(json_integer_value(json_object_get(reg,
			 "startColumn")), 1);
	assert_int_equal(json_integer_value(json_object_get(reg, "endLine")),
			 end);
	assert_int_equal(json_integer_value(json_object_get(reg,
			 "endColumn")), 1);
	if (!text) {
		assert_null(ins);
		return;
	}
	assert_string_equal(json_string_value(json_object_get(ins, "text")),
			    text);
}

static void test_sarif_fixes(void **state)
{
	struct finding_set a;
	json_t *log, *res, *fixes, *ch, *reps;

	(void)state;
	fill(&a);
	assert_int_equal(sarif_from_findings(&log, &a, NULL), 0);
	res = json_array_get(json_object_get(json_array_get(
		json_object_get(log, "runs"), 0), "results"), 0);
	fixes = json_object_get(res, "fixes");
	assert_int_equal(json_array_size(fixes), 1);	/* only validated */
	assert_non_null(strstr(json_string_value(json_object_get(
		json_object_get(json_array_get(fixes, 0), "description"),
		"text")), "aaaa00000000"));
	ch = json_object_get(json_array_get(fixes, 0), "artifactChanges");
	assert_int_equal(json_array_size(ch), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(ch, 0), "artifactLocation"), "uri")),
		"src/x.c");
	reps = json_object_get(json_array_get(ch, 0), "replacements");
	assert_int_equal(json_array_size(reps), 3);
	check_region(json_array_get(reps, 0), 3, 4,
		     "THREE\nthree and a half\n");
	check_region(json_array_get(reps, 1), 8, 8, "after seven\n");
	check_region(json_array_get(reps, 2), 10, 11, NULL);
	json_decref(log);

	/* nothing validated: no fixes at all */
	a.patches[0].validated = 0;
	assert_int_equal(sarif_from_findings(&log, &a, NULL), 0);
	res = json_array_get(json_object_get(json_array_get(
		json_object_get(log, "runs"), 0), "results"), 0);
	assert_null(json_object_get(res, "fixes"));
	json_decref(log);
	finding_set_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rejects_bad_verdict),
		cmocka_unit_test(test_sarif_fixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
