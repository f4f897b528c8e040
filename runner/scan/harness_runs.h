/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness_runs.h - what fuzzing each selected harness got, from the run
 * phase to triage
 *
 * Per selected harness: seconds due, seconds run, and why it was
 * short; stored as runs/<run-id>/harness_runs.json.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_SCAN_HARNESS_RUNS_H
#define CRS_RUNNER_SCAN_HARNESS_RUNS_H

#include <stddef.h>

struct harness_run_record {
	char *harness;
	double wanted_s;	/* seconds it was due */
	double fuzzed_s;	/* seconds its CRS modules ran */
	char *reason;		/* why it was short, NULL when it was not */
};

struct harness_runs {
	struct harness_run_record *v;
	size_t nr, alloc;
};
#define HARNESS_RUNS_INIT { NULL, 0, 0 }

/* Append a record (strings copied; reason may be NULL). Cannot fail. */
void harness_runs_add(struct harness_runs *hr, const char *harness,
		      double wanted_s, double fuzzed_s, const char *reason);
/* Free everything; accepts an empty set. */
void harness_runs_release(struct harness_runs *hr);
/* Write atomically to path. 0 or CRS_ERR (the message names path). */
int harness_runs_save(const struct harness_runs *hr, const char *path);
/*
 * Read path into the empty set hr. CRS_ENOTFOUND when missing (a run
 * phase before this record existed), CRS_EINPUT naming path and field
 * when malformed.
 */
int harness_runs_load(struct harness_runs *hr, const char *path);
/*
 * Why a harness's run was short, or NULL when it was not: `ran_s` seconds
 * of `wanted_s` due, `given_s` the time the deadline could give it.
 * `exited_early` when every module exited before crs-ci stopped them, and
 * `failed` then names the first module that exited non-zero ("crs/module
 * exited with status 2"; NULL when all exited 0: a CRS that stops by
 * itself well before `given_s` has done its work; one that stops at
 * `given_s` stopped for the deadline). `modules` is how many started.
 * Caller frees.
 */
char *harness_run_shortfall(double wanted_s, double given_s, double ran_s,
			    size_t modules, int exited_early,
			    const char *failed);

#endif
