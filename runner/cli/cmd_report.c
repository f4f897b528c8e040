/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_report.c - crs-ci report: SARIF and the verdict from results.json
 *
 * Given the change (--base/--head or --diff), the CI reporters post only
 * the suggestions that lie inside it; without it they post none.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

int cmd_report(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd(argc, argv, ctx, "usage: crs-ci report [--out DIR] "
			 "[--fail-on new|any|none]\n"
			 "       [--base REV [--head REV] | --diff FILE]  (the "
			 "change: CI suggestions must lie in it)\n",
			 SCAN_NEED_CHANGE,
			 phase_report);
}
