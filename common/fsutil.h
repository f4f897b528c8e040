/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fsutil.h - small file-system helpers shared by every layer
 *
 * Return 0 or a negative CRS_E* code naming the path. Paths inside a
 * folder a container could write are reached only through directory
 * descriptors with O_NOFOLLOW (docs/decisions.md, decision 10).
 *
 * Details: docs/internals.md.
 */
#ifndef CRS_COMMON_FSUTIL_H
#define CRS_COMMON_FSUTIL_H

#include <dirent.h>
#include <stddef.h>

struct buf;
struct stat;

/*
 * mkdir -p with mode 0755, for trusted paths only: links in the part that
 * already exists are followed. Inside a container-writable tree use
 * fs_mkdir_new.
 */
int fs_mkdir_p(const char *path);
/*
 * mkdir of one new folder, mode 0700: CRS_ECONFLICT when anything (a
 * folder, a file, a link) already has that name. For bind sources.
 */
int fs_mkdir_new(const char *path);
/*
 * Read a whole regular file, refusing files larger than `max` (CRS_EINPUT)
 * and anything that is not a regular file (FIFOs, devices: CRS_EINPUT,
 * never blocked on). For trusted paths: a link is followed.
 */
int fs_read_file(struct buf *out, const char *path, size_t max);
/*
 * Open folder `path` (O_DIRECTORY|O_NOFOLLOW: a link there is refused).
 * *fd_out is the caller's to close.
 */
int fs_open_dir(int *fd_out, const char *path);
/*
 * Read the open file fd: fstat'ed as a regular file of at most `max`
 * bytes (CRS_EINPUT otherwise), then read with the same cap.
 */
int fs_read_fd(struct buf *out, int fd, size_t max, const char *what);
/*
 * A directory stream over a copy of the open folder `dirfd` (which stays
 * the caller's, its offset untouched in effect: the stream is rewound, for
 * the copy shares it), for closedir(3). NULL with errno set.
 */
DIR *fs_dir_stream(int dirfd);
/*
 * Write `name` (one component) in the folder `dirfd` atomically: a new
 * temp file with a random dot name (O_CREAT|O_EXCL|O_NOFOLLOW), then
 * renameat(2) over `name` (a link at `name` is replaced, not followed).
 */
int fs_write_at(int dirfd, const char *name, const void *data, size_t len);
/*
 * Walk the relative path `rel` ('/'-separated; no empty, "." or ".."
 * component: CRS_EINPUT) below the folder `rootfd`, one openat(2) with
 * O_NOFOLLOW per folder, creating missing folders (mode 0755) when
 * `mkdirs` is set. On success *parent_fd (the caller's to close) is the
 * folder holding rel's last component and *leaf points into `rel` at
 * that component. A link or a file where a folder should be: CRS_EINPUT
 * naming "<shown>/<the part walked>"; a missing folder without `mkdirs`:
 * CRS_ENOTFOUND. For a trusted root whose inside must not redirect a
 * write (a user's repository, a container-writable folder).
 */
int fs_walk_beneath(int *parent_fd, const char **leaf, int rootfd,
		    const char *rel, int mkdirs, const char *shown);
/* fs_write_at in the parent of `path`, opened with fs_open_dir. */
int fs_write_file_atomic(const char *path, const void *data, size_t len);
/*
 * rm -rf through directory descriptors (unlinkat; a link is removed,
 * never descended); a missing path is not an error.
 */
int fs_remove_tree(const char *path);
/*
 * fs_remove_tree of `name` (one component) in the open folder dirfd:
 * nothing is followed; errors name `shown` (NULL: name).
 */
int fs_remove_at(int dirfd, const char *name, const char *shown);
/*
 * Copy a regular file (src opened with O_NOFOLLOW: a link or a FIFO is
 * refused) to dst as fs_write_file_atomic does (mode 0644).
 */
int fs_copy_file(const char *src, const char *dst);
/*
 * Copy the open regular file `fd` (to its end, at most 1 GiB) to `name`
 * in the folder `dstfd` as fs_write_at does (a link at `name` is
 * replaced, not followed), with its permission bits but no set-id bit.
 * Errors name `what`.
 */
int fs_copy_fd_at(int fd, int dstfd, const char *name, const char *what);
/* 1 when the path exists (any type), else 0. */
int fs_exists(const char *path);
/*
 * The running program's path (/proc/self/exe), or a copy of `fallback`
 * (NULL when NULL) when it cannot be read; caller frees.
 */
char *fs_self_exe(const char *fallback);
/* Absolute, normalised form of `path` (need not exist); caller frees. */
char *fs_abspath(const char *path);
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
/*
 * The count (a decimal, 0 to LONG_MAX, one optional newline) a container
 * wrote to the regular file `name` of `dirfd`, read as fs_read_regular_at
 * does; -1 when it is missing, no regular file, or no such count.
 */
long fs_read_count_at(int dirfd, const char *name);
/*
 * cp -a through directory descriptors: regular files, folders, and links
 * as links (never followed); FIFOs, sockets and devices are passed over,
 * set-id bits dropped. Files are written as fs_write_at does.
 */
int fs_copy_tree(const char *src, const char *dst);

#endif
