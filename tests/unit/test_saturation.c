/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_saturation.c - the plateau rule of --saturation: a gain resets
 * it (new lines or branches, or new inputs that run the touched code),
 * only a replay of a corpus taken a window after the last gain ends it,
 * the floor holds and follows the share and the change, out-of-order
 * replays, and the probe period
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/scan/saturation.h"

#include <math.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* A replay that measured only lines and branches. */
static enum saturation_gain obs(struct saturation *t, double at,
				size_t reached)
{
	struct saturation_probe p = { reached, 0, -1 };

	return saturation_observe(t, at, &p);
}

/* A replay of `inputs` inputs that ran the touched lines `runs` times. */
static enum saturation_gain obs_inputs(struct saturation *t, double at,
				       size_t reached, unsigned long long runs,
				       long inputs)
{
	struct saturation_probe p = { reached, runs, inputs };

	return saturation_observe(t, at, &p);
}

static void test_new_inputs_that_run_the_code_gain(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 0, 0);
	assert_int_equal(obs_inputs(&t, 10, 9, 100, 40),
			 SATURATION_GAIN_COVERAGE);
	/* every line covered; 4 new inputs ran it 80 times, 20 each, where
	 * the corpus ran it 2.5 times per input: a count or a length the
	 * fuzzer is still after */
	assert_int_equal(obs_inputs(&t, 50, 9, 180, 44),
			 SATURATION_GAIN_INPUTS);
	NEAR(t.gain_at_s, 50);
	/* 46 more inputs that never reach the code: no gain */
	assert_int_equal(obs_inputs(&t, 80, 9, 180, 90), SATURATION_NO_GAIN);
	/* a steady trickle: 10 inputs at the corpus's 2 runs each */
	assert_int_equal(obs_inputs(&t, 95, 9, 200, 100), SATURATION_NO_GAIN);
	/* the same inputs run differently (a nondeterministic harness): no
	 * gain either, the input count did not grow */
	assert_int_equal(obs_inputs(&t, 100, 9, 400, 100),
			 SATURATION_NO_GAIN);
	assert_false(saturation_reached(&t, 105));
	assert_int_equal(obs_inputs(&t, 110, 9, 400, 100), SATURATION_NO_GAIN);
	assert_true(saturation_reached(&t, 110));
	/* one heavy input among 9 that pass by: 4 runs each where the
	 * corpus had 4 per input: no gain; 1 input with 100 runs: a gain */
	assert_int_equal(obs_inputs(&t, 120, 9, 440, 110), SATURATION_NO_GAIN);
	assert_int_equal(obs_inputs(&t, 130, 9, 540, 111),
			 SATURATION_GAIN_INPUTS);
	/* an unknown input count never gains by inputs */
	saturation_begin(&t, 60, 0, 0, 0);
	assert_int_equal(obs_inputs(&t, 10, 0, 50, -1), SATURATION_NO_GAIN);
}

static void test_floor_follows_share_and_guard(void **state)
{
	struct saturation t;

	(void)state;
	NEAR(saturation_floor(417, 0), 139);
	NEAR(saturation_floor(417, 1), 208.5);
	/* the floor holds once the corpus reaches the touched code */
	saturation_begin(&t, 10, 100, 30, 0);
	obs(&t, 20, 4);
	obs(&t, 40, 4);
	assert_false(saturation_reached(&t, 99));
	assert_true(saturation_reached(&t, 100));
	/* a corpus that never reaches it: only --min-harness-seconds */
	saturation_begin(&t, 10, 100, 30, 0);
	obs(&t, 20, 0);
	assert_false(saturation_reached(&t, 29));
	assert_true(saturation_reached(&t, 30));
}

static void test_no_replay_no_saturation(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 0, 100);
	assert_false(saturation_reached(&t, 1000));
	NEAR(saturation_plateau_s(&t), 0);
}

static void test_plateau_after_window(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 0, 100);
	assert_true(obs(&t, 110, 5));
	assert_true(obs(&t, 130, 9));
	assert_false(obs(&t, 150, 9));
	assert_false(saturation_reached(&t, 200));
	/* 59 s after the gain: not yet, whatever the clock says now */
	assert_false(obs(&t, 189, 9));
	assert_false(saturation_reached(&t, 400));
	NEAR(saturation_plateau_s(&t), 59);
	assert_false(obs(&t, 190, 9));
	assert_true(saturation_reached(&t, 195));
	assert_int_equal(t.reached, 9);
}

static void test_gain_resets(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 30, 0, 0, 0);
	obs(&t, 25, 3);
	assert_true(obs(&t, 50, 4));
	assert_false(obs(&t, 70, 4));
	assert_false(saturation_reached(&t, 75));
	obs(&t, 80, 4);
	assert_true(saturation_reached(&t, 85));
}

static void test_nothing_reached_saturates_too(void **state)
{
	struct saturation t;

	(void)state;
	/* a harness that reaches none of the changed files' lines has
	 * reached what it can once the window has passed since its start */
	saturation_begin(&t, 20, 0, 0, 10);
	assert_false(obs(&t, 20, 0));
	assert_false(saturation_reached(&t, 25));
	assert_false(obs(&t, 30, 0));
	assert_true(saturation_reached(&t, 31));
}

static void test_floor_holds(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 10, 120, 0, 0);
	obs(&t, 15, 2);
	obs(&t, 30, 2);
	assert_false(saturation_reached(&t, 60));
	assert_false(saturation_reached(&t, 119));
	assert_true(saturation_reached(&t, 120));
}

static void test_off(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 0, 0, 0, 0);
	obs(&t, 500, 1);
	obs(&t, 5000, 1);
	assert_false(saturation_reached(&t, 6000));
}

static void test_out_of_order(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 30, 0, 0, 0);
	obs(&t, 40, 7);
	/* an older corpus showing less: no gain, no time moved back */
	assert_false(obs(&t, 20, 3));
	NEAR(t.gain_at_s, 40);
	NEAR(t.seen_at_s, 40);
	/* an older replay with more still counts as a gain, not later */
	assert_true(obs(&t, 35, 8));
	NEAR(t.gain_at_s, 40);
	obs(&t, 70, 8);
	assert_true(saturation_reached(&t, 70));
}

static void test_probe_every(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 0, 0);
	NEAR(saturation_probe_every(&t), 15);
	saturation_begin(&t, 8, 0, 0, 0);
	NEAR(saturation_probe_every(&t), SATURATION_PROBE_MIN_S);
	saturation_begin(&t, 600, 0, 0, 0);
	NEAR(saturation_probe_every(&t), SATURATION_PROBE_MAX_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_replay_no_saturation),
		cmocka_unit_test(test_new_inputs_that_run_the_code_gain),
		cmocka_unit_test(test_floor_follows_share_and_guard),
		cmocka_unit_test(test_plateau_after_window),
		cmocka_unit_test(test_gain_resets),
		cmocka_unit_test(test_nothing_reached_saturates_too),
		cmocka_unit_test(test_floor_holds),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_probe_every),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
