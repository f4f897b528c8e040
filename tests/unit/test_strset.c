/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_strset.c - the hashed string set (common/strset.c)
 *
 * Membership through many growths, duplicates added once, the empty set
 * and the empty string, and release to the initial state.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/strset.h"

#include <stdio.h>

static void test_add_and_has(void **st)
{
	struct strset set = STRSET_INIT;
	char key[32];

	(void)st;
	assert_false(strset_has(&set, "x"));
	for (int i = 0; i < 100000; i++) {
		snprintf(key, sizeof(key), "seeds/%d", i);
		assert_int_equal(strset_add(&set, key), 1);
	}
	for (int i = 0; i < 100000; i++) {
		snprintf(key, sizeof(key), "seeds/%d", i);
		assert_true(strset_has(&set, key));
		assert_int_equal(strset_add(&set, key), 0);
	}
	assert_int_equal(set.nr, 100000);
	assert_false(strset_has(&set, "seeds/100000"));
	assert_false(strset_has(&set, ""));
	assert_int_equal(strset_add(&set, ""), 1);
	assert_true(strset_has(&set, ""));
	strset_release(&set);
	assert_int_equal(set.nr, 0);
	assert_false(strset_has(&set, "seeds/1"));
	strset_release(&set);	/* twice: a no-op */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
