/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triage_finding.h - a finding made from a PoV's reproductions, as
 * triage and the early triage of the first PoV both make it
 */
#ifndef CRS_RUNNER_PHASE_TRIAGE_FINDING_H
#define CRS_RUNNER_PHASE_TRIAGE_FINDING_H

#include <time.h>

struct scan;
struct finding;
struct finding_set;
struct repro_verdict;

struct pov {
	char *path;		/* <out>/povs/<sha>: crs-ci's copy */
	int user;		/* given with --pov, not found by a CRS */
	char *crs;
	char *harness;
	char sha[65];
	double mtime;		/* seconds since the epoch, with nanoseconds */
};

/*
 * Novelty of the crash `head_sig` from the base build's runs in `bdir`
 * (when `on_base`): "new", "pre-existing", "changed", or NULL when there
 * is no base build; logged unless `quiet` (the early triage said it
 * already). Cannot fail.
 */
void triage_novelty(struct scan *s, const struct pov *p, const char *bdir,
		    int on_base, const char *head_sig, char **out, int quiet);

/*
 * Add to `fs` the finding `id` of verdict `v` for PoV `p` (`on_head`: its
 * stack names the head's lines), its sanitizer report written under
 * <out>/reports/. Cannot fail.
 */
struct finding *triage_add_finding(struct scan *s, struct finding_set *fs,
				   const struct pov *p,
				   const struct repro_verdict *v,
				   const char *id, int on_head,
				   time_t run_start);

#endif
