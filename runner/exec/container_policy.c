/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container_policy.c - the one table of what each container may do
 *
 * Every container starts with no capabilities and no-new-privileges;
 * each role gets back only what it was seen to need, plus pids and log
 * caps; crs-ci's own weigh 8 times a CRS, which the run lends infra's
 * cores (--lend-cores), so they take those cores back when they run.
 *
 * Details: docs/crs-authors.md; design notes: docs/internals.md.
 */
#include "runner/exec/container_policy.h"
#include "runner/engine/docker.h"

#define BUILD_CAPS "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", \
	"SETUID", "SETGID", "KILL"

static const char *const build_caps[] = { BUILD_CAPS, NULL };
static const char *const run_caps[] = { BUILD_CAPS, NULL };
static const char *const infra_caps[] = { "DAC_OVERRIDE", "FOWNER", NULL };
static const char *const no_caps[] = { NULL };

#define OWN_CPU_SHARES 8192	/* the engine's default is 1024 */

static const struct {
	const char *name;
	const char *const *caps;
	int pids;
	const char *log_max_size;
	int log_max_file;
	int cpu_shares;		/* 0: the engine's default */
} policy[] = {
	[ROLE_TARGET_BUILD] = { "target build", build_caps, 4096, "16m", 2,
				0 },
	[ROLE_CRS_BUILD] = { "CRS build step", build_caps, 4096, "16m", 2, 0 },
	[ROLE_SNAPSHOT] = { "snapshot rebuild/test/PoV", build_caps, 4096,
			   "16m", 2, OWN_CPU_SHARES },
	[ROLE_CRS_RUN] = { "CRS run module", run_caps, 1024, "16m", 2, 0 },
	[ROLE_INFRA] = { "select/triage/validate", infra_caps, 1024, "16m",
			 2, OWN_CPU_SHARES },
	[ROLE_GATEWAY] = { "LLM gateway", no_caps, 256, "16m", 2,
			   OWN_CPU_SHARES },
};

void container_policy_apply(struct docker_run_opts *o,
			    enum container_role role)
{
	o->cap_add = policy[role].caps;
	o->pids_limit = policy[role].pids;
	o->log_max_size = policy[role].log_max_size;
	o->log_max_file = policy[role].log_max_file;
	o->cpu_shares = policy[role].cpu_shares;
}
