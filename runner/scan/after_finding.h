/* SPDX-License-Identifier: Apache-2.0 */
/*
 * after_finding.h - what the run does once a finding is proved new
 *
 * `--after-finding stop|DURATION|continue` (and --until-deadline): the
 * policy, the search window it gives after the proof, and the run
 * phase's record of when it cut the run (runs/<run-id>/after_finding.json,
 * sarif/run_cut.h), which triage copies into results.json.
 * Why the default window: docs/cmd/scan.md, "After a finding".
 */
#ifndef CRS_RUNNER_SCAN_AFTER_FINDING_H
#define CRS_RUNNER_SCAN_AFTER_FINDING_H

struct scan;
struct run_cut;

/* scan_opts.after_finding_s values besides 0 (stop) and seconds. */
#define AFTER_FINDING_DEFAULT (-2)	/* SCAN_OPTS_INIT's */
#define AFTER_FINDING_CONTINUE (-1)
/* The default window: 5% of what is left at the proof, within these. */
#define AFTER_FINDING_MIN_S 10.0
#define AFTER_FINDING_MAX_S 60.0
#define AFTER_FINDING_SHARE 0.05

/* "stop" -> 0, "continue" -> AFTER_FINDING_CONTINUE, a duration of at
 * least 1s -> seconds. CRS_EINPUT naming --after-finding otherwise. */
int after_finding_parse(const char *arg, long *out);

/*
 * Seconds of search after the proof under `policy_s` when `left_s`
 * seconds of the scan are left then: < 0 for continue (to the deadline).
 * Cannot fail.
 */
double after_finding_window(long policy_s, double left_s);

/* The policy as results.json names it: "stop", "continue", "30s" or
 * "default". Caller frees. Cannot fail. */
char *after_finding_policy_name(long policy_s);

/* Write runs/<run-id>/after_finding.json atomically. 0 or CRS_ERR (message names the path). */
int after_finding_save(struct scan *s, const struct run_cut *c);
/* Read it into *out (the caller's): CRS_ENOTFOUND when the run wrote
 * none, CRS_EINPUT naming the file and field when malformed. */
int after_finding_load(struct scan *s, struct run_cut **out);

#endif
