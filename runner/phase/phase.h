/* SPDX-License-Identifier: Apache-2.0 */
/*
 * phase.h - the phases of a scan, each reading the previous one's output
 *
 * prepare, build-target, select, run, triage (then change coverage),
 * validate, report. Each returns 0 or a CRS_E* code with the message set.
 *
 * Details: docs/cmd/phases.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_PHASE_PHASE_H
#define CRS_RUNNER_PHASE_PHASE_H

#include <stddef.h>

struct scan;
struct finding_set;
struct coverage_reach;
struct coverage_targets;

int phase_prepare(struct scan *s);
int phase_build_target(struct scan *s);
/*
 * The target image and crs-ci's head build of commit `head` alone (no
 * base, no coverage, no CRS), with `sanitizer` (NULL: project.yaml's
 * first, address preferred): what `crs-ci reproduce` runs a PoV on.
 */
int phase_build_head(struct scan *s, const char *head, const char *sanitizer);
/*
 * `crs-ci reproduce`: every finding of the artifact folder `dir` (a
 * scan's --out: results.json, povs/) run on the head build of the commit
 * results.json names, and compared with the recorded crash. *exit_code:
 * 0 every finding crashed as recorded, 1 one did not.
 */
int phase_reproduce_artifact(struct scan *s, const char *dir,
			     int *exit_code);
int phase_select(struct scan *s);
int phase_run(struct scan *s);
int phase_triage(struct scan *s);
/*
 * Triage's finding for PoV `sha` of `harness` from its reproductions
 * already made (reproduce_pov.h; `on_base` as it set it), as triage will
 * make it, added to `fs`; nothing added when the head did not crash.
 * `crs`: its finder, or NULL. Nothing is written. Cannot fail.
 */
void phase_triage_preview(struct scan *s, const char *harness,
			  const char *sha, const char *crs, int on_base,
			  struct finding_set *fs);
/*
 * End of triage: read each --sarif file into fs->candidates, marked
 * confirmed or unconfirmed against fs's findings (candidates.c).
 * 0, or CRS_EINPUT naming the file and field of a bad SARIF file.
 */
int phase_triage_candidates(struct scan *s, struct finding_set *fs);
/*
 * Mark the findings --report-timeouts no / --report-ooms no hide as
 * suppressed (and unmark the rest), logging how many; returns how many
 * changed. Cannot fail.
 */
size_t phase_suppress(struct scan *s, struct finding_set *fs);
/*
 * Every patch the CRSs submitted, validated (policy, apply, build, every
 * PoV, tests, re-fuzz) and recorded in <out>/results.json with per-step
 * verdicts; validated ones written as <out>/patches/<sha12>.patch.
 * Reads and rewrites results.json; nothing to do without patches.
 */
int phase_validate(struct scan *s);
/*
 * Every phase of a scan in order, with the image cache restored first and
 * saved last (cache.h): what `crs-ci scan` and the pre-push hook run.
 */
int phase_scan_all(struct scan *s, int *exit_code_out);
/* The first part of it: image cache restored, prepare, build-target. */
int phase_scan_build(struct scan *s);
/* The rest before the report: select, shard, run, triage, validate. */
int phase_scan_prove(struct scan *s);
/*
 * The coverage of the change (change_coverage.c), in diff mode, in two
 * halves. Measure: the corpus of every fuzzed harness replayed on the
 * head's coverage build into *out (the caller's; NULL in full mode); it
 * reads the run's corpus, not triage's findings, so it runs beside
 * triage. A build or replay that fails (the engine's errors too) makes
 * it "unknown" and is no error; CRS_EINTR is.
 */
struct change_cov;
int phase_change_coverage_measure(struct scan *s, struct change_cov **out);
/*
 * Replay every finding's PoVs on the head's coverage build: the changed
 * lines they executed are added to cc (may be NULL) as executed, and each
 * finding gets its change anchor (sarif/change_anchor.h). Diff mode only;
 * a replay that cannot measure leaves anchors "unmeasured". Only error:
 * CRS_EINTR (runner/phase/pov_reach.c).
 */
struct finding_set;
int phase_pov_reach(struct scan *s, struct finding_set *fs,
		    struct change_cov *cc);

/*
 * Record, after triage: the "coverage" phase writes cc (taken; NULL in
 * full mode) into results.json's "change_coverage", with the change's
 * lines around each finding. Errors reading or writing it are errors.
 */
int phase_change_coverage_record(struct scan *s, struct change_cov *cc);
/* Seconds the run phase keeps for the change coverage (0 in full
 * mode). Cannot fail. */
double phase_change_coverage_reserve(const struct scan *s);
/* Fold one harness's reach of targets `t` into cc: the higher state of
 * each line (change_coverage.c). Cannot fail. */
void phase_change_coverage_add(struct change_cov *cc, const char *harness,
			       const struct coverage_reach *reach,
			       const struct coverage_targets *t);
/* Writes SARIF and prints the verdict; *exit_code_out is 0 or 1. */
int phase_report(struct scan *s, int *exit_code_out);
/* crs-ci check: print that the configs scan_open loaded are valid, and
 * the project folder's layout (check.c); *exit_code_out is 0. Cannot
 * fail. */
int phase_check(struct scan *s, int *exit_code_out);

#endif
