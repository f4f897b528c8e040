/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctx.h - what the command line hands the services: streams, exit codes
 *
 * The services (everything in runner/ outside runner/cli/) include this
 * instead of runner/cli/cmd.h, so they never depend on the command line
 * (docs/CodingGuidelines.md, the layering rule; make check-layers).
 */
#ifndef CRS_RUNNER_SCAN_CTX_H
#define CRS_RUNNER_SCAN_CTX_H

#include <stdio.h>

struct runner_ctx {
	FILE *out;		/* the product: verdict, JSON */
	FILE *err;		/* usage errors */
	volatile int *interrupted;	/* set by SIGINT/SIGTERM */
};

enum exit_code {
	EXIT_OK = 0,		/* nothing fails the policy */
	EXIT_FINDINGS = 1,	/* findings fail the policy (--fail-on) */
	EXIT_USAGE = 2,		/* usage or configuration error */
	EXIT_INFRA = 3,		/* engine unreachable, target does not build */
	EXIT_INCOMPLETE = 4,	/* none fail, but a selected harness was
				   fuzzed less than it was due */
};

/* Map a CRS_E* code to an exit code: config/input 2, others 3. */
int exit_code_for(int r);
/*
 * The exit code of a verdict (sarif/finding.h enum finding_verdict) under
 * --fail-on: FAIL 1, INCOMPLETE 4 (0 with "none"), PASS 0.
 */
int report_exit_code(int verdict, const char *fail_on);

#define CRS_CI_VERSION "0.1.0"
/*
 * The commit a release binary was built from: container/release/release.sh
 * compiles a clean tree with -DCRS_CI_COMMIT=<40 hex digits>, a bare token
 * (no quotes to carry through make and docker). "" in every other build.
 */
#define CRS_CI_STRINGIFY(x) #x
#define CRS_CI_EXPAND_STRING(x) CRS_CI_STRINGIFY(x)
#ifdef CRS_CI_COMMIT
#define CRS_CI_COMMIT_STR CRS_CI_EXPAND_STRING(CRS_CI_COMMIT)
#else
#define CRS_CI_COMMIT_STR ""
#endif

#endif
