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
	/* --corpus, repeatable: folders, archives, URLs
	 * (runner/corpus/corpus_source.h) */
	const char **corpora;
	size_t corpora_nr;
	const char *oss_fuzz_corpus;	/* --oss-fuzz-corpus NAME */
	const char *oss_fuzz_mirror;	/* --oss-fuzz-mirror URL */
	const char *corpus_store;	/* --corpus-store REPO */
	const char *corpus_store_branch; /* --corpus-store-branch */
	int batch;		/* --mode batch: grow the store */
	int prune;		/* --mode prune: minimize the store */
	int coverage_mode;	/* --mode coverage: the corpus's coverage */
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
	int no_cache_images;	/* --cache-images no: no image is loaded */
	const char *registry;	/* --registry: registry/<name>.yaml folder */
	const char *fail_on;	/* new | any | none */
	int reproduce_runs;
	long refuzz_s;		/* --refuzz-seconds: a patch's refuzz per harness */
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
	const char *llm_reason;	/* --llm-reason, or NULL */
	/* --disclose, checked; NULL: CRS_CI_DISCLOSE, then auto
	 * (runner/report/disclose.h) */
	const char *disclose;
};
#define SCAN_OPTS_INIT { .source = ".", .timeout_s = 900, \
	.fail_on = "new", .reproduce_runs = 5, .refuzz_s = 30, .after_finding_s = -2, \
	.saturation_s = 60, \
	.corpus_store_branch = "crs-ci-corpus" }

#endif
