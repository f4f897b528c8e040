/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_tree.h - a patch applied to the head tree, and the tests script
 *
 * Shared by patch validation and the builder sidecar.
 */
#ifndef CRS_RUNNER_SIDECAR_PATCH_TREE_H
#define CRS_RUNNER_SIDECAR_PATCH_TREE_H

#include <git2.h>

/* The tests script's exit status and output line for "no tests". */
#define PATCH_TESTS_NONE_EXIT 200
#define PATCH_TESTS_NONE_MARK "crs-ci: no tests"

/*
 * `bash -c` script that runs the project's run_tests.sh or test.sh (in
 * $SRC, then /OSS_CRS_PROJ_PATH), or prints PATCH_TESTS_NONE_MARK and
 * exits PATCH_TESTS_NONE_EXIT when there is none.
 */
extern const char patch_tests_script[];

enum patch_tests_outcome {
	PATCH_TESTS_PASSED,
	PATCH_TESTS_FAILED,	/* *exit_code_out says how */
	PATCH_TESTS_NONE,	/* the project has no tests: never "passed" */
	PATCH_TESTS_ERROR,	/* did not finish: crs_error_last() says why */
};

struct scan;
/*
 * The project's tests (patch_tests_script) in the head's snapshot with
 * the patch at `patch_path` applied, against the build
 * <work>/builds/<sanitizer>/<which>/out, without network, on `cpuset` and
 * `memory`, for at most limit_s; output in log_path. Returns 0 with the
 * outcome, or CRS_EINTR when the scan is interrupted.
 */
int patch_tree_run_tests(struct scan *s, const char *snapshot,
			 const char *patch_path, const char *which,
			 const char *cpuset, long long memory, double limit_s,
			 const char *log_path,
			 enum patch_tests_outcome *outcome_out,
			 int *exit_code_out);

/*
 * Whether `diff` applies cleanly to the tree of `commit` in the
 * repository `repo_dir` (libgit2, in memory): 0, or -1 with *detail (the
 * caller's) saying why for the log.
 */
int patch_tree_check(const char *repo_dir, const char *commit,
		     git_diff *diff, char **detail);

#endif
