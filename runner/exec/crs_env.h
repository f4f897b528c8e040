/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_env.h - the environment and mounts a CRS container gets
 *
 * One place computes the OSS-CRS contract's variables (oss-crs-contract.md
 * §3.1 build-target, §3.2 run) with the contract's precedence: framework
 * base values < build step / module additional_env < compose entry
 * additional_env < framework-owned OSS_CRS_* values.
 */
#ifndef CRS_RUNNER_EXEC_CRS_ENV_H
#define CRS_RUNNER_EXEC_CRS_ENV_H

struct scan_state;
struct strvec;
struct compose_crs;
struct config_env_list;

enum crs_env_phase { CRSENV_BUILD_TARGET, CRSENV_RUN };

struct crs_env_args {
	enum crs_env_phase phase;
	const struct compose_crs *crs;
	const struct config_env_list *layer;	/* step/module additional_env */
	const char *module;			/* run: module name */
	const char *harness;			/* run: harness or NULL */
	const char *build_id;			/* build-target */
	const char *run_id;			/* run */
	int has_fetch_dir;
	/* run: defaults a compose's additional_env may override */
	int stop_on_first_pov;			/* STOP_ON_FIRST_POV=1 */
	long time_limit_s;			/* FUZZ_TIME, and the framework's
						   CRS_CI_TIME_LIMIT */
	const char *cpuset;	/* run: the CPUs it runs on when they are
				 * more than its compose cpuset (infra's
				 * lent), else NULL */
	const char *llm_api_url;	/* run: the LLM gateway's URL, or
					 * NULL when the compose has no
					 * llm_config (no OSS_CRS_LLM_*) */
};

/* Where a run module finds its own LLM key (mounted read-only there). */
#define CRS_ENV_LLM_KEY_FILE "/run/secrets/oss_crs_llm_api_key"

/* Fill `env` with KEY=VALUE strings. Cannot fail. */
void crs_env_build(struct strvec *env, const struct scan_state *st,
		  const struct crs_env_args *a);

#endif
