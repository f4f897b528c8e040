/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation.h - when a harness has stopped gaining coverage of the change
 *
 * The plateau rule of --saturation: saturated once a replay of the
 * corpus taken `window` seconds after the last gain (a new line or branch
 * of the touched code, or new inputs that run it far more) shows none, and not
 * before the floor (runner/phase/saturation_watch.h replays it). Pure
 * logic. Details: docs/cmd/scan.md, "When the change is saturated".
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

/* The floor: a harness that reaches the touched code is not stopped
 * before this share of its time (a third), or this one when the change
 * weakens a guard (a half; diff/guards.h). */
#define SATURATION_FLOOR_DIVISOR 3
#define SATURATION_FLOOR_DIVISOR_GUARD 2

/* New inputs count as a gain when they run the touched code this many
 * times as often, per input, as the corpus before them did. */
#define SATURATION_HEAVIER 2

/* What one replay of a harness's corpus measured of the touched code. */
struct saturation_probe {
	size_t reached;		/* lines and branches of it that ran */
	unsigned long long runs; /* executions of its lines, summed */
	long inputs;		/* inputs replayed; -1: unknown */
};

/* What a replay showed (saturation_observe). */
enum saturation_gain {
	SATURATION_NO_GAIN = 0,
	SATURATION_GAIN_COVERAGE,	/* a new line or branch */
	SATURATION_GAIN_INPUTS,		/* new inputs that run the touched
					 * code SATURATION_HEAVIER times as
					 * often as the corpus did */
};

struct saturation {
	double window_s;	/* the plateau; <= 0: never saturated */
	double floor_s;		/* not before this many seconds of fuzzing
				 * once a replay reached the touched code */
	double min_s;		/* nor before this many in any case */
	double start_s;		/* scan seconds the harness began */
	double gain_at_s;	/* corpus time of the last gain (start_s
				 * before any) */
	double seen_at_s;	/* corpus time of the last replay; < 0: none */
	size_t reached;		/* most lines and branches of the touched
				 * code run */
	unsigned long long runs; /* most executions of its lines */
	long inputs;		/* most inputs replayed (-1: none known) */
};

/* The floor for a harness given `share_s` seconds: a third of it (a
 * half when `guard`). */
double saturation_floor(double share_s, int guard);

/*
 * Begin tracking a harness started at scan seconds `now`: saturated not
 * before `floor_s` seconds once its corpus reaches the touched code (a
 * value there may still be missing), not before `min_s` in any case (a
 * harness that never reaches the change has no value to find there).
 */
void saturation_begin(struct saturation *t, double window_s, double floor_s,
		      double min_s, double now);

/*
 * A replay of the corpus as it was at scan seconds `corpus_at` measured
 * `p`. A gain: more lines and branches than any replay before, or new
 * inputs (more than any replay before) that ran the touched code, per
 * input, SATURATION_HEAVIER times as often as the corpus before them
 * did: a fuzzer chasing a count or a length there, not a steady trickle
 * of inputs passing through. Replays may be passed out of order; an
 * older corpus never moves the times back.
 */
enum saturation_gain saturation_observe(struct saturation *t,
					double corpus_at,
					const struct saturation_probe *p);

/* 1 when the harness is saturated at scan seconds `now`. */
int saturation_reached(const struct saturation *t, double now);

/* Seconds without a gain that the replays have shown so far (0 when
 * none was measured). */
double saturation_plateau_s(const struct saturation *t);

/* Seconds from the end of one replay to the start of the next. */
double saturation_probe_every(const struct saturation *t);

#endif
