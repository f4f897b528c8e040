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

/*
 * Names a config may read from the environment beyond the fixed rule:
 * only ever from the trusted command line (--allow-env NAME). Borrowed.
 */
struct config_env_allow {
	const char *const *names;
	size_t nr;
};

/* ---- crs.yaml -------------------------------------------------------- */

enum manifest_type_flag {
	MANIFEST_TYPE_BUG_FINDING = 1 << 0,
	MANIFEST_TYPE_BUG_FIXING = 1 << 1,
	MANIFEST_TYPE_BUG_FIXING_ENSEMBLE = 1 << 2,
	MANIFEST_TYPE_BUG_FINDING_TRIAGE = 1 << 3,
	MANIFEST_TYPE_SEED_FILTER = 1 << 4,
	MANIFEST_TYPE_HARNESS_GEN = 1 << 5,
};

struct manifest_build_step {		/* target_build_phase[] */
	char *name;
	char *dockerfile;	/* relative to the CRS root */
	char **outputs;		/* relative to BUILD_OUT_DIR; NULL-terminated */
	size_t outputs_nr;
	struct config_env_list env;
	struct config_pos pos;		/* the list item */
	struct config_pos dockerfile_pos;
};

struct manifest_run_module {		/* crs_run_phase.<name> */
	char *name;
	char *dockerfile;
	int target_dependent;	/* default 1 */
	struct config_env_list env;
	struct config_pos pos;		/* the module's key */
	struct config_pos dockerfile_pos;
};

/*
 * String arrays (outputs, modes, ..., required_envs) are NULL-terminated
 * as well as counted. Positions point at the key of each field.
 */
struct manifest {
	char *path;		/* the crs.yaml file, as shown in messages */
	char *root;		/* CRS root: the folder holding oss-crs/ */
	char *name;
	struct config_pos name_pos;	/* the name key */
	char *version;
	unsigned types;		/* enum manifest_type_flag bits */
	char *prepare_hcl;	/* prepare_phase.hcl or NULL */
	struct manifest_build_step *builds;
	size_t builds_nr;
	struct manifest_run_module *modules;
	size_t modules_nr;
	/* supported_target */
	char **modes, **languages, **sanitizers, **architectures, **engines;
	size_t modes_nr, languages_nr, sanitizers_nr, architectures_nr,
		engines_nr;
	struct config_pos supported_pos;
	struct config_pos modes_pos, languages_pos, sanitizers_pos,
		architectures_pos, engines_pos;	/* engines: = supported_pos
						 * when defaulted */
	struct config_pos run_phase_pos;	/* the crs_run_phase key */
	char **required_llms, **required_inputs, **required_envs;
	size_t required_llms_nr, required_inputs_nr, required_envs_nr;
	struct config_pos *required_envs_pos;	/* one per required_envs */
};

/* ---- crs-compose.yaml ------------------------------------------------ */

struct compose_resources {
	char *cpuset;		/* "0-1,3", surrounding blanks removed */
	char *memory;		/* "4G" as written */
	int64_t memory_bytes;	/* binary units: 4G = 4 << 30 */
	double llm_budget;	/* dollars; < 0 when unset */
	struct config_pos cpuset_pos, memory_pos, budget_pos;
};

/* How a compose entry named its CRS (docs/crs-sources.md). */
enum compose_source_kind {
	COMPOSE_SOURCE_LOCAL,		/* source.local_path */
	COMPOSE_SOURCE_GIT,		/* source.url + source.ref */
	COMPOSE_SOURCE_REGISTRY,	/* no source: registry/<name>.yaml */
};

