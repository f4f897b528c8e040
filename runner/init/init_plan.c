/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_plan.c - CPU sets and memory of the compose `crs-ci init` writes
 *
 * Core 0 is the orchestrator's (target builds, PoV reproduction, the
 * gateway); libFuzzer runs one process, so one core is all it uses; AFL++
 * takes whatever is left. Memory: 1 GiB is left to the system, the infra
 * gets a quarter of the rest (512 MiB to 2 GiB), and the CRSs share what
 * remains by cores, at most 4 GiB per core, in 256 MiB steps.
 */
#include "runner/init/init_plan.h"

#include <stdio.h>
#include <string.h>

#define MB_STEP 256ull
#define MB_SYSTEM 1024ull
#define MB_INFRA_MIN 512ull
#define MB_INFRA_MAX 2048ull
#define MB_CORE_MAX 4096ull

static unsigned long long step_down(unsigned long long mb)
{
	mb -= mb % MB_STEP;
	return mb < MB_STEP ? MB_STEP : mb;
}

void init_plan_make(struct init_plan *out, unsigned cpus,
		    unsigned long long mem_mb)
{
	unsigned long long usable, per_core;
	unsigned crs_cores;

	memset(out, 0, sizeof(*out));
	out->cpus = cpus ? cpus : 1;
	out->total_mb = mem_mb ? mem_mb :
		(unsigned long long)out->cpus * INIT_PLAN_MB_PER_CPU;
	snprintf(out->infra_cpuset, sizeof(out->infra_cpuset), "0");
	snprintf(out->libfuzzer_cpuset, sizeof(out->libfuzzer_cpuset), "%u",
		 out->cpus > 1 ? 1u : 0u);
	if (out->cpus >= 4)
		snprintf(out->aflpp_cpuset, sizeof(out->aflpp_cpuset),
			 "2-%u", out->cpus - 1);
	else if (out->cpus == 3)
		snprintf(out->aflpp_cpuset, sizeof(out->aflpp_cpuset), "2");

	usable = out->total_mb > 2 * MB_SYSTEM ? out->total_mb - MB_SYSTEM :
		out->total_mb / 2;
	out->infra_mb = usable / 4;
	if (out->infra_mb < MB_INFRA_MIN)
		out->infra_mb = MB_INFRA_MIN;
	if (out->infra_mb > MB_INFRA_MAX)
		out->infra_mb = MB_INFRA_MAX;
	out->infra_mb = step_down(out->infra_mb);
	crs_cores = out->cpus > 1 ? out->cpus - 1 : 1;
	per_core = usable > out->infra_mb ?
		(usable - out->infra_mb) / crs_cores : 0;
	if (per_core > MB_CORE_MAX)
		per_core = MB_CORE_MAX;
	out->libfuzzer_mb = step_down(per_core);
	if (out->aflpp_cpuset[0])
		out->aflpp_mb = step_down(per_core * (out->cpus - 2));
}

void init_plan_mem_str(char out[32], unsigned long long mb)
{
	if (mb % 1024 == 0)
		snprintf(out, 32, "%lluG", mb / 1024);
	else
		snprintf(out, 32, "%lluM", mb);
}
