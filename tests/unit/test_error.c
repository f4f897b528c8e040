/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_error.c - the per-thread error message (common/error.c)
 *
 * A new message may quote the old one (crs_error_set with
 * crs_error_last() as an argument): the old text appears once, whole,
 * inside the new; crs_error_prefix prepends; clear empties.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "common/error.h"

#include <string.h>

static void test_set_quotes_the_old_message(void **state)
{
	(void)state;
	crs_error_set(CRS_EINPUT, "--project is required: '%s' has no "
		      ".clusterfuzzlite/ folder", "/repo");
	assert_int_equal(crs_error_set(CRS_ECONFIG, "no project (%s). Add one",
				       crs_error_last()), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "no project (--project is "
			    "required: '/repo' has no .clusterfuzzlite/ "
			    "folder). Add one");
	assert_int_equal(crs_error_code(), CRS_ECONFIG);
}

static void test_prefix_and_clear(void **state)
{
	(void)state;
	crs_error_set(CRS_ENOTFOUND, "no such file");
	assert_int_equal(crs_error_prefix("--compose '%s'", "x.yaml"),
			 CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(), "--compose 'x.yaml': no such "
			    "file");
	crs_error_clear();
	assert_string_equal(crs_error_last(), "");
	assert_int_equal(crs_error_code(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_quotes_the_old_message),
		cmocka_unit_test(test_prefix_and_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
