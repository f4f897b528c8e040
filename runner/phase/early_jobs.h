/* SPDX-License-Identifier: Apache-2.0 */
/*
 * early_jobs.h - later phases' work started as soon as its inputs exist
 *
 * The scan's first PoV is reproduced the moment the exchange copies it;
 * the corpus is replayed for the change's coverage the moment the last
 * harness's exchange has drained, while the run tears down. Each is a
 * background job (bg_job.h) whose result triage and the coverage phase
 * take instead of doing the work. Details: docs/internals.md.
 */
#ifndef CRS_RUNNER_PHASE_EARLY_JOBS_H
#define CRS_RUNNER_PHASE_EARLY_JOBS_H

#include <stddef.h>

struct scan;
struct change_cov;

/* This scan starts those jobs early: phase_scan_prove, which calls
 * early_jobs_end() on every path, turns it on. */
void early_jobs_enable(struct scan *s);

/*
 * A PoV of `harness` with these bytes, from CRS `crs`, was copied into
 * the exchange: the first one of an enabled scan starts its
 * reproductions now (its bytes
 * are written to <work>/triage/pov-<sha>, crs-ci's own), on infra's
 * cores, or on every core the compose owns when `all_cores` (the run is
 * ending: its last harness's CRSs stop at their first PoV). Cannot fail:
 * what cannot start is left to triage (a warning).
 */
void early_triage_start(struct scan *s, const char *harness,
			const char *crs, const void *data, size_t len,
			int all_cores);

/*
 * 1 once the early reproductions proved a finding that fails the policy
 * (--fail-on, not hidden by --report-timeouts/--report-ooms no): *at the
 * scan seconds of the proof, `id` the finding's id, *announced whether
 * its annotation was printed then (GitHub Actions). 0 before or
 * without. Safe to call from the run loop while the job runs.
 */
int early_triage_proved(const struct scan *s, double *at, char id[17],
			int *announced);

/* 1 when the PoV `sha` of `harness` is (being) reproduced early. */
int early_triage_covers(const struct scan *s, const char *harness,
			const char *sha);

/*
 * When it is: wait for those reproductions and return their result (0,
 * or reproduce_pov's error with its message), *on_base as reproduce_pov
 * sets it. -1 when it is not: the caller reproduces it.
 */
int early_triage_take(struct scan *s, const char *harness, const char *sha,
		      int *on_base);

/*
 * No CRS runs any more and the run's corpus is final (the last harness's
 * exchange has drained): in diff mode, an enabled scan starts the
 * coverage replay (phase_change_coverage_measure) on every core the
 * compose owns. Cannot fail: what cannot start is done after triage.
 */
void early_coverage_start(struct scan *s);

/*
 * When it was started: wait for it, *out its measurement (the caller's),
 * and return its result (0 or CRS_EINTR). -1 when it was not.
 */
int early_coverage_take(struct scan *s, struct change_cov **out);

/* Wait for whatever was started and forget it; this thread's error
 * state is left as it was. */
void early_jobs_end(struct scan *s);

#endif
