/* SPDX-License-Identifier: Apache-2.0 */
/*
 * source_export.h - write a commit's tree of the target repo to a folder
 */
#ifndef CRS_RUNNER_EXEC_SOURCE_EXPORT_H
#define CRS_RUNNER_EXEC_SOURCE_EXPORT_H

/*
 * Resolve `rev` (default "HEAD") in the repository at `repo_path` and
 * check its tree out into `dest` (created; must be empty or absent).
 * *commit_out gets the full hex id (caller frees). CRS_EINPUT when the
 * folder is not a git repository or the revision does not resolve.
 */
int source_resolve(char **commit_out, const char *repo_path, const char *rev);
int source_export(const char *repo_path, const char *commit, const char *dest);
/* The tree id (hex) of `commit` in the repository at `repo_path`; what a
 * build of the commit is keyed by. *tree_out is the caller's. CRS_EINPUT
 * as source_resolve. */
int source_tree_id(char **tree_out, const char *repo_path, const char *commit);

#endif
