/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pov_coverage.h - the lines each PoV executes on the coverage build
 *
 * A crash or a hang keeps its coverage: the build has counter relocation
 * and each PoV runs in clang's continuous profile mode (%c).
 *
 * Details: docs/results.md ("The change anchor"); docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_POV_COVERAGE_H
#define CRS_RUNNER_EXEC_POV_COVERAGE_H

#include <stddef.h>

struct exec_ctx;
struct coverage;

/* What the replay of one harness's PoVs measured. */
struct pov_coverage {
	size_t nr;
	struct coverage **cov;	/* cov[i]: PoV i's lcov export, or NULL */
	char **failed;		/* failed[i]: why cov[i] is NULL, or NULL */
	char *all_failed;	/* why nothing was measured, or NULL */
};
#define POV_COVERAGE_INIT { 0, NULL, NULL, NULL }

void pov_coverage_release(struct pov_coverage *p);

/* PoVs replayed per container, at most. */
#define POV_COVERAGE_MAX 32
/* Seconds one PoV may run (a hang is cut there; its counters stay). */
#define POV_COVERAGE_RUN_S 5

/*
 * Replay the PoVs at `povs` (nr paths relative to the scan's output
 * folder, crs-ci's own, read beneath it without following a link; at
 * most POV_COVERAGE_MAX) on `harness` of the head's coverage build, each
 * in its own process with a continuous-mode profile, at most timeout_s
 * seconds in all. `dir` is made afresh: dir/in holds the copies bound
 * read-only, dir/io is the container's. What cannot be measured (no such
 * harness, a build without counter relocation, a timeout, bad lcov) is
 * no error: out->failed[i] or out->all_failed says why. Errors:
 * CRS_EINTR, CRS_EENGINE, I/O errors. Release *out in every case.
 */
int pov_coverage_run(struct pov_coverage *out, struct exec_ctx *x,
		     const char *harness, const char *dir,
		     const char *const *povs, size_t nr, double timeout_s);

#endif
