/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts.h - the options shared by scan and its phase commands
 *
 * `crs-ci scan` and the phases it is made of (prepare, build-target, run,
 * report) take one option set, so a phase can be re-run alone with the
 * same command line. Parsing fills a caller-owned struct; nothing static.
 */
#ifndef CRS_RUNNER_SCAN_OPTS_H
#define CRS_RUNNER_SCAN_OPTS_H

#include <stddef.h>
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
	long fuzz_seconds;	/* --fuzz-seconds: per harness, 0 without */
	const char *out_dir;
	const char *work_dir;
	const char *cache_dir;
	const char *registry;	/* --registry: registry/<name>.yaml folder */
	const char *fail_on;	/* new | any | none */
	int reproduce_runs;
	int keep_going;		/* do not stop a CRS at its first PoV */
	int no_llm;		/* no gateway; skip CRSs that need an LLM */
	unsigned shard_index;	/* --shard i/N: 1-based i, 0 without */
	unsigned shard_count;	/* N, 0 without --shard */
	/* --allow-env, repeatable: names a config may read beyond the
	 * provider-key rule */
	const char **allow_env;
	size_t allow_env_nr;
	/* --base-images or CRS_CI_BASE_IMAGES: pull (0, the default) or
	 * stand-in (runner/base_images.h, enum base_images_mode) */
	int base_images;
};
#define SCAN_OPTS_INIT { .source = ".", .timeout_s = 900, \
	.out_dir = "crs-ci-out", .work_dir = "crs-ci-work", \
	.fail_on = "new", .reproduce_runs = 5 }

/*
 * Parse argv (argv[0] is the command name). On -h prints `usage` to
 * ctx_out and returns 1; on a bad option prints it to ctx_err and returns
 * CRS_EINPUT; 0 on success. `o->harnesses`, `o->povs`, `o->sarifs` and
 * `o->allow_env` are allocated
 * (scan_opts_release).
 */
int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *usage, FILE *out, FILE *err);
void scan_opts_release(struct scan_opts *o);

/* "15m", "90s", "1h", "600" (seconds) -> seconds; CRS_EINPUT if bad. */
int parse_duration(const char *s, long *out);

/* The usage text of the shared options, for each command's usage. */
extern const char scan_opts_help[];

#endif
