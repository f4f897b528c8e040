/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_read.h - one capped file read from a CRS-writable request folder
 *
 * Shared by the mailbox server (sidecar.c) and the tree diffs
 * (sidecar_tree.c), which otherwise know nothing of each other's
 * internals: keeping it here keeps the include graph acyclic.
 */
#ifndef CRS_RUNNER_SIDECAR_SIDECAR_READ_H
#define CRS_RUNNER_SIDECAR_SIDECAR_READ_H

#include <stddef.h>
#include <sys/types.h>

struct buf;

/*
 * Read dirfd/name, which must be a regular file of at most max bytes
 * (fs_read_regular_at: a symlink is not followed, a FIFO or device is
 * never opened), into b; *mode_out (may be NULL) gets its mode.
 * CRS_EINPUT naming `shown` when it is refused.
 */
int sidecar_read_capped(int dirfd, const char *name, const char *shown,
			size_t max, struct buf *b, mode_t *mode_out);

#endif
