/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce_pov.h - one PoV run on the head and base builds side by side
 *
 * Triage's reproductions of a PoV, in crs-ci's own folder
 * <work>/triage/<harness>-<sha>/{head,base} (see reproduce.h for the
 * layout of each). Made by triage, or earlier by early_jobs.h.
 */
#ifndef CRS_RUNNER_EXEC_REPRODUCE_POV_H
#define CRS_RUNNER_EXEC_REPRODUCE_POV_H

/* the scan, not an exec_ctx: its sanitizer, base image; build group */
struct scan;

/* <work>/triage/<harness>-<sha>, or its `which` ("head", "base") folder
 * when which is not NULL; caller frees. Cannot fail. */
char *reproduce_pov_dir(struct scan *s, const char *harness, const char *sha,
			const char *which);

/*
 * Make the PoV's folders anew, then run `testcase` (a file of crs-ci's
 * own) s->opts->reproduce_runs times on the head build and, when the base
 * build has the harness (*on_base says so), on the base build in a
 * container beside it: the base's runs decide novelty or fixed-by-change,
 * and waiting for the head first would only add one container start-up.
 * 0, or the first error of reproduce_run or of making the folders.
 */
int reproduce_pov(struct scan *s, const char *harness, const char *sha,
		  const char *testcase, int *on_base);

#endif
