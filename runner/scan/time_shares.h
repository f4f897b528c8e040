/* SPDX-License-Identifier: Apache-2.0 */
/*
 * time_shares.h - how the run phase splits the deadline: harness weights,
 * weighted shares, and the reserve kept for triage and the report
 *
 * Pure arithmetic (no I/O, no clock), so every rule is unit-tested; the
 * select phase computes each harness's weight, select.json carries it,
 * and the run phase turns weights and the time left into shares.
 * docs/select.md ("Time shares") states the rules.
 */
#ifndef CRS_RUNNER_SCAN_TIME_SHARES_H
#define CRS_RUNNER_SCAN_TIME_SHARES_H

#include <stddef.h>

/* Why a harness was selected, as far as its weight is concerned. */
enum time_share_basis {
	TIME_SHARE_EQUAL,	/* every harness kept for one reason */
	TIME_SHARE_REACHED,	/* its corpus executes changed lines */
	TIME_SHARE_UNKNOWN,	/* kept, reach not measured (source, new,
				 * no coverage) */
	TIME_SHARE_BINARY,	/* executes none, but its binary holds
				 * changed functions or lines */
};

/* A BINARY harness's weight, as a part of the lines it holds. */
#define TIME_SHARE_BINARY_PART 0.25
/* A harness due less than this is not started. */
#define TIME_SHARE_MIN_S 10.0

/*
 * The weight of one harness: EQUAL 1; REACHED the changed lines its
 * corpus executes (`hit_nr`); UNKNOWN `lines_nr`, the changed lines any
 * harness's build instruments (as if it executed them all); BINARY
 * TIME_SHARE_BINARY_PART of the changed lines its own build instruments
 * (`own_nr`), or of `lines_nr` when that is 0. Never below
 * TIME_SHARE_BINARY_PART. Cannot fail.
 */
double time_share_weight(enum time_share_basis basis, size_t hit_nr,
			 size_t own_nr, size_t lines_nr);

/*
 * `w` raised for a harness whose binary defines `held_nr` of the change's
 * `touched_nr` touched functions: w * (1 + held_nr / touched_nr), so one
 * that defines them all weighs twice one that defines none. `w` itself
 * when no function was touched or looked up. Cannot fail.
 */
double time_share_held(double w, size_t held_nr, size_t touched_nr);

/*
 * The run order: indexes of `w` (n weights) by descending weight, ties in
 * their given order, so the harness that reaches most runs first and
 * what it leaves unused goes to the others. Fills order[0..n-1].
 */
void time_share_order(size_t *order, const double *w, size_t n);

/*
 * The seconds due to the harness at run position `i` of `n` (weights in
 * run order in `w`), when `left` seconds remain for positions i..n-1:
 * its weighted part of `left` among them, raised to TIME_SHARE_MIN_S,
 * never more than `left` (0 when left is not positive). Recomputed at
 * each harness's turn, so time an earlier harness left unused goes to
 * the ones after it in proportion to their weights. Cannot fail.
 */
double time_share_of(double left, const double *w, size_t i, size_t n);

/* A corpus job's harnesses (--mode prune, coverage: no CRS, no triage) */
#define TIME_SHARE_CORPUS_PART 0.8	/* of what is left, kept the rest */
#define TIME_SHARE_CORPUS_MIN_S 30.0	/* each, whatever is left */

/*
 * The seconds of the next of `left` harnesses of a corpus job when
 * `remaining` seconds remain: an equal part of TIME_SHARE_CORPUS_PART of
 * them, at least TIME_SHARE_CORPUS_MIN_S. Cannot fail.
 */
double time_share_corpus(double remaining, size_t left);

/* The reserve for triage and the report, by what was found so far. */
#define TIME_RESERVE_BASE_S 20.0	/* stop grace, last sync, report */
#define TIME_RESERVE_POV_S 10.0		/* reproduce one PoV, head + base */
#define TIME_RESERVE_PATCH_S 90.0	/* validate one patch */
#define TIME_RESERVE_MAX_S 240.0
#define TIME_RESERVE_MAX_PART 0.2	/* of the time left at the run */

/*
 * Seconds to keep after fuzzing, with `povs` PoVs and `patches` patches
 * submitted so far: TIME_RESERVE_BASE_S plus their triage and validation
 * costs, capped at TIME_RESERVE_MAX_PART of `window_s` (the time left
 * when the run phase began) and TIME_RESERVE_MAX_S, and never below
 * TIME_RESERVE_BASE_S. Cannot fail.
 */
double time_reserve(size_t povs, size_t patches, double window_s);

#endif
