/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fsutil.h - small file-system helpers shared by every layer
 *
 * All return 0 or a negative CRS_E* code with a message naming the path.
 */
#ifndef CRS_COMMON_FSUTIL_H
#define CRS_COMMON_FSUTIL_H

#include <stddef.h>

struct buf;
struct stat;

/* mkdir -p with mode 0755. */
int fs_mkdir_p(const char *path);
/* Read a whole file, refusing files larger than `max` (CRS_EINPUT). */
int fs_read_file(struct buf *out, const char *path, size_t max);
/* Write via a hidden temp file (.NAME.tmp.PID) beside it, then rename(2). */
int fs_write_file_atomic(const char *path, const void *data, size_t len);
/* rm -rf; a missing path is not an error. */
int fs_remove_tree(const char *path);
/* Copy a regular file, creating or truncating dst (mode 0644). */
int fs_copy_file(const char *src, const char *dst);
/* 1 when the path exists (any type), else 0. */
int fs_exists(const char *path);
/* Absolute, normalised form of `path` (need not exist); caller frees. */
char *fs_abspath(const char *path);
/* SHA-256 of a file, as 64 lowercase hex characters in out[65]. */
int fs_sha256_file(char out[65], const char *path);
/* SHA-256 of memory, as hex in out[65]. Cannot fail. */
void sha256_hex(char out[65], const void *data, size_t len);
/*
 * SHA-256 over a directory tree: sorted relative paths, file modes,
 * symlink targets and contents. Same tree, same hash, wherever it lies.
 */
int fs_sha256_tree(char out[65], const char *dir);
/*
 * Read the regular file dirfd/name, of at most `max` bytes, into out
 * without following a link and without opening anything else: its type
 * is checked with fstatat first (a FIFO or a device is never opened) and
 * again on the descriptor. For folders a container can write. *st_out
 * (may be NULL) gets its stat. CRS_ENOTFOUND when it is gone, CRS_EINPUT
 * naming `shown` (NULL: name) when it is refused.
 */
int fs_read_regular_at(struct buf *out, int dirfd, const char *name,
		       const char *shown, size_t max, struct stat *st_out);
/* cp -a: copy a tree (regular files, directories, symlinks as links). */
int fs_copy_tree(const char *src, const char *dst);

#endif
