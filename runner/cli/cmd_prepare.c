/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_prepare.c - crs-ci prepare: the CRS images, cached by content hash
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/phase/phase.h"

#include <stdio.h>

int cmd_prepare(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd_step(argc, argv, ctx, "usage: crs-ci prepare "
			      "--compose FILE [--work-dir DIR]\n",
			      SCAN_NEED_COMPOSE | SCAN_NEED_ENGINE,
			      phase_prepare);
}
