/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phase_cmd.c - shared wrapper of scan, prepare, build-target, run, report
 */
#include "runner/cli/phase_cmd.h"
#include "runner/cli/cmd.h"
#include "runner/cli/interrupt.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "common/error.h"
#include "common/log.h"

#include <stdio.h>

int phase_cmd_fail(int r)
{
	if (r == CRS_EINTR)
		log_error("interrupted by signal %d; containers and networks "
			  "of this scan were removed", interrupt_signal());
	else
		log_error("%s", crs_error_last());
	return r == CRS_EINTR ? 130 : exit_code_for(r);
}

/* The shared body: parse, open, run `fn` or `step`, close, map. */
static int phase_cmd_with(int argc, char **argv, struct runner_ctx *ctx,
			  const char *usage, unsigned needs, phase_fn fn,
			  phase_step_fn step)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	struct scan *s = NULL;
	int r, code = EXIT_OK;

	r = scan_opts_parse(&o, argc, argv, usage, ctx->out, ctx->err);
	if (r == 1)
		return EXIT_OK;
	if (r != 0)
		return EXIT_USAGE;
	if ((r = scan_open(&s, &o, ctx, needs)) == 0)
		r = fn ? fn(s, &code) : step(s);
	if (r == 0 && scan_interrupted(s))
		r = crs_error_set(CRS_EINTR, "interrupted");
	scan_close(s);
	scan_opts_release(&o);
	if (r != 0)
		return phase_cmd_fail(r);
	return code;
}

int phase_cmd(int argc, char **argv, struct runner_ctx *ctx,
	      const char *usage, unsigned needs, phase_fn fn)
{
	return phase_cmd_with(argc, argv, ctx, usage, needs, fn, NULL);
}

int phase_cmd_step(int argc, char **argv, struct runner_ctx *ctx,
		   const char *usage, unsigned needs, phase_step_fn step)
{
	return phase_cmd_with(argc, argv, ctx, usage, needs, NULL, step);
}
