/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phase_cmd.h - what every phase command does around its phase
 *
 * A phase command (scan, prepare, build-target, run, report, check) is
 * one row of the command table (cmd_table.c) whose struct phase_cmd says
 * its usage, what the scan must open and which phase to run. Parse the
 * shared options, open the scan with what the phase needs, run the
 * phase, print the error if any, close the scan (removing its containers
 * and networks) and map the result to an exit code.
 */
#ifndef CRS_RUNNER_CLI_PHASE_CMD_H
#define CRS_RUNNER_CLI_PHASE_CMD_H

struct runner_ctx;
struct scan;

typedef int (*phase_fn)(struct scan *s, int *exit_code);
/* A phase (or run of phases) with no exit code of its own: 0 on success. */
typedef int (*phase_step_fn)(struct scan *s);

/* One phase command: exactly one of fn and step is set. */
struct phase_cmd {
	const char *usage;	/* printed above the scan options */
	unsigned needs;		/* SCAN_NEED_* / SCAN_WANT_* for scan_open */
	phase_fn fn;		/* the command's exit code is fn's */
	phase_step_fn step;	/* exit 0 when step succeeds */
};

/* Run the phase command `pc` with its arguments; returns the exit code. */
int phase_cmd_exec(const struct phase_cmd *pc, int argc, char **argv,
		   struct runner_ctx *ctx);

/* Print "crs-ci: error: <message>" for r and return its exit code. */
int phase_cmd_fail(int r);

#endif
