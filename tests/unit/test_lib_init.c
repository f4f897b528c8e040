/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_lib_init.c - libcurl and libgit2 initialised once, on demand
 * (runner/cli/lib_init.c)
 *
 * Nothing runs before the first call; many threads asking at once get
 * one initialisation of each library, and every caller sees it done.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/cli/lib_init.h"

#include <git2.h>
#include <pthread.h>

static void *ask(void *arg)
{
	int *ok = arg;

	*ok = lib_init_all() == 0 && git_libgit2_features() != 0;
	return NULL;
}

static void test_once_across_threads(void **st)
{
	enum { THREADS = 8 };
	pthread_t th[THREADS];
	int ok[THREADS] = { 0 };

	(void)st;
	assert_int_equal(lib_init_runs(), 0);	/* nothing at start */
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, ask, &ok[i]), 0);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_true(ok[i]);
	}
	assert_int_equal(lib_init_runs(), 2);	/* libcurl, libgit2 */
	lib_init_git();
	assert_int_equal(lib_init_curl(), 0);
	assert_int_equal(lib_init_runs(), 2);
	lib_init_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_across_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
