/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mailbox_proto.c - the mailbox kind names (common/mailbox_proto.c)
 *
 * The names libCRS writes are the ones the sidecar parses back, and a
 * name a CRS made up (or a prefix, or the empty string) is no kind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/mailbox_proto.h"
#include "libcrs/libcrs.h"

static void test_round_trip(void **st)
{
	(void)st;
	for (int k = 0; k < MAILBOX_KINDS; k++)
		assert_int_equal(mailbox_kind_parse(mailbox_kind_name(k)), k);
	assert_string_equal(mailbox_kind_name(CRS_SIDECAR_POV), "run-pov");
	assert_string_equal(mailbox_kind_name(CRS_SIDECAR_PROJECT),
			    "build-project");
	assert_string_equal(mailbox_kind_name(MAILBOX_KINDS), "?");
	assert_string_equal(mailbox_kind_name(-1), "?");
}

static void test_unknown(void **st)
{
	static const char *const bad[] = {
		"", "run", "run-pov ", "RUN-POV", "apply-patch-build\n", "?",
		NULL
	};

	(void)st;
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(mailbox_kind_parse(bad[i]), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
