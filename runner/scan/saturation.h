/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation.h - when a harness has stopped gaining coverage of the change
 *
 * The plateau rule of --saturation: saturated once a replay of the
 * corpus taken `window` seconds or more after the last gain of lines or
 * branches of the touched code shows none (runner/phase/saturation_watch.h replays
 * it). Pure logic: the caller passes scan seconds. Details:
 * docs/cmd/scan.md, "When the change is saturated".
 */
#ifndef CRS_RUNNER_SCAN_SATURATION_H
#define CRS_RUNNER_SCAN_SATURATION_H

#include <stddef.h>

/* --saturation's default plateau, in seconds. */
#define SATURATION_WINDOW_DEFAULT_S 60
/* Seconds between the end of one replay and the start of the next: a
 * quarter of the window, within these. */
#define SATURATION_PROBE_MIN_S 5.0
#define SATURATION_PROBE_MAX_S 20.0

struct saturation {
	double window_s;	/* the plateau; <= 0: never saturated */
	double floor_s;		/* not before this many seconds of fuzzing */
	double start_s;		/* scan seconds the harness began */
	double gain_at_s;	/* corpus time of the last gain (start_s
				 * before any) */
	double seen_at_s;	/* corpus time of the last replay; < 0: none */
	size_t reached;		/* most lines and branches of the touched
				 * code run */
};

/* Begin tracking a harness started at scan seconds `now`. */
void saturation_begin(struct saturation *t, double window_s, double floor_s,
		      double now);

/*
 * A replay of the corpus as it was at scan seconds `corpus_at` ran
 * `reached` lines and branches of the touched code. Returns 1 when that is a gain
 * (more than any replay before), else 0. Replays may be passed out of
 * order; an older corpus never moves the times back.
 */
int saturation_observe(struct saturation *t, double corpus_at,
		       size_t reached);

/* 1 when the harness is saturated at scan seconds `now`. */
int saturation_reached(const struct saturation *t, double now);

/* Seconds without a gain that the replays have shown so far (0 when
 * none was measured). */
double saturation_plateau_s(const struct saturation *t);

/* Seconds from the end of one replay to the start of the next. */
double saturation_probe_every(const struct saturation *t);

#endif
