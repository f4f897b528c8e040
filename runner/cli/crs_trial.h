/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_trial.h - one CRS package built and run on the bundled example
 *
 * `crs-ci crs test DIR`: a compose for this machine (infrastructure on
 * CPU 0, the CRS on the others), the example's repository made fresh,
 * then the scan pipeline (runner/phase/) as `crs-ci scan` runs it, and
 * a report of what the CRS submitted and whether it kept the contract.
 */
#ifndef CRS_RUNNER_CLI_CRS_TRIAL_H
#define CRS_RUNNER_CLI_CRS_TRIAL_H

struct crslint;
struct runner_ctx;

struct crstrial_opts {
	const char *dir;	/* the package root */
	const char *example;	/* examples folder; NULL: next to crs-ci */
	const char *compose;	/* the author's compose; NULL: generated */
	const char *work_dir;
	const char *out_dir;
	long timeout_s;		/* the run, after the CRS is built */
	int keep_going;
	int base_images;	/* enum base_images_mode */
};
#define CRS_TRIAL_OPTS_INIT { .timeout_s = 120, \
	.work_dir = "crs-ci-work/crs-test", .out_dir = "crs-ci-out/crs-test" }

/*
 * Build and run the package `o->dir` whose lint (with its manifest) is
 * `lint`, print the report to ctx->out, and return the exit code: 0 the
 * contract was met, 1 the CRS ran but broke it or submitted nothing, 2
 * a usage or configuration error, 3 infrastructure.
 */
int crstrial_run(const struct crstrial_opts *o, const struct crslint *lint,
		 struct runner_ctx *ctx);

#endif
