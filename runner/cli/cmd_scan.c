/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_scan.c - crs-ci scan: every phase of one scan under one deadline
 *
 * The phases and their order live in phase/pipeline.c; this file is the
 * command line around them.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

static const char usage[] =
"usage: crs-ci scan --compose FILE [--project DIR] [--source DIR]\n"
"                   [--base REV [--head REV] | --diff FILE] [options]\n"
"\nRun the CRSs of the compose file against the project built from the\n"
"change's head (an OSS-Fuzz project folder, or the source's\n"
".clusterfuzzlite/ when --project is omitted), prove every crash, and\n"
"write results.json, results.sarif and the verdict.\n";

int cmd_scan(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd(argc, argv, ctx, usage,
			 SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			 SCAN_NEED_ENGINE | SCAN_NEED_CHANGE, phase_scan_all);
}
