/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exit_code.c - the one mapping from error codes to exit codes
 *
 * docs/decisions.md: 2 for usage and configuration errors, 3 for infrastructure
 * (engine, builds, I/O). 0, 1 (findings) and 4 (incomplete: a selected
 * harness got less fuzzing than it was due) are decided by the report
 * (report_exit_code).
 */
#include "runner/scan/ctx.h"
#include "common/error.h"
#include "sarif/finding.h"

#include <string.h>

int exit_code_for(int r)
{
	switch (r) {
	case 0: return EXIT_OK;
	case CRS_ECONFIG:
	case CRS_EINPUT: return EXIT_USAGE;
	default: return EXIT_INFRA;
	}
}

int report_exit_code(int v, const char *fail_on)
{
	switch (v) {
	case VERDICT_FAIL: return EXIT_FINDINGS;
	case VERDICT_INCOMPLETE:
		/* --fail-on none never fails, not even a short scan */
		return fail_on && !strcmp(fail_on, "none") ? EXIT_OK :
			EXIT_INCOMPLETE;
	default: return EXIT_OK;
	}
}
