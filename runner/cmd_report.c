/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_report.c - crs-ci report: SARIF and the verdict from results.json
 */
#include "runner/cmd.h"
#include "runner/phase_cmd.h"
#include "runner/scan.h"
#include "runner/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

int cmd_report(int argc, char **argv, struct runner_ctx *ctx)
{
	static char full[4096];

	snprintf(full, sizeof(full), "usage: crs-ci report [--out DIR] "
		 "[--fail-on new|any|none]\n\noptions:\n%s", scan_opts_help);
	return phase_cmd(argc, argv, ctx, full, 0, phase_report);
}
