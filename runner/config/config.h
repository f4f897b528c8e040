/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h - crs-compose.yaml, crs.yaml and project.yaml as plain structs
 *
 * Loaded with libyaml (compose_load.c, crs_manifest.c, project_yaml.c) and
 * validated in config_check.c. Every error names file:line:column and the
 * field, e.g. `compose.yaml:14:3: cpuset "0-" is not a CPU list`, and
 * returns CRS_ECONFIG. The schema follows the OSS-CRS contract
 * (reference/oss-crs-contract.md §1, §2, §2.8); where OSS-CRS did not check
 * something (§11), config_check() does.
 */
#ifndef CRS_RUNNER_CONFIG_CONFIG_H
#define CRS_RUNNER_CONFIG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* Where a value came from, for messages (1-based). */
struct config_pos {
	const char *file;	/* borrowed from the owning config */
	int line;
	int column;
};

struct config_env {		/* one KEY=VALUE of an additional_env map */
	char *key;
	char *value;
	struct config_pos pos;
};

struct config_env_list {
	struct config_env *items;
	size_t nr;
};

/* ---- crs.yaml -------------------------------------------------------- */

enum crs_type_flag {
	CRS_TYPE_BUG_FINDING = 1 << 0,
	CRS_TYPE_BUG_FIXING = 1 << 1,
	CRS_TYPE_BUG_FIXING_ENSEMBLE = 1 << 2,
	CRS_TYPE_BUG_FINDING_TRIAGE = 1 << 3,
	CRS_TYPE_SEED_FILTER = 1 << 4,
	CRS_TYPE_HARNESS_GEN = 1 << 5,
};

struct crs_build_step {		/* target_build_phase[] */
	char *name;
	char *dockerfile;	/* relative to the CRS root */
	char **outputs;		/* relative to BUILD_OUT_DIR */
	size_t outputs_nr;
	struct config_env_list env;
	struct config_pos pos;
};

struct crs_run_module {		/* crs_run_phase.<name> */
	char *name;
	char *dockerfile;
	int target_dependent;	/* default 1 */
	struct config_env_list env;
	struct config_pos pos;
};

struct crs_manifest {
	char *path;		/* the crs.yaml file */
	char *root;		/* CRS root: the folder holding oss-crs/ */
	char *name;
	char *version;
	unsigned types;		/* enum crs_type_flag bits */
	char *prepare_hcl;	/* prepare_phase.hcl or NULL */
	struct crs_build_step *builds;
	size_t builds_nr;
	struct crs_run_module *modules;
	size_t modules_nr;
	/* supported_target */
	char **modes, **languages, **sanitizers, **architectures, **engines;
	size_t modes_nr, languages_nr, sanitizers_nr, architectures_nr,
		engines_nr;
	struct config_pos supported_pos;
	char **required_llms, **required_inputs, **required_envs;
	size_t required_llms_nr, required_inputs_nr, required_envs_nr;
};

/* ---- crs-compose.yaml ------------------------------------------------ */

struct compose_resources {
	char *cpuset;		/* "0-1,3" */
	char *memory;		/* "4G" as written */
	int64_t memory_bytes;
	double llm_budget;	/* dollars; < 0 when unset */
	struct config_pos cpuset_pos, memory_pos, budget_pos;
};

struct compose_crs {
	char *name;		/* the compose key */
	struct compose_resources res;
	char *source_local_path;	/* resolved against the compose dir */
	char *source_url, *source_ref;
	struct config_env_list env;
	struct crs_manifest *manifest;	/* loaded by compose_load() */
	struct config_pos pos;
};

struct compose_llm {
	char *mode;		/* "internal", "external", or NULL */
	char *config_path;
	char *url, *url_env, *key, *key_env;
	int model_check;
	struct config_pos pos;
};

struct compose {
	char *path;
	char *dir;		/* folder of the compose file, absolute */
	char *run_env;
	char *docker_registry;
	struct compose_resources infra;
	struct compose_llm llm;
	int has_llm;
	struct compose_crs *crs;
	size_t crs_nr;
};

/* ---- project.yaml (OSS-Fuzz) ---------------------------------------- */

struct project_config {
	char *dir;		/* the OSS-Fuzz project folder, absolute */
	char *name;		/* last path component of dir */
	char *language;		/* default "c" */
	char **sanitizers;	/* default { "address" } */
	size_t sanitizers_nr;
	char **engines;		/* default { "libfuzzer" } */
	size_t engines_nr;
	char **architectures;	/* default { "x86_64" } */
	size_t architectures_nr;
	char *main_repo;
	char *base_os_version;	/* default "legacy" */
};

/*
 * Parse a compose file and each CRS's crs.yaml (from source.local_path,
 * <local_path>/oss-crs/crs.yaml). Returns 0 or CRS_ECONFIG with a
 * file:line:column message. *out is owned by the caller (compose_free).
 */
int compose_load(struct compose **out, const char *path);
/* Parse from memory (`name` is used in messages); no crs.yaml loading. */
int compose_parse(struct compose **out, const char *buf, size_t len,
		  const char *name);
void compose_free(struct compose *c);

int crs_manifest_load(struct crs_manifest **out, const char *path);
int crs_manifest_parse(struct crs_manifest **out, const char *buf,
		       size_t len, const char *name);
void crs_manifest_free(struct crs_manifest *m);

/* project.yaml in `dir` is optional; defaults apply when it is absent. */
int project_config_load(struct project_config **out, const char *dir);
int project_config_parse(struct project_config **out, const char *buf,
			 size_t len, const char *name);
void project_config_free(struct project_config *p);

/*
 * The checks OSS-CRS never made: supported_target against the project
 * (language, sanitizer, architecture, engine), cpusets against the CPUs
 * this machine has (`ncpus`; 0 = ask sysconf) and against each other,
 * env var names, memory units, Dockerfiles that exist. `project` may be
 * NULL (then target checks are skipped). Reports the first problem.
 */
int config_check(const struct compose *c, const struct project_config *p,
		 int ncpus);

/* Parse a CPU list ("0-2,5"); sets bit i of *mask for CPU i (< 64). */
int config_parse_cpuset(const char *s, uint64_t *mask);

#endif
