/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation_watch.h - the run phase's replays of a harness's corpus
 *
 * A fuzzing harness's shared corpus (the exchange's seeds/) replayed on
 * the head's coverage build every few seconds, in the background, for
 * the plateau rule (runner/scan/saturation.h) and the run's tally
 * (runs/<run-id>/saturation.json, sarif/run_saturation.h). Details:
 * docs/cmd/scan.md, "When the change is saturated".
 */
#ifndef CRS_RUNNER_PHASE_SATURATION_WATCH_H
#define CRS_RUNNER_PHASE_SATURATION_WATCH_H

struct scan;
struct saturation_watch;
struct saturation_tally;
struct run_saturation;

/*
 * The run's tally, or NULL when saturation is not tracked (full mode,
 * --saturation off, no coverage build of the head: the reason logged).
 * Cannot fail.
 */
struct saturation_tally *saturation_tally_new(struct scan *s);
/* Its record so far (borrowed; NULL for NULL), to save. */
const struct run_saturation *saturation_tally_record(
	struct saturation_tally *t, double fuzzed_s);
void saturation_tally_free(struct saturation_tally *t);

/* Watch `harness`, given `share_s` seconds, from now (NULL when `t` is
 * NULL or the coverage build lacks it, logged); its floor follows the
 * share and the change (runner/scan/saturation.h). Cannot fail. */
struct saturation_watch *saturation_watch_start(struct scan *s,
						struct saturation_tally *t,
						const char *harness,
						double share_s);
/*
 * From the run loop: fold in a replay that finished, start one when
 * due. 1 when the harness is saturated now, else 0 (always for NULL).
 * A replay that fails stops the watch (it never calls the harness
 * saturated then), with a warning. Cannot fail.
 */
int saturation_watch_tick(struct saturation_watch *w, struct scan *s);
/* Seconds without a gain so far (0 for NULL). */
double saturation_watch_plateau(const struct saturation_watch *w);
/* Stop w's replay still running and free it (NULL is fine); count the
 * harness, given `share_s` seconds, in the tally `t` (NULL is fine), as
 * saturated when `saturated`. */
void saturation_watch_end(struct saturation_tally *t,
			  struct saturation_watch *w, int saturated,
			  double share_s);

/* runs/<run-id>/saturation.json, atomically. 0 or CRS_ERR. */
int saturation_record_save(struct scan *s, const struct run_saturation *r);
/* Read it into *out (the caller's): CRS_ENOTFOUND when the run wrote
 * none, CRS_EINPUT naming the file and field when malformed. */
int saturation_record_load(struct scan *s, struct run_saturation **out);

#endif
