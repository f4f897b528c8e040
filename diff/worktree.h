/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worktree.h - edits in a checkout that its HEAD commit does not hold
 *
 * A scan of base..HEAD reads commits: an edit left in the work tree is
 * not scanned. The scan says so (docs/cmd/scan.md, "Uncommitted edits").
 */
#ifndef CRS_DIFF_WORKTREE_H
#define CRS_DIFF_WORKTREE_H

#include <stddef.h>

struct strvec;

/*
 * When `head_commit` (a full hex id) is the HEAD commit of the
 * repository holding `repo_dir`: the files of its index and work tree that
 * differ from that commit (modified, staged, deleted, renamed) and the
 * new C, C++ or Java files git does not ignore (untracked folders are
 * not entered). At most `max` repo-relative paths go into `out`, sorted;
 * *total counts them all (0 when HEAD is another commit). 0, or CRS_ERR
 * when the repository cannot be read.
 */
int diff_worktree_uncommitted(const char *repo_dir, const char *head_commit,
			      struct strvec *out, size_t max, size_t *total);

/*
 * The root of the work tree holding `dir` (git's search upward from it),
 * without a trailing '/' (caller frees), or NULL: `dir` is in no work
 * tree (a bare repository, or none).
 */
char *diff_worktree_root(const char *dir);

#endif
