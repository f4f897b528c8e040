/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tar_context.h - a directory tree as a reproducible tar file
 *
 * Used for POST /build contexts and for rootfs tarballs given to
 * POST /images/create. The same tree always gives the same bytes, so a
 * context can be hashed and the engine's build cache sees no churn.
 */
#ifndef CRS_RUNNER_ENGINE_TAR_CONTEXT_H
#define CRS_RUNNER_ENGINE_TAR_CONTEXT_H

#include <stddef.h>

/*
 * Write the tree under `dir` as an uncompressed (POSIX pax) tar to
 * `tar_path`, created or truncated with mode 0600. Entries are named
 * relative to `dir` ("Dockerfile", "src/", "src/a.c"), visited depth first
 * in bytewise name order, with mtime 0, uid/gid 0 and no user or group
 * names; permission bits (setuid etc. too) and symlink targets are kept.
 * Nothing is skipped (.git, .dockerignore'd files and dot files go in);
 * regular files, directories, symlinks, FIFOs and device nodes are stored,
 * sockets (which tar cannot hold) are left out, and hard links are stored
 * as separate copies. Symlinks are never followed below `dir`.
 * With `lead` (NULL: none), the first entry is a regular file of that
 * name (one component, mode 0644) holding `data`, and the tree's own
 * entry of that name, with anything below it, is left out: how a kept
 * build carries what it was built from (runner/exec/build_cache.h).
 * Returns 0, CRS_ENOTFOUND (dir missing) or CRS_ERR (I/O; the message
 * names the path). On failure tar_path may hold a partial archive.
 */
int tar_context_write(const char *dir, const char *tar_path,
		      const char *lead, const void *data, size_t len);

/*
 * Same, into a new file $TMPDIR/crs-ci-tar-XXXXXX.tar (TMPDIR unset:
 * /tmp). *path_out receives its path; the caller unlinks and frees it.
 * On failure nothing is left behind and *path_out is NULL. The entry
 * `name` (a path relative to `dir`, as a build's dockerfile is named;
 * NULL: none) is written as a regular file mode 0644 holding `data` instead of what the tree has there (how crs-ci
 * sends a Dockerfile whose FROM lines it rewrote, leaving `dir` as it is).
 */
int tar_context_temp_replacing(const char *dir, const char *name,
			       const void *data, size_t len, char **path_out);

#endif
