/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_env.c - OSS-CRS container environment with the contract's layering
 *
 * Keys are set in order of increasing precedence into a small map; a later
 * set replaces an earlier value, so the layering is the order of calls.
 * User keys that try to set OSS_CRS_* are overridden by ours (OSS-CRS
 * warns ENV001/ENV002; the loader warns, this file enforces).
 */
#include "runner/exec/crs_env.h"
#include "runner/scan/scan_state.h"
#include "runner/config/config.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct env_map {
	char **keys, **vals;
	size_t nr, alloc;
};

static void env_set(struct env_map *m, const char *k, const char *v)
{
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->keys[i], k)) {
			free(m->vals[i]);
			m->vals[i] = xstrdup(v);
			return;
		}
	if (m->nr + 1 > m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 32;
		m->keys = xrealloc(m->keys, st_mult(m->alloc, sizeof(char *)));
		m->vals = xrealloc(m->vals, st_mult(m->alloc, sizeof(char *)));
	}
	m->keys[m->nr] = xstrdup(k);
	m->vals[m->nr++] = xstrdup(v);
}

static void env_layer(struct env_map *m, const struct config_env_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		env_set(m, l->items[i].key, l->items[i].value);
}

void crs_env_build(struct strvec *env, const struct scan_state *st,
		  const struct crs_env_args *a)
{
	struct env_map m = { 0 };
	char *svc = NULL;

	/* framework base values */
	env_set(&m, "HELPER", "True");
	env_set(&m, "RUN_FUZZER_MODE", "interactive");
	env_set(&m, "FUZZING_ENGINE", "libfuzzer");
	env_set(&m, "SANITIZER", st->sanitizer ? st->sanitizer : "address");
	env_set(&m, "ARCHITECTURE", "x86_64");
	env_set(&m, "FUZZING_LANGUAGE", st->language ? st->language : "c");
	env_set(&m, "PROJECT_NAME", st->project ? st->project : "");
	if (a->phase == CRSENV_RUN) {
		char t[32];

		/* crs-libfuzzer's knobs: defaults, the compose may override */
		if (a->stop_on_first_pov)
			env_set(&m, "STOP_ON_FIRST_POV", "1");
		if (a->time_limit_s > 0) {
			snprintf(t, sizeof(t), "%ld", a->time_limit_s);
			env_set(&m, "FUZZ_TIME", t);
		}
	}
	/* user layers */
	env_layer(&m, a->layer);
	env_layer(&m, &a->crs->env);
	/* framework-owned */
	env_set(&m, "OSS_CRS_NAME", a->crs->name);
	env_set(&m, "OSS_CRS_RUN_ENV_TYPE", "local");
	env_set(&m, "OSS_CRS_TARGET", st->project ? st->project : "");
	env_set(&m, "OSS_CRS_BUILD_OUT_DIR", "/OSS_CRS_BUILD_OUT_DIR");
	env_set(&m, "OSS_CRS_PROJ_PATH", "/OSS_CRS_PROJ_PATH");
	env_set(&m, "OSS_CRS_REPO_PATH", st->repo_path ? st->repo_path : "");
	env_set(&m, "OSS_CRS_FUZZ_PROJ", "/OSS_CRS_FUZZ_PROJ");
	env_set(&m, "OSS_CRS_TARGET_SOURCE", "/OSS_CRS_TARGET_SOURCE");
	if (a->has_fetch_dir || a->phase == CRSENV_RUN)
		env_set(&m, "OSS_CRS_FETCH_DIR", "/OSS_CRS_FETCH_DIR");
	if (a->harness)
		env_set(&m, "OSS_CRS_TARGET_HARNESS", a->harness);
	if (a->phase == CRSENV_BUILD_TARGET) {
		env_set(&m, "OSS_CRS_CURRENT_PHASE", "build-target");
		env_set(&m, "OSS_CRS_TARGET_PROJ_DIR", "/OSS_CRS_PROJ_PATH");
		env_set(&m, "OSS_CRS_BUILD_ID", a->build_id ? a->build_id : "");
	} else {
		svc = xasprintf("%s_%s", a->crs->name, a->module);
		env_set(&m, "OSS_CRS_CURRENT_PHASE", "run");
		env_set(&m, "OSS_CRS_SERVICE_NAME", svc);
		env_set(&m, "OSS_CRS_RUN_ID", a->run_id ? a->run_id : "");
		env_set(&m, "OSS_CRS_CPUSET",
			a->cpuset ? a->cpuset : a->crs->res.cpuset);
		env_set(&m, "OSS_CRS_MEMORY_LIMIT", a->crs->res.memory);
		env_set(&m, "OSS_CRS_REBUILD_OUT_DIR",
			"/OSS_CRS_REBUILD_OUT_DIR");
		env_set(&m, "OSS_CRS_SUBMIT_DIR", "/OSS_CRS_SUBMIT_DIR");
		env_set(&m, "OSS_CRS_SHARED_DIR", "/OSS_CRS_SHARED_DIR");
		env_set(&m, "OSS_CRS_LOG_DIR", "/OSS_CRS_LOG_DIR");
		env_set(&m, "BUILDER_MODULE", "builder-sidecar");
		env_set(&m, "CPUSET_CPUS",
			a->cpuset ? a->cpuset : a->crs->res.cpuset);
		if (a->time_limit_s > 0) {
			char t[32];

			snprintf(t, sizeof(t), "%ld", a->time_limit_s);
			env_set(&m, "CRS_CI_TIME_LIMIT", t);
		}
		if (a->llm_api_url) {
			env_set(&m, "OSS_CRS_LLM_API_URL", a->llm_api_url);
			env_set(&m, "OSS_CRS_LLM_API_KEY_FILE",
				CRS_ENV_LLM_KEY_FILE);
		}
	}
	for (size_t i = 0; i < m.nr; i++) {
		strvec_pushf(env, "%s=%s", m.keys[i], m.vals[i]);
		free(m.keys[i]);
		free(m.vals[i]);
	}
	free(m.keys);
	free(m.vals);
	free(svc);
}
