/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container_policy.h - what each kind of container crs-ci starts may do
 *
 * One table (container_policy.c) gives every role its capabilities, its
 * pids limit and its log cap; docker.c adds what holds for all of them
 * (CapDrop ALL, no-new-privileges, never privileged). docs/crs-authors.md
 * tells CRS authors what they may rely on.
 */
#ifndef CRS_RUNNER_EXEC_CONTAINER_POLICY_H
#define CRS_RUNNER_EXEC_CONTAINER_POLICY_H

struct docker_run_opts;

enum container_role {
	ROLE_TARGET_BUILD,	/* the target's compile (build.sh as root) */
	ROLE_CRS_BUILD,		/* a CRS build step */
	ROLE_SNAPSHOT,		/* from a build snapshot: the sidecar, validate */
	ROLE_CRS_RUN,		/* a CRS run module */
	ROLE_INFRA,		/* crs-ci's scripts: select, triage, validate */
	ROLE_GATEWAY,		/* the LLM gateway */
};

/* Set o->cap_add, o->pids_limit and the log cap for `role`. */
void container_policy_apply(struct docker_run_opts *o,
			    enum container_role role);

#endif
