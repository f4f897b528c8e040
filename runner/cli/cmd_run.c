/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_run.c - crs-ci run: select harnesses, run the CRSs against the last
 * build, then triage and patch validation
 *
 * The phases and their order live in phase/pipeline.c
 * (phase_scan_prove); this file is the command line around them.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

int cmd_run(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd_step(argc, argv, ctx, "usage: crs-ci run --compose "
			      "FILE [--project DIR] [--source DIR] "
			      "[--work-dir DIR] [--out DIR]\n",
			      SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			      SCAN_NEED_ENGINE | SCAN_NEED_CHANGE,
			      phase_scan_prove);
}
