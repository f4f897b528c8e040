/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timings.h - where a scan's seconds went: phases, builds, fuzzing
 *
 * Spans recorded by any thread into <work>/timings.json; results.json
 * gets them as "timings". No call can fail.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_SCAN_TIMINGS_H
#define CRS_RUNNER_SCAN_TIMINGS_H

#include <jansson.h>

struct scan;
struct finding_set;

/*
 * Begin a span of `kind` named `name` now; its id for timing_end(), or -1
 * (timing_end(s, -1) does nothing). Thread-safe.
 */
int timing_begin(struct scan *s, const char *kind, const char *name);
/* The same with the harness it is about ("fuzz" and "replay" spans). */
int timing_begin_harness(struct scan *s, const char *kind, const char *name,
			 const char *harness);
/* End span `id` now and write the record. Thread-safe. */
void timing_end(struct scan *s, int id);

/*
 * Phase `name` begins now and the open phase span ends. A phase recorded
 * before is being re-run: its earlier span and every span that began
 * after it are dropped (and the clock restarts when nothing is left).
 * "prepare", the first phase, starts a new record unless this process
 * started one already (timing_restart). "report" in a process that
 * continues an earlier one's record (crs-ci report, later) starts where
 * the record ended: the scan's clock leaves out the time between. The
 * span ends at the next phase or when the scan is closed.
 */
void timing_phase(struct scan *s, const char *name);
/* A new scan (crs-ci scan, the pre-push hook): forget the old record. */
void timing_restart(struct scan *s);
/* A PoV reached crs-ci now; only the first of the record counts. */
void timing_first_pov(struct scan *s);

/*
 * Put the record into fs->timings, replacing what results.json had,
 * unless it holds nothing but the report phase: `crs-ci report` on the
 * results of a scan whose work folder is elsewhere keeps its timings,
 * and on the results of `crs-ci merge` adds none. Cannot fail.
 */
void timings_into(struct scan *s, struct finding_set *fs);

#endif
