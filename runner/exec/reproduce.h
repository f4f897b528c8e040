/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce.h - run one input N times on one of crs-ci's own builds
 *
 * Shared by triage and patch validation; fresh base-runner container
 * without network. Only <tdir>/io is bound, and never bound again.
 *
 * Details: docs/work-folder.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_REPRODUCE_H
#define CRS_RUNNER_EXEC_REPRODUCE_H

#include <stddef.h>

/* the scan, not an exec_ctx: its sanitizer and --reproduce-runs */
struct scan;
struct crash_report;

#define REPRODUCE_LOG_MAX (4u << 20)	/* bytes of one run's log parsed */

/* What N runs of one input showed. */
struct repro_verdict {
	struct crash_report *report;	/* of the first matching run */
	char *signature;	/* the one most runs agree on; NULL: no crash */
	char *log_path;		/* that run's log, for messages only */
	char *log;		/* its text (NUL-terminated), log_len bytes */
	size_t log_len;
	int reproduced, attempts;
};

/*
 * Run `testcase` s->opts->reproduce_runs times (3 at most when it times
 * out) with <work>/builds/<sanitizer>/<which>/out/<harness>; each run's
 * output goes to <tdir>/io/run.<i>.log (tdir must exist; io is made
 * anew). 0, CRS_ECONFLICT/CRS_EINPUT for a bad layout, or the
 * container_run error (CRS_ETIMEOUT, CRS_EINTR, CRS_EENGINE).
 */
int reproduce_run(struct scan *s, const char *harness, const char *testcase,
		  const char *which, const char *tdir);

/* As reproduce_run, with the harness in `out_dir` (any build's out/). */
int reproduce_run_in(struct scan *s, const char *harness,
		     const char *testcase, const char *out_dir,
		     const char *tdir);

/*
 * Read <tdir>/io/run.1..runs.log into *v (zeroed first): the signature
 * most runs agree on, how many runs showed it, and that run's log. Each
 * log is read with fs_read_regular_at (no link, no FIFO, at most
 * REPRODUCE_LOG_MAX bytes); an unreadable one counts as no attempt.
 * Cannot fail.
 */
void reproduce_read_runs(struct repro_verdict *v, const char *tdir, int runs,
			 const char *harness);

/* Free the verdict's fields and zero it. */
void repro_verdict_release(struct repro_verdict *v);

#endif
