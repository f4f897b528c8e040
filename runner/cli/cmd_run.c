/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_run.c - crs-ci run: select harnesses, run the CRSs against the last
 * build, then triage and patch validation
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/shard.h"
#include "runner/phase/phase.h"

#include <stdio.h>

static int run(struct scan *s, int *exit_code)
{
	int r;

	*exit_code = 0;
	if ((r = phase_select(s)) != 0 || (r = phase_shard(s)) != 0 ||
	    (r = phase_run(s)) != 0)
		return r;
	if ((r = phase_triage(s)) != 0)
		return r;
	return phase_validate(s);
}

int cmd_run(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd(argc, argv, ctx, "usage: crs-ci run --compose FILE "
			 "[--project DIR] [--source DIR] [--work-dir DIR] "
			 "[--out DIR]\n",
			 SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			 SCAN_NEED_ENGINE | SCAN_NEED_CHANGE, run);
}
