/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_run_cut.c - results.json's "after_finding": written, read back,
 * refused when malformed, and its one line for the verdict
 *
 * results.json can come from a cache or another job: every field is
 * checked, and an error names the file and the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/run_cut.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static struct run_cut *sample(void)
{
	struct run_cut *c = run_cut_new();

	c->policy = xstrdup("default");
	c->window_s = 18;
	c->proved_at_s = 100.5;
	c->cut_at_s = 118.7;
	c->finding = xstrdup("0123456789abcdef");
	c->harnesses_cut = 2;
	c->announced = 1;
	return c;
}

static void test_round_trip(void **state)
{
	struct run_cut *c = sample(), *back = NULL;
	json_t *j = run_cut_to_json(c);

	(void)state;
	assert_int_equal(run_cut_from_json(&back, j, "r.json"), 0);
	assert_string_equal(back->policy, "default");
	assert_true(back->window_s == 18);
	assert_true(back->proved_at_s == 100.5);
	assert_true(back->cut_at_s == 118.7);
	assert_string_equal(back->finding, "0123456789abcdef");
	assert_int_equal(back->harnesses_cut, 2);
	assert_int_equal(back->announced, 1);
	run_cut_free(back);
	json_decref(j);
	run_cut_free(c);
}

static void test_not_proved(void **state)
{
	struct run_cut *c = run_cut_new(), *back = NULL;
	struct buf b = BUF_INIT;
	json_t *j;

	(void)state;
	c->policy = xstrdup("continue");
	j = run_cut_to_json(c);
	assert_true(json_is_null(json_object_get(j, "proved_at_seconds")));
	assert_int_equal(run_cut_from_json(&back, j, NULL), 0);
	assert_true(back->proved_at_s < 0 && back->cut_at_s < 0);
	assert_null(back->finding);
	run_cut_line(&b, back);
	assert_int_equal(b.len, 0);	/* nothing proved, nothing said */
	buf_release(&b);
	run_cut_free(back);
	json_decref(j);
	run_cut_free(c);
}

/* Each bad field is refused with the file and the field named. */
static void test_malformed(void **state)
{
	static const struct {
		const char *key, *json, *says;
	} cases[] = {
		{ "policy", "7", "after_finding.policy" },
		{ "window_seconds", "-1", "after_finding.window_seconds" },
		{ "proved_at_seconds", "\"soon\"",
		  "after_finding.proved_at_seconds" },
		{ "cut_at_seconds", "true", "after_finding.cut_at_seconds" },
		{ "finding", "[]", "after_finding.finding" },
		{ "harnesses_cut", "-3", "after_finding.harnesses_cut" },
		{ "announced", "1", "after_finding.announced" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_cut *c = sample(), *back = NULL;
		json_t *j = run_cut_to_json(c);

		json_object_set_new(j, cases[i].key,
				    json_loads(cases[i].json, JSON_DECODE_ANY,
					       NULL));
		assert_int_equal(run_cut_from_json(&back, j, "r.json"),
				 CRS_EINPUT);
		assert_null(back);
		assert_non_null(strstr(crs_error_last(), "r.json: "));
		assert_non_null(strstr(crs_error_last(), cases[i].says));
		crs_error_clear();
		json_decref(j);
		run_cut_free(c);
	}
	{
		struct run_cut *back = NULL;
		json_t *j = json_array();

		assert_int_equal(run_cut_from_json(&back, j, "r.json"),
				 CRS_EINPUT);
		json_decref(j);
	}
}

static void test_line(void **state)
{
	struct run_cut *c = sample();
	struct buf b = BUF_INIT;

	(void)state;
	run_cut_line(&b, c);
	assert_string_equal(b.ptr, "run ended 18s after a finding was proved "
			    "(--after-finding default: 18s); 2 harness(es) "
			    "fuzzed short or not at all, the proved finding "
			    "fails the verdict");
	buf_reset(&b);
	c->cut_at_s = -1;
	free(c->policy);
	c->policy = xstrdup("continue");
	run_cut_line(&b, c);
	assert_string_equal(b.ptr, "a finding was proved 100s into the scan; "
			    "the run went on (--after-finding continue)");
	buf_release(&b);
	run_cut_free(c);
}

/* results.json carries it through the loader. */
static void test_in_results(void **state)
{
	struct finding_set fs, back;
	json_t *j;

	(void)state;
	finding_set_init(&fs);
	finding_set_init(&back);
	fs.run_cut = sample();
	j = finding_set_to_json(&fs);
	assert_non_null(json_object_get(j, "after_finding"));
	assert_int_equal(finding_set_from_json(&back, j, "results.json"), 0);
	assert_non_null(back.run_cut);
	assert_int_equal(back.run_cut->harnesses_cut, 2);
	json_object_set_new(json_object_get(j, "after_finding"), "policy",
			    json_integer(3));
	assert_int_equal(finding_set_from_json(&back, j, "results.json"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "results.json: "
			       "after_finding.policy"));
	assert_non_null(back.run_cut);	/* left unchanged on error */
	json_decref(j);
	finding_set_release(&back);
	finding_set_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_proved),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_in_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
