/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_tree.h - a patch applied to the head tree, and the tests script
 *
 * Shared by patch validation and the builder sidecar: both lay a patched
 * copy of the head commit's tree over the target image and compile it.
 */
#ifndef CRS_RUNNER_PATCH_TREE_H
#define CRS_RUNNER_PATCH_TREE_H

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

/*
 * Apply `diff` to the tree of `commit` in the repository `repo_dir`
 * (libgit2, in memory) and write <ctx>/src: a copy of `head_src` with the
 * patched files written over it (ctx is emptied first). 0, or -1 with
 * *detail (the caller's) saying why for the log.
 */
int patch_tree_write(const char *repo_dir, const char *commit,
		     git_diff *diff, const char *head_src, const char *ctx,
		     char **detail);

#endif
