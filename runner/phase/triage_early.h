/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triage_early.h - the scan's first PoV reproduced as soon as it arrives
 *
 * Triage begins after the run; the first PoV need not wait for it. Once
 * a scan enables it, the first PoV the exchange copies is reproduced on
 * the head and base builds (reproduce_pov.h) in a thread of its own
 * while the run stops its CRSs and tears down; triage then reads those
 * runs instead of making them again.
 */
#ifndef CRS_RUNNER_PHASE_TRIAGE_EARLY_H
#define CRS_RUNNER_PHASE_TRIAGE_EARLY_H

#include <stddef.h>

struct scan;

/* This scan reproduces its first PoV early: phase_scan_prove, which
 * calls triage_early_end() on every path, turns it on. */
void triage_early_enable(struct scan *s);

/*
 * A PoV of `harness` with these bytes was copied into the exchange: the
 * first one of an enabled scan starts its reproductions now (its bytes
 * are written to <work>/triage/pov-<sha>, crs-ci's own), on infra's
 * cores, or on every core the compose owns when `all_cores` (the run
 * is ending: its last harness's CRSs stop at their first PoV). Cannot
 * fail: what cannot start is left to triage (a warning).
 */
void triage_early_start(struct scan *s, const char *harness,
			const void *data, size_t len, int all_cores);

/* 1 when the PoV `sha` of `harness` is (being) reproduced early. */
int triage_early_covers(const struct scan *s, const char *harness,
			const char *sha);

/*
 * When it is: wait for those reproductions and return their result (0,
 * or reproduce_pov's error with its message), *on_base as reproduce_pov
 * sets it. -1 when it is not: the caller reproduces it.
 */
int triage_early_take(struct scan *s, const char *harness, const char *sha,
		      int *on_base);

/* Wait for the early reproductions, if any, and forget them. */
void triage_early_end(struct scan *s);

#endif
