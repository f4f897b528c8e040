/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_cut.h - when a proved finding ended the run, under which policy
 *
 * results.json's "after_finding" (docs/results.md), and the run phase's
 * record of the same (runs/<run-id>/after_finding.json). Knows nothing
 * of containers: the run phase fills it, triage copies it into the
 * results, the reporters print it.
 */
#ifndef CRS_SARIF_RUN_CUT_H
#define CRS_SARIF_RUN_CUT_H

#include <stddef.h>
#include <jansson.h>

struct buf;

struct run_cut {
	char *policy;		/* "stop", "continue", "30s", or "default" */
	double window_s;	/* search after the proof; < 0: to the deadline */
	double proved_at_s;	/* scan seconds at the first proof; < 0: none */
	double cut_at_s;	/* scan seconds the policy ended the run; < 0:
				   it did not */
	char *finding;		/* the proved finding's id, or NULL */
	size_t harnesses_cut;	/* harnesses fuzzed short or not at all */
	int announced;		/* its annotation was printed at the proof */
};

/* A new record: no policy, nothing proved, not cut. Cannot fail. */
struct run_cut *run_cut_new(void);
void run_cut_free(struct run_cut *c);

/* The record as JSON (new reference). Cannot fail. */
json_t *run_cut_to_json(const struct run_cut *c);
/*
 * Read `j` into *out (a new record, the caller's). CRS_EINPUT naming
 * `source` and the field when a field is missing or of the wrong type.
 */
int run_cut_from_json(struct run_cut **out, const json_t *j,
		      const char *source);

/*
 * One line for the verdict and the job summary, appended to `b`:
 * "run ended 18s after a finding was proved (--after-finding default:
 * 18s); 1 harness(es) fuzzed short" or "... proved at 42s; the run went
 * on to the deadline (--after-finding continue)". Nothing when no
 * finding was proved. Plain text: no field holds untrusted text.
 */
void run_cut_line(struct buf *b, const struct run_cut *c);

/*
 * Why the cut left a harness short, as harness_runs.json and results.json
 * "incomplete" record it (caller frees), and whether `reason` is such a
 * line: the reports show those harnesses as one quiet line, not as
 * failures of their own.
 */
char *run_cut_reason(const struct run_cut *c);
int run_cut_is_reason(const char *reason);

#endif
