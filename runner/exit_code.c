/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exit_code.c - the one mapping from error codes to exit codes
 *
 * DESIGN.md: 2 for usage and configuration errors, 3 for infrastructure
 * (engine, builds, I/O). 0 and 1 (findings) are decided by the report.
 */
#include "runner/cmd.h"
#include "common/error.h"

int exit_code_for(int r)
{
	switch (r) {
	case 0: return EXIT_OK;
	case CRS_ECONFIG:
	case CRS_EINPUT: return EXIT_USAGE;
	default: return EXIT_INFRA;
	}
}
