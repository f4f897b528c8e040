/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container_policy.c - the one table of what each container may do
 *
 * Every container starts with no capabilities and no-new-privileges;
 * each role gets back only what it was seen to need, plus pids and log
 * caps.
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

static const struct {
	const char *name;
	const char *const *caps;
	int pids;
	const char *log_max_size;
	int log_max_file;
} policy[] = {
	[ROLE_TARGET_BUILD] = { "target build", build_caps, 4096, "16m", 2 },
	[ROLE_CRS_BUILD] = { "CRS build step", build_caps, 4096, "16m", 2 },
	[ROLE_SNAPSHOT] = { "snapshot rebuild/test/PoV", build_caps, 4096,
			   "16m", 2 },
	[ROLE_CRS_RUN] = { "CRS run module", run_caps, 1024, "16m", 2 },
	[ROLE_INFRA] = { "select/triage/validate", infra_caps, 1024, "16m",
			 2 },
	[ROLE_GATEWAY] = { "LLM gateway", no_caps, 256, "16m", 2 },
};

void container_policy_apply(struct docker_run_opts *o,
			    enum container_role role)
{
	o->cap_add = policy[role].caps;
	o->pids_limit = policy[role].pids;
	o->log_max_size = policy[role].log_max_size;
	o->log_max_file = policy[role].log_max_file;
}
