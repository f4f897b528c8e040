/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_time_shares.c - harness weights, weighted shares, the reclaiming
 * of unused time, and the triage reserve sized by what was found
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/scan/time_shares.h"

#include <math.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_weights(void **state)
{
	(void)state;
	NEAR(time_share_weight(TIME_SHARE_EQUAL, 7, 7, 39), 1.0);
	NEAR(time_share_weight(TIME_SHARE_REACHED, 31, 39, 39), 31.0);
	/* reach unknown: as if it executed every instrumented line */
	NEAR(time_share_weight(TIME_SHARE_UNKNOWN, 0, 0, 39), 39.0);
	NEAR(time_share_weight(TIME_SHARE_UNKNOWN, 12, 12, 39), 39.0);
	/* binary only: a quarter of the lines its build holds */
	NEAR(time_share_weight(TIME_SHARE_BINARY, 0, 39, 39), 9.75);
	NEAR(time_share_weight(TIME_SHARE_BINARY, 0, 0, 40), 10.0);
	/* never zero: a selected harness always gets a share */
	NEAR(time_share_weight(TIME_SHARE_BINARY, 0, 0, 0), 0.25);
	NEAR(time_share_weight(TIME_SHARE_REACHED, 0, 0, 0), 0.25);
}

/* defining the touched functions raises a weight by the part defined */
static void test_held_bonus(void **state)
{
	(void)state;
	NEAR(time_share_held(45, 1, 3), 60.0);
	NEAR(time_share_held(11.25, 1, 3), 15.0);
	NEAR(time_share_held(9.75, 2, 2), 19.5);	/* all: twice */
	NEAR(time_share_held(31, 0, 4), 31.0);		/* none: as it was */
	NEAR(time_share_held(31, 0, 0), 31.0);		/* none touched */
	NEAR(time_share_held(31, 5, 4), 62.0);		/* never past twice */
}

static void test_order(void **state)
{
	double w[] = { 9.75, 31, 1, 31, 39 };
	size_t order[5];

	(void)state;
	time_share_order(order, w, 5);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 1);	/* ties keep their order */
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 0);
	assert_int_equal(order[4], 2);
}

static void test_shares_weighted(void **state)
{
	double w[] = { 31, 9.75 };
	double eq[] = { 1, 1, 1, 1 };

	(void)state;
	/* the demo: fuzz_records then fuzz_text, 200 s to split */
	NEAR(time_share_of(200, w, 0, 2), 200 * 31 / 40.75);
	/* the last harness takes all that is left */
	NEAR(time_share_of(47.8, w, 1, 2), 47.8);
	/* equal weights: equal shares, as before */
	NEAR(time_share_of(400, eq, 0, 4), 100);
	NEAR(time_share_of(300, eq, 1, 4), 100);
}

/*
 * The first harness stops after 5 s of its 152 s (its CRS found a PoV):
 * the next one gets what was left, not only its own weighted part.
 */
static void test_unused_time_goes_on(void **state)
{
	double w[] = { 31, 9.75, 9.75 };
	double left = 300, first, second;

	(void)state;
	first = time_share_of(left, w, 0, 3);
	NEAR(first, 300 * 31 / 50.5);
	left -= 5;		/* it ran 5 s of its share */
	second = time_share_of(left, w, 1, 3);
	NEAR(second, 295 / 2.0);
	assert_true(second > 300 * 9.75 / 50.5);
}

static void test_shares_floor_and_cap(void **state)
{
	double w[] = { 100, 1 };
	double z[] = { 0, 0 };

	(void)state;
	/* a small weight still gets the minimum a run is worth */
	NEAR(time_share_of(200, (double[]){ 1, 100 }, 0, 2), TIME_SHARE_MIN_S);
	/* but never more than what is left */
	NEAR(time_share_of(6, w, 1, 2), 6);
	NEAR(time_share_of(0, w, 0, 2), 0);
	NEAR(time_share_of(-3, w, 0, 2), 0);
	NEAR(time_share_of(50, w, 2, 2), 0);
	/* zero weights fall back to equal parts */
	NEAR(time_share_of(100, z, 0, 2), 50);
}

static void test_reserve(void **state)
{
	(void)state;
	/* nothing found: the small fixed reserve, whatever the deadline */
	NEAR(time_reserve(0, 0, 829), TIME_RESERVE_BASE_S);
	NEAR(time_reserve(0, 0, 40), TIME_RESERVE_BASE_S);
	/* grown by the PoVs to reproduce and the patches to validate */
	NEAR(time_reserve(3, 0, 829), TIME_RESERVE_BASE_S +
	     3 * TIME_RESERVE_POV_S);
	NEAR(time_reserve(1, 1, 829), TIME_RESERVE_BASE_S +
	     TIME_RESERVE_POV_S + TIME_RESERVE_PATCH_S);
	/* capped at a fifth of the window, and at 240 s */
	NEAR(time_reserve(100, 0, 400), 80);
	NEAR(time_reserve(1000, 10, 7200), TIME_RESERVE_MAX_S);
	/* the cap never cuts below the base */
	NEAR(time_reserve(1000, 0, 30), TIME_RESERVE_BASE_S);
	/* the clean 15-minute cJSON scan: 829 s left at the run
	 * kept 166 s before; now 20 s, so it fuzzes 809 s, 89.9 % of 900 */
	assert_true(829 - time_reserve(0, 0, 829) >= 0.85 * 900);
}

/* A corpus job's harness: 80 % of what is left, split, 30 s at least. */
static void test_corpus_share(void **state)
{
	(void)state;
	assert_true(fabs(time_share_corpus(300, 2) - 120) < 1e-9);
	assert_true(fabs(time_share_corpus(300, 1) - 240) < 1e-9);
	assert_true(fabs(time_share_corpus(50, 4) - 30) < 1e-9);
	assert_true(fabs(time_share_corpus(-5, 1) - 30) < 1e-9);
	assert_true(fabs(time_share_corpus(100, 0) - 80) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_corpus_share),
		cmocka_unit_test(test_held_bonus),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_shares_weighted),
		cmocka_unit_test(test_unused_time_goes_on),
		cmocka_unit_test(test_shares_floor_and_cap),
		cmocka_unit_test(test_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
