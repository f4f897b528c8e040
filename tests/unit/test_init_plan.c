/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_init_plan.c - cpusets and memory of `crs-ci init`'s compose
 *
 * The layouts for 1, 2, 3, 4 and 16 cores (infra core 0, crs-libfuzzer
 * the next, crs-aflpp the rest from 3 cores on), the memory of a stated
 * runner size (--cpus) and of a machine, which never exceeds what it
 * has, and the compose spelling of sizes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/init/init_plan.h"
#include "runner/config/config.h"

#include <stdint.h>

static void assert_layout(unsigned cpus, const char *lf, const char *afl)
{
	struct init_plan p;
	uint64_t infra = 0, m_lf = 0, m_afl = 0;

	init_plan_make(&p, cpus, 0);
	assert_int_equal(p.cpus, cpus ? cpus : 1);
	assert_string_equal(p.infra_cpuset, "0");
	assert_string_equal(p.libfuzzer_cpuset, lf);
	assert_string_equal(p.aflpp_cpuset, afl);
	/* what crs-ci's own compose checks accept */
	assert_int_equal(config_parse_cpuset(p.infra_cpuset, &infra), 0);
	assert_int_equal(config_parse_cpuset(p.libfuzzer_cpuset, &m_lf), 0);
	assert_int_equal(infra, 1);
	if (afl[0]) {
		assert_int_equal(config_parse_cpuset(p.aflpp_cpuset, &m_afl),
				 0);
		assert_int_equal(m_lf & m_afl, 0);	/* CRSs never share */
		assert_true(p.aflpp_mb > 0);
	} else {
		assert_int_equal(p.aflpp_mb, 0);
	}
}

static void test_layouts(void **st)
{
	(void)st;
	assert_layout(1, "0", "");	/* libfuzzer shares the infra core */
	assert_layout(2, "1", "");
	assert_layout(3, "1", "2");
	assert_layout(4, "1", "2-3");
	assert_layout(16, "1", "2-15");
	assert_layout(0, "0", "");	/* unknown: one CPU */
}

static void test_runner_memory(void **st)
{
	struct init_plan p;

	(void)st;
	/* GitHub's private runner: 2 CPUs, 7 GiB assumed */
	init_plan_make(&p, 2, 0);
	assert_int_equal(p.total_mb, 2 * INIT_PLAN_MB_PER_CPU);
	assert_int_equal(p.infra_mb, 1536);
	assert_int_equal(p.libfuzzer_mb, 4096);
	/* the public one: 4 CPUs */
	init_plan_make(&p, 4, 0);
	assert_int_equal(p.infra_mb, 2048);
	assert_int_equal(p.libfuzzer_mb, 3584);
	assert_int_equal(p.aflpp_mb, 7424);
}

static void test_memory_fits(void **st)
{
	static const unsigned cpus[] = { 1, 2, 3, 4, 16, 64 };
	static const unsigned long long mem[] = {
		1024, 2048, 4096, 7168, 16384, 65536, 262144,
	};
	struct init_plan p;

	(void)st;
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		for (size_t j = 0; j < sizeof(mem) / sizeof(mem[0]); j++) {
			unsigned long long sum;

			init_plan_make(&p, cpus[i], mem[j]);
			sum = p.infra_mb + p.libfuzzer_mb + p.aflpp_mb;
			assert_true(p.infra_mb >= 256 && p.libfuzzer_mb >= 256);
			assert_int_equal(p.infra_mb % 256, 0);
			assert_int_equal(p.libfuzzer_mb % 256, 0);
			assert_int_equal(p.aflpp_mb % 256, 0);
			/* small machines get the minimum sizes: 768 MiB */
			assert_true(sum <= mem[j] || sum <= 768 +
				    (p.aflpp_mb ? p.aflpp_mb : 0));
			if (mem[j] >= 4096)
				assert_true(sum <= mem[j] - 1024);
			assert_true(p.infra_mb <= 2048);
			assert_true(p.libfuzzer_mb <= 4096);
		}
	}
	/* a big machine: per core at most 4 GiB, infra 2 GiB */
	init_plan_make(&p, 16, 65536);
	assert_int_equal(p.infra_mb, 2048);
	assert_int_equal(p.libfuzzer_mb, 4096);
	assert_int_equal(p.aflpp_mb, 14 * 4096);
}

static void test_mem_str(void **st)
{
	char s[32];
	int64_t bytes = 0;

	(void)st;
	init_plan_mem_str(s, 2048);
	assert_string_equal(s, "2G");
	init_plan_mem_str(s, 1536);
	assert_string_equal(s, "1536M");
	assert_int_equal(config_parse_memory(s, &bytes), 0);
	assert_int_equal(bytes, 1536ll << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_runner_memory),
		cmocka_unit_test(test_memory_fits),
		cmocka_unit_test(test_mem_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