struct compose_crs {
	char *name;		/* the compose key */
	struct compose_resources res;
	enum compose_source_kind source_kind;
	/*
	 * The CRS root. local_path: resolved against the folder of the file
	 * that gave it (compose or registry file). git: set by
	 * compose_load() to the checkout (plus subdir) in the source cache.
	 */
	char *source_local_path;
	char *source_local_path_shown;	/* as given, joined to that file's
					 * folder: for messages */
	char *source_url, *source_ref;	/* git; url may hold credentials:
					 * show it with crs_git_url_shown */
	char *source_subdir;	/* git: the CRS folder in the repository */
	char *source_commit;	/* git: the commit checked out */
	char *registry_file;	/* registry entries: the file read; the
				 * source positions point into it */
	struct config_env_list env;
	struct manifest *manifest;	/* loaded by compose_load() */
	struct config_pos pos;		/* the entry's key */
	struct config_pos source_pos;	/* local_path or url key */
};

struct compose_llm {
	char *mode;		/* "internal", "external", or NULL */
	char *config_path;	/* resolved against the compose dir */
	char *url, *url_env, *key, *key_env;
	struct config_pos url_env_pos, key_env_pos;	/* their values */
	int model_check;	/* default 1 */
	struct config_pos pos;		/* the llm_config key */
	struct config_pos config_path_pos;
};

struct compose {
	char *path;		/* as given: every message shows it */
	char *dir;		/* folder of the compose file, absolute */
	char *run_env;		/* always "local" after a successful parse */
	char *docker_registry;
	struct compose_resources infra;
	struct compose_llm llm;
	int has_llm;
	int llm_disabled;	/* --no-llm: CRSs needing an LLM are skipped */
	struct config_env_allow allow_env;	/* --allow-env, by the caller */
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
	int from_file;		/* 0 when project.yaml was absent */
};

/* Largest config file read (compose, crs.yaml, project.yaml). */
#define CONFIG_FILE_MAX ((size_t)1 << 20)

/* Where compose_load() finds the CRSs that are not a local folder. */
struct compose_sources {
	/* the registry folder (crs_registry_dir()); NULL: no registry */
	const char *registry_dir;
	/* git checkouts go to <src_cache>/<commit id>/; NULL: git sources
	 * are refused */
	const char *src_cache;
};

/*
 * Parse a compose file, find each CRS (registry entries through
 * src->registry_dir, git sources checked out under src->src_cache; `src`
 * may be NULL) and load its crs.yaml, <root>/oss-crs/crs.yaml, without
 * following a link below the root. Returns 0, or CRS_ECONFIG with a
 * file:line:column message (an unknown registry name, an unreachable git
 * URL or an unknown ref included), or CRS_ERR when the cache cannot be
 * written. *out is owned by the caller (compose_free). Messages show
 * `path` as given, and crs.yaml paths as the compose path's folder joined
 * with local_path (registry: the registry file's folder; git: the
 * checkout).
 */
int compose_load(struct compose **out, const char *path,
		 const struct compose_sources *src);
#ifdef UNIT_TESTS
/*
 * Parse from memory (`name` is used in messages, and its folder resolves
 * relative paths); no crs.yaml loading, so every manifest is NULL.
 */
int compose_parse(struct compose **out, const char *buf, size_t len,
		  const char *name);
#endif
void compose_free(struct compose *c);

/*
 * A crs.yaml. root is the parent of the folder holding the file (for
 * `x/oss-crs/crs.yaml`, the absolute path of `x`).
 */
int manifest_load(struct manifest **out, const char *path);
int manifest_parse(struct manifest **out, const char *buf,
		   size_t len, const char *name);
void manifest_free(struct manifest *m);

/*
 * project.yaml in `dir` is optional; defaults apply when it is absent.
 * A present but malformed file is CRS_ECONFIG (OSS-CRS fell back to the
 * defaults with a warning). A missing `dir` is CRS_ECONFIG too.
 */
int project_config_load(struct project_config **out, const char *dir);
#ifdef UNIT_TESTS
/* `name` is the project.yaml path; its folder names the project. */
int project_config_parse(struct project_config **out, const char *buf,
			 size_t len, const char *name);
