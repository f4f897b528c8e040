/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container_policy.c - the one table of what each container may do
 *
 * Every container starts from nothing: docker.c sends CapDrop ["ALL"],
 * SecurityOpt ["no-new-privileges"] and Privileged false for all of them.
 * A role gets back only the capabilities it was seen to need:
 *
 *  - builds (the target's compile, CRS build steps, the sidecar's rebuild,
 *    test and PoV containers and validation, which start from a build
 *    snapshot) run
 *    build.sh, apt-style install steps and test suites as root over
 *    folders owned by the scan's user: CHOWN, DAC_OVERRIDE, FOWNER and
 *    FSETID to write, chown and chmod there; SETUID and SETGID so a build
 *    or test may drop to another user (su, setpriv, make install -o); KILL
 *    to stop what it started as that user.
 *  - CRS run modules: the same file access (their folders belong to the
 *    scan's user), SETUID/SETGID/KILL for fuzzers that drop privileges.
 *  - crs-ci's own scripts (select, triage, validate, PoV reproduction)
 *    only read and write their bind mounts: DAC_OVERRIDE and FOWNER.
 *  - the gateway runs as the scan's user and only serves HTTP on :4000.
 *
 * Never granted: MKNOD, NET_RAW, NET_BIND_SERVICE, SETFCAP, SETPCAP,
 * SYS_CHROOT, AUDIT_WRITE (Docker's other defaults). LeakSanitizer's
 * stop-the-world ptrace()s its own threads, which needs no capability
 * (same user, same process). Pids: a build runs make -j and compilers
 * (4096); a runner runs fuzzers and agents (1024); crs-ci's own scripts
 * and the gateway far fewer. The log cap keeps the engine's json-file log
 * of a container under 2 x 16 MiB however much it prints.
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
