/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_plan.h - how `crs-ci init` lays the bundled CRSs over the CPUs
 *
 * Pure arithmetic (no I/O), so the layout for any machine or CI runner
 * size is unit-tested: oss_crs_infra gets core 0, crs-libfuzzer the next
 * core, crs-aflpp all the rest when there are at least 3 cores. Memory is
 * shared out from the machine's total, or from a runner's assumed total
 * when only a CPU count is known.
 */
#ifndef CRS_RUNNER_INIT_INIT_PLAN_H
#define CRS_RUNNER_INIT_INIT_PLAN_H

/* The memory `init --cpus N` assumes per CPU when the machine's is unknown:
 * GitHub's runners have 7 GB for 2 CPUs (private), 16 GB for 4 (public). */
#define INIT_PLAN_MB_PER_CPU 3584u

struct init_plan {
	unsigned cpus;			/* CPUs laid out (at least 1) */
	unsigned long long total_mb;	/* memory shared out, MiB */
	char infra_cpuset[32];		/* "0" */
	char libfuzzer_cpuset[32];	/* "1", or "0" on one CPU */
	char aflpp_cpuset[32];		/* "2-N", or "" (no aflpp) */
	unsigned long long infra_mb, libfuzzer_mb, aflpp_mb; /* 0: none */
};

/*
 * Lay out `cpus` CPUs (0 counts as 1) and `mem_mb` MiB of memory (0: the
 * default of a runner with `cpus` CPUs, INIT_PLAN_MB_PER_CPU each). On
 * one CPU infra and crs-libfuzzer share core 0 (only the infra set may
 * overlap another). Cannot fail.
 */
void init_plan_make(struct init_plan *out, unsigned cpus,
		    unsigned long long mem_mb);

/* `mb` as a compose memory size: "2G" when whole GiB, else "1536M". */
void init_plan_mem_str(char out[32], unsigned long long mb);

#endif
