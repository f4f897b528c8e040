/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_build_target.c - crs-ci build-target: target image, head build and
 * each CRS build step
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

int cmd_build_target(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd_step(argc, argv, ctx, "usage: crs-ci build-target "
			      "--compose FILE [--project DIR] [--source DIR] "
			      "[--head REV]\n",
			      SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			      SCAN_NEED_ENGINE | SCAN_NEED_CHANGE,
			      phase_build_target);
}
