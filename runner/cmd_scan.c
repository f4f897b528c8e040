/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_scan.c - crs-ci scan: every phase of one scan under one deadline
 *
 * prepare -> build-target -> run -> triage -> report. The run phase keeps
 * a reserve of the deadline for triage and the report, so what was proved
 * before the deadline is still reported.
 */
#include "runner/cmd.h"
#include "runner/cache.h"
#include "runner/phase_cmd.h"
#include "runner/scan.h"
#include "runner/scan_opts.h"
#include "runner/phase/phase.h"
#include "common/log.h"

#include <stdio.h>

static const char usage[] =
"usage: crs-ci scan --compose FILE --project DIR [--source DIR]\n"
"                   [--base REV [--head REV] | --diff FILE] [options]\n"
"\nRun the CRSs of the compose file against the OSS-Fuzz project built\n"
"from the change's head, prove every crash, and write results.json,\n"
"results.sarif and the verdict.\n\noptions:\n";

static int scan_phases(struct scan *s, int *exit_code)
{
	int r;

	if ((r = cache_restore_images(s)) != 0 || (r = phase_prepare(s)) != 0 ||
	    (r = phase_build_target(s)) != 0 || (r = phase_select(s)) != 0 ||
	    (r = phase_run(s)) != 0 || (r = phase_triage(s)) != 0 ||
	    (r = phase_report(s, exit_code)) != 0)
		return r;
	return cache_save_images(s);
}

int cmd_scan(int argc, char **argv, struct runner_ctx *ctx)
{
	static char full[4096];

	snprintf(full, sizeof(full), "%s%s", usage, scan_opts_help);
	return phase_cmd(argc, argv, ctx, full,
			 SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			 SCAN_NEED_ENGINE | SCAN_NEED_CHANGE, scan_phases);
}