#endif
void project_config_free(struct project_config *p);
/*
 * What crs-ci builds with: the sanitizer is "address" if listed, else the
 * first; the engine "libfuzzer" if listed, else the first; the first
 * architecture. Borrowed from p; never NULL.
 */
const char *project_config_sanitizer(const struct project_config *p);
const char *project_config_engine(const struct project_config *p);
const char *project_config_architecture(const struct project_config *p);

/*
 * The checks OSS-CRS never made: supported_target against the project
 * (language, sanitizer, architecture, engine), cpusets against the CPUs
 * this machine has (`ncpus`; 0 = ask sysconf) and against each other,
 * Dockerfiles that exist. (Env var names, memory units and CPU list
 * syntax are already checked by the parsers.) `project` may be NULL
 * (then target checks are skipped). Reports the first problem.
 *
 * Order: infra and CRS cpusets (existence, then CRS-vs-CRS overlap; the
 * infra set may overlap), the LiteLLM config file, then per CRS in
 * compose order: supported_target (language, sanitizer, architecture,
 * engine), "no build steps and no run modules", each build step's and run
 * module's Dockerfile (a regular file inside the CRS root), required_envs
 * (the host environment, or an additional_env key of the compose entry, a
 * build step or a run module whose $VAR references are all set). CRSs
 * whose manifest is NULL (compose_parse) skip the per-CRS part. Returns 0
 * or CRS_ECONFIG.
 */
int config_check(const struct compose *c, const struct project_config *p,
		 int ncpus);
/*
 * One Dockerfile path of manifest `m` (a build step's or a run module's,
 * `field` and `pos` name it in messages): 0 when it is a regular file
 * inside the CRS root (links resolved), else CRS_ECONFIG.
 */
int config_check_dockerfile(const struct manifest *m,
			    const struct config_pos *pos,
			    const char *field, const char *dockerfile);

#ifdef UNIT_TESTS	/* a test seam, not in the product: cpuset masks */
/*
 * Parse a CPU list ("0-2,5"); sets bit i of *mask for CPU i (< 64).
 * CRS_ECONFIG with `"0-" is not a CPU list`-style messages (no location:
 * the caller prefixes it). *mask is set only on success.
 */
int config_parse_cpuset(const char *s, uint64_t *mask);
#endif

struct config_cpu_range {
	unsigned first, last;		/* inclusive */
};
/*
 * Parse a CPU list of any size (CPUs up to CONFIG_CPU_MAX) into ranges.
 * Blanks around the list are allowed. *out is xmalloc'ed, caller frees.
 * 0 or CRS_ECONFIG without a location, as config_parse_cpuset().
 */
#define CONFIG_CPU_MAX 8191
int config_cpuset_ranges(struct config_cpu_range **out, size_t *nr_out,
			 const char *s);

/*
 * Parse a memory size: a number, optional blanks, a unit B, K, KB, KiB,
 * M, MB, MiB, G, GB, GiB, T, TB, TiB in any case, all binary (K = 1024),
 * so Docker's "512m" works. No unit, an unknown unit, zero or more than
 * 2^62 bytes: CRS_ECONFIG without a location.
 */
int config_parse_memory(const char *s, int64_t *bytes);

/*
 * 1 when a config (compose url_env/key_env, LiteLLM os.environ/NAME) may
 * read environment variable `name`: a name listed in `allow` (may be
 * NULL), or one matching config_env_allow_rule (env_allow.c). Cannot fail.
 */
int config_env_allowed(const char *name,
		       const struct config_env_allow *allow);
/* The rule in words, for messages. */
extern const char config_env_allow_rule[];

/* 1 when `s` matches [A-Za-z_][A-Za-z0-9_]* (an environment name). */
int config_env_name_ok(const char *s);
/* 1 when `s` matches ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$ (a CRS name). */
int config_name_ok(const char *s);
/* Free a NULL-terminated string array. Accepts NULL. */
void config_strv_free(char **v);

#endif
