/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_saturation.c - the plateau rule of --saturation: a gain resets
 * it, only a replay of a corpus taken a window after the last gain ends
 * it, the floor holds, out-of-order replays, and the probe period
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/scan/saturation.h"

#include <math.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_no_replay_no_saturation(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 100);
	assert_false(saturation_reached(&t, 1000));
	NEAR(saturation_plateau_s(&t), 0);
}

static void test_plateau_after_window(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 100);
	assert_true(saturation_observe(&t, 110, 5));
	assert_true(saturation_observe(&t, 130, 9));
	assert_false(saturation_observe(&t, 150, 9));
	assert_false(saturation_reached(&t, 200));
	/* 59 s after the gain: not yet, whatever the clock says now */
	assert_false(saturation_observe(&t, 189, 9));
	assert_false(saturation_reached(&t, 400));
	NEAR(saturation_plateau_s(&t), 59);
	assert_false(saturation_observe(&t, 190, 9));
	assert_true(saturation_reached(&t, 195));
	assert_int_equal(t.reached, 9);
}

static void test_gain_resets(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 30, 0, 0);
	saturation_observe(&t, 25, 3);
	assert_true(saturation_observe(&t, 50, 4));
	assert_false(saturation_observe(&t, 70, 4));
	assert_false(saturation_reached(&t, 75));
	saturation_observe(&t, 80, 4);
	assert_true(saturation_reached(&t, 85));
}

static void test_nothing_reached_saturates_too(void **state)
{
	struct saturation t;

	(void)state;
	/* a harness that reaches none of the changed files' lines has
	 * reached what it can once the window has passed since its start */
	saturation_begin(&t, 20, 0, 10);
	assert_false(saturation_observe(&t, 20, 0));
	assert_false(saturation_reached(&t, 25));
	assert_false(saturation_observe(&t, 30, 0));
	assert_true(saturation_reached(&t, 31));
}

static void test_floor_holds(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 10, 120, 0);
	saturation_observe(&t, 15, 2);
	saturation_observe(&t, 30, 2);
	assert_false(saturation_reached(&t, 60));
	assert_false(saturation_reached(&t, 119));
	assert_true(saturation_reached(&t, 120));
}

static void test_off(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 0, 0, 0);
	saturation_observe(&t, 500, 1);
	saturation_observe(&t, 5000, 1);
	assert_false(saturation_reached(&t, 6000));
}

static void test_out_of_order(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 30, 0, 0);
	saturation_observe(&t, 40, 7);
	/* an older corpus showing less: no gain, no time moved back */
	assert_false(saturation_observe(&t, 20, 3));
	NEAR(t.gain_at_s, 40);
	NEAR(t.seen_at_s, 40);
	/* an older replay with more still counts as a gain, not later */
	assert_true(saturation_observe(&t, 35, 8));
	NEAR(t.gain_at_s, 40);
	saturation_observe(&t, 70, 8);
	assert_true(saturation_reached(&t, 70));
}

static void test_probe_every(void **state)
{
	struct saturation t;

	(void)state;
	saturation_begin(&t, 60, 0, 0);
	NEAR(saturation_probe_every(&t), 15);
	saturation_begin(&t, 8, 0, 0);
	NEAR(saturation_probe_every(&t), SATURATION_PROBE_MIN_S);
	saturation_begin(&t, 600, 0, 0);
	NEAR(saturation_probe_every(&t), SATURATION_PROBE_MAX_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_replay_no_saturation),
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
