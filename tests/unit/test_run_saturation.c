/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_run_saturation.c - results.json's "saturation": written, read
 * back (also inside a whole results.json), refused when malformed, and
 * its one line for the verdict
 *
 * results.json can come from a cache or another job: every field is
 * checked, and an error names the file and the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

static const struct run_saturation sample = {
	.window_s = 60, .fuzzed_s = 94.4, .share_s = 417, .harnesses = 2,
	.saturated = 2, .lines_reached = 31, .lines_total = 39,
};

static void test_round_trip_and_line(void **state)
{
	struct run_saturation *back = NULL;
	json_t *j = run_saturation_to_json(&sample);
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(run_saturation_from_json(&back, j, "r.json"), 0);
	assert_memory_equal(back, &sample, sizeof(sample));
	run_saturation_line(&b, back);
	assert_string_equal(b.ptr, "change saturated after 94s of 417s of "
			    "fuzzing: 31 of 39 changed lines reached, no new "
			    "line or branch of the touched code, nor inputs "
			    "running it far more, for 60s, not before a third "
			    "of the time of a "
			    "harness reaching it (--saturation)");
	buf_reset(&b);
	back->guard_weakened = 1;
	run_saturation_line(&b, back);
	assert_non_null(strstr(b.ptr, "not before half of the time of a "
			       "harness reaching it (the change removes or "
			       "weakens a guard) (--saturation)"));
	buf_reset(&b);
	back->share_s = 0;
	back->saturated = 1;
	run_saturation_line(&b, back);
	assert_non_null(strstr(b.ptr, "change saturated for 1 of 2 "
			       "harness(es) after 94s of fuzzing: 31 of 39"));
	buf_reset(&b);
	back->around_removals = 1;
	run_saturation_line(&b, back);
	assert_non_null(strstr(b.ptr, ": 31 of 39 lines around the removals "
			       "reached, no new line"));
	buf_reset(&b);
	back->saturated = 0;
	run_saturation_line(&b, back);
	run_saturation_line(&b, NULL);
	assert_int_equal(b.len, 0);
	buf_release(&b);
	free(back);
	json_decref(j);
}

/* Set `key` of the sample's JSON to `v` (NULL: remove it) and expect
 * CRS_EINPUT with `want` in the message. */
static void refused(const char *key, json_t *v, const char *want)
{
	struct run_saturation *back = (void *)1;
	json_t *j = run_saturation_to_json(&sample);

	if (v)
		json_object_set_new(j, key, v);
	else
		json_object_del(j, key);
	assert_int_equal(run_saturation_from_json(&back, j, "r.json"),
			 CRS_EINPUT);
	assert_null(back);
	assert_non_null(strstr(crs_error_last(), want));
	crs_error_clear();
	json_decref(j);
}

static void test_malformed(void **state)
{
	struct run_saturation *back = NULL;
	json_t *arr = json_array();

	(void)state;
	refused("window_seconds", NULL, "r.json: saturation.window_seconds: "
		"missing");
	refused("fuzzed_seconds", json_string("94"), "saturation."
		"fuzzed_seconds: expected a number of seconds");
	refused("harnesses", json_real(2.5), "saturation.harnesses: "
		"expected a count");
	refused("lines_total", json_integer(-1), "saturation.lines_total");
	refused("lines_reached", json_integer(1000000000), "saturation."
		"lines_reached");
	refused("harnesses_saturated", json_integer(3), "more harnesses "
		"saturated");
	refused("lines_reached", json_integer(40), "lines reached");
	refused("lines_around_removals", json_integer(1), "r.json: "
		"saturation.lines_around_removals: expected true or false");
	refused("guard_weakened", json_string("yes"), "r.json: "
		"saturation.guard_weakened: expected true or false");
	refused("share_seconds", json_real(-3), "saturation.share_seconds: "
		"expected a number of seconds");
	assert_int_equal(run_saturation_from_json(&back, arr, NULL),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "results.json: saturation: "
			       "expected an object"));
	crs_error_clear();
	json_decref(arr);
}

/* A record written before lines_around_removals was: changed lines; one
 * written before share_seconds and guard_weakened were: 0 and false. */
static void test_around_removals_optional(void **state)
{
	struct run_saturation *back = NULL;
	struct run_saturation around = sample;
	json_t *j = run_saturation_to_json(&sample);

	(void)state;
	json_object_del(j, "lines_around_removals");
	json_object_del(j, "share_seconds");
	json_object_del(j, "guard_weakened");
	assert_int_equal(run_saturation_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back->around_removals, 0);
	assert_int_equal(back->guard_weakened, 0);
	assert_true(back->share_s == 0);
	free(back);
	json_decref(j);
	around.around_removals = 1;
	j = run_saturation_to_json(&around);
	assert_true(json_is_true(json_object_get(j, "lines_around_removals")));
	assert_int_equal(run_saturation_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back->around_removals, 1);
	free(back);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_and_line),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_around_removals_optional),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
