/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phase_cmd.h - what every phase command does around its phase
 *
 * Parse the shared options, open the scan with what the phase needs, run
 * the phase, print the error if any, close the scan (removing its
 * containers and networks) and map the result to an exit code.
 */
#ifndef CRS_RUNNER_CLI_PHASE_CMD_H
#define CRS_RUNNER_CLI_PHASE_CMD_H

struct runner_ctx;
struct scan;

typedef int (*phase_fn)(struct scan *s, int *exit_code);
/* A phase (or run of phases) with no exit code of its own: 0 on success. */
typedef int (*phase_step_fn)(struct scan *s);

/* The command around `fn`, whose exit code the command returns. */
int phase_cmd(int argc, char **argv, struct runner_ctx *ctx,
	      const char *usage, unsigned needs, phase_fn fn);
/* The command around `step`: exit 0 when it succeeds. */
int phase_cmd_step(int argc, char **argv, struct runner_ctx *ctx,
		   const char *usage, unsigned needs, phase_step_fn step);

/* Print "crs-ci: error: <message>" for r and return its exit code. */
int phase_cmd_fail(int r);

#endif
