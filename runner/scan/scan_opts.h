/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts.h - the options shared by scan and its phase commands
 *
 * `crs-ci scan` and the phases it is made of (prepare, build-target, run,
 * report) take one option set, so a phase can be re-run alone with the
 * same command line. Parsing fills a caller-owned struct; nothing static.
 * Each option says which commands' help lists it.
 */
#ifndef CRS_RUNNER_SCAN_SCAN_OPTS_H
#define CRS_RUNNER_SCAN_SCAN_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scan_opts {
	const char *compose;
	const char *project;
	const char *source;	/* target source repository, default "." */
	const char *base;
	const char *head;
	const char *diff;	/* unified diff file */
	const char **harnesses;	/* --harness, repeatable */
	size_t harnesses_nr;
	const char **povs;	/* --pov, repeatable: known crashing inputs */
	size_t povs_nr;
	const char **sarifs;	/* --sarif, repeatable: bug-candidate logs */
	size_t sarifs_nr;
	const char *sanitizer;	/* --sanitizer, overrides project.yaml */
	long timeout_s;		/* whole scan */
	long fuzz_seconds;	/* --fuzz-seconds: total, all harnesses
				 * together; 0 without */
	long min_harness_seconds; /* --min-harness-seconds: each harness's
				   * minimum, 0 without */
	const char *out_dir;	/* NULL: state_dir_default() */
	const char *work_dir;	/* NULL: state_dir_default() */
	const char *cache_dir;
	int64_t cache_max;	/* --cache-max bytes; 0: CACHE_MAX_DEFAULT */
	const char *registry;	/* --registry: registry/<name>.yaml folder */
	const char *fail_on;	/* new | any | none */
	int reproduce_runs;
	int keep_going;		/* do not stop a CRS at its first PoV */
	/* --after-finding: AFTER_FINDING_DEFAULT, _CONTINUE (also
	 * --until-deadline), 0 (stop) or seconds (runner/scan/after_finding.h) */
	long after_finding_s;
	/* --saturation: the plateau in seconds, 0 off (--until-deadline);
	 * runner/scan/saturation.h */
	long saturation_s;
	int no_lend_cores;	/* --lend-cores no: CRSs keep to their cpuset */
	int no_llm;		/* no gateway; skip CRSs that need an LLM */
	unsigned shard_index;	/* --shard i/N: 1-based i, 0 without */
	unsigned shard_count;	/* N, 0 without --shard */
	/* --allow-env, repeatable: names a config may read beyond the
	 * provider-key rule */
	const char **allow_env;
	size_t allow_env_nr;
	/* --base-images or CRS_CI_BASE_IMAGES: pull (0, the default) or
	 * stand-in (runner/exec/base_images.h, enum base_images_mode) */
	int base_images;
	/* --report-timeouts no / --report-ooms no: such findings are
	 * triaged and listed as suppressed, but fail no policy and are no
	 * SARIF results (0, report them, is the default) */
	int hide_timeouts;
	int hide_ooms;
	const char *sarif_category;	/* --sarif-category, or NULL */
};
#define SCAN_OPTS_INIT { .source = ".", .timeout_s = 900, \
	.fail_on = "new", .reproduce_runs = 5, .after_finding_s = -2, \
	.saturation_s = 60, \
	.no_lend_cores = 1 }

/* The commands that take scan options (struct scan_opt.cmds). */
enum scan_cmd {
	SCAN_CMD_SCAN = 1 << 0,
	SCAN_CMD_CHECK = 1 << 1,
	SCAN_CMD_PREPARE = 1 << 2,
	SCAN_CMD_BUILD_TARGET = 1 << 3,
	SCAN_CMD_RUN = 1 << 4,
	SCAN_CMD_REPORT = 1 << 5,
	SCAN_CMD_HOOK = 1 << 6,
};

/* One scan option: its entry is all a new option needs besides its case
 * in scan_opts_parse. */
struct scan_opt {
	const char *name;	/* long name without "--" */
	const char *arg;	/* metavar (FILE, DIR: paths), NULL: a flag */
	int id;			/* getopt value */
	unsigned cmds;		/* enum scan_cmd bits: whose help lists it */
	const char *help;	/* lines separated by '\n', unindented */
};

/* The option table (borrowed, static); `*nr` entries. Cannot fail. */
const struct scan_opt *scan_opts_table(size_t *nr);

/* The SCAN_CMD_* bit of command `cmd`, 0 when it takes no scan options. */
unsigned scan_opts_cmd_bit(const char *cmd);

/* `synopsis`, then the options that apply to `cmd`, to `f`. */
void scan_opts_usage(FILE *f, const char *cmd, const char *synopsis);

/*
 * Parse argv (argv[0] is the command name). On -h prints `synopsis` and
 * the command's options (scan_opts_usage) to `out` and returns 1; on a
 * bad option prints one line to `err` (runner/cli/cli_usage.h) and returns
 * CRS_EINPUT; 0 on success. `o->harnesses`, `o->povs`, `o->sarifs` and
 * `o->allow_env` are allocated
 * (scan_opts_release).
 */
int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *synopsis, FILE *out, FILE *err);
void scan_opts_release(struct scan_opts *o);


/* "15m", "90s", "1h", "600" (seconds) -> seconds; CRS_EINPUT if bad. */
int parse_duration(const char *s, long *out);

#ifdef UNIT_TESTS
/*
 * Is `name` a --sarif-category: 1 to 100 characters of letters, digits
 * and . _ - / : = , not starting with '/'. Returns 0 or CRS_EINPUT.
 */
int scan_opts_check_category(const char *name);
#endif

#endif
