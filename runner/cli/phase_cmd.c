/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phase_cmd.c - the body every phase command row of cmd_table.c runs
 *
 * scan, prepare, build-target, run, report and check differ only in
 * their struct phase_cmd (usage, needs, phase); this runs any of them.
 */
#include "runner/cli/phase_cmd.h"
#include "runner/cli/cmd.h"
#include "runner/cli/interrupt.h"
#include "runner/scan/scan.h"
#include "runner/cli/scan_opts_parse.h"
#include "common/error.h"
#include "common/log.h"

#include <stdio.h>

int phase_cmd_fail(int r)
{
	if (r == CRS_EINTR)
		log_error("interrupted by signal %d; containers and networks "
			  "of this scan were removed", interrupt_signal());
	else	/* a build's last output lines stay lines */
		log_error_lines("%s", crs_error_last());
	return r == CRS_EINTR ? 130 : exit_code_for(r);
}

int phase_cmd_exec(const struct phase_cmd *pc, int argc, char **argv,
		   struct runner_ctx *ctx)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	struct scan *s = NULL;
	int r, code = EXIT_OK;

	r = scan_opts_parse(&o, argc, argv, pc->usage, ctx->out, ctx->err);
	if (r == 1)
		return EXIT_OK;
	if (r != 0)
		return EXIT_USAGE;
	if ((r = scan_open(&s, &o, ctx, pc->needs)) == 0)
		r = pc->fn ? pc->fn(s, &code) : pc->step(s);
	if (r == 0 && scan_interrupted(s))
		r = crs_error_set(CRS_EINTR, "interrupted");
	scan_close(s);
	scan_opts_release(&o);
	if (r != 0)
		return phase_cmd_fail(r);
	return code;
}
