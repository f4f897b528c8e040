/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_saturation.h - when harnesses stopped because the change was saturated
 *
 * results.json's "saturation" (docs/results.md), and the run phase's
 * record of the same (runs/<run-id>/saturation.json). Knows nothing of
 * containers: the run phase fills it (runner/scan/saturation.h has the
 * rule), triage copies it into the results, the reporters print it.
 */
#ifndef CRS_SARIF_RUN_SATURATION_H
#define CRS_SARIF_RUN_SATURATION_H

#include <stddef.h>
#include <jansson.h>

struct buf;

struct run_saturation {
	double window_s;	/* the plateau (--saturation) */
	double fuzzed_s;	/* seconds the harnesses fuzzed, all together */
	double share_s;		/* seconds they were given, all together
				 * (0: not known) */
	size_t harnesses;	/* harnesses fuzzed */
	size_t saturated;	/* of them, stopped at saturation */
	size_t lines_reached;	/* changed lines the replays ran (union) */
	size_t lines_total;	/* changed lines the coverage build has */
	int around_removals;	/* 1: the change only removed lines; the
				 * lines counted are the head lines just
				 * before and after each removal */
	int guard_weakened;	/* 1: the change removes or weakens a
				 * guard (diff/guards.h): no harness
				 * stopped before half of its time */
};

/* The record as JSON (new reference). Cannot fail. */
json_t *run_saturation_to_json(const struct run_saturation *r);
/*
 * Read `j` into *out (the caller's): CRS_EINPUT naming `source` and the
 * field when a field is missing or of the wrong type
 * ("lines_around_removals" and "guard_weakened" may be missing: false;
 * "share_seconds" may be missing: 0).
 */
int run_saturation_from_json(struct run_saturation **out, const json_t *j,
			     const char *source);

/*
 * One line for the verdict, job summary and report appended to `b`:
 * "change saturated after 142s of 417s of fuzzing: 31 of 39 changed
 * lines reached, no new line or branch of the touched code, nor inputs running it far more,
 * for 60s, not before a third of the time of a harness reaching it"
 * when every harness
 * stopped so, "change saturated for 1 of 2 harness(es) ..." when some
 * did; nothing when none did (or `r` is NULL). "lines around the
 * removals" in place of "changed lines" when `around_removals`; "half"
 * and why when `guard_weakened`. Plain text.
 */
void run_saturation_line(struct buf *b, const struct run_saturation *r);

#endif
