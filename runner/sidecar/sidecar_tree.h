/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_tree.h - build-project's trees, diffed against crs-ci's own
 *
 * A -p1 diff as `git diff --binary` writes it. The request tree is
 * hostile: walked with O_NOFOLLOW, caps hold.
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_SIDECAR_SIDECAR_TREE_H
#define CRS_RUNNER_SIDECAR_SIDECAR_TREE_H

#include <stddef.h>

struct buf;

/* Caps over all trees of one request (libCRS checks the same ones). */
#define SIDECAR_TREE_FILES_MAX 100000		/* files and symlinks */
#define SIDECAR_TREE_BYTES_MAX (512ull << 20)	/* bytes of the files */
#define SIDECAR_TREE_DEPTH_MAX 64		/* folders below the top */
#define SIDECAR_TREE_PATCH_MAX (64u << 20)	/* bytes of each diff */

/* What the trees of one request used of the caps so far. */
struct sidecar_tree_count {
	size_t files;
	unsigned long long bytes;
};

/*
 * Diff the request tree `name` in the request folder `reqfd` (a folder,
 * not a symlink) against the trusted folder `orig`, appending the diff
 * (empty when nothing differs) to *patch; messages name the tree by
 * `name`. When `patched` is not NULL it becomes a copy of orig with the
 * diff's changes made (new contents, executable bits as in the request,
 * deleted files removed). *count accumulates across calls.
 * Returns 0, CRS_EINPUT naming the problem when the tree is refused, or
 * CRS_ERR when orig or patched cannot be read or written.
 */
int sidecar_tree_diff(int reqfd, const char *name, const char *orig,
		      const char *patched, struct sidecar_tree_count *count,
		      struct buf *patch);

#endif
