/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache_root.h - --cache-dir opened once and walked by descriptor
 *
 * A CI cache is restored from a store other branches (and the pull
 * request's own checkout) can write: everything in it is hostile input
 * (docs/decisions.md, decision 11). The folder is opened once per scan, refused
 * when it is a link, and everything below it is reached with openat(2)
 * and O_NOFOLLOW at every component: a link in it is skipped with a
 * warning naming it, never followed. Docs: docs/cache.md.
 */
#ifndef CRS_RUNNER_SCAN_CACHE_ROOT_H
#define CRS_RUNNER_SCAN_CACHE_ROOT_H

#include <stddef.h>

struct scan;
struct stat;

/*
 * The descriptor of --cache-dir (made, mode 0755, when missing; opened
 * O_DIRECTORY|O_NOFOLLOW once per scan, closed by scan_close). Borrowed.
 * CRS_EINPUT when --cache-dir is a link or not a folder.
 */
int cache_root_fd(struct scan *s, int *fd);
/*
 * Open the folder `rel` below the cache (each component O_NOFOLLOW),
 * with `mkdirs` making what is missing. *fd is the caller's to close.
 * CRS_ENOTFOUND when missing, CRS_EINPUT when a link or a file is on
 * the way (naming it).
 */
int cache_root_dir(struct scan *s, const char *rel, int mkdirs, int *fd);
/*
 * Open the regular file `rel` below the cache for reading (fstatat'ed
 * first: a link, a FIFO or a device is never opened); *st gets its stat.
 * *fd is the caller's to close. CRS_ENOTFOUND, or CRS_EINPUT naming it.
 */
int cache_root_file(struct scan *s, const char *rel, int *fd, struct stat *st);
/*
 * Copy the regular files of the folder `from` (no dot names, at most
 * `file_max` bytes each, at most `files_max` of them) that `to` lacks
 * into `to`, each created O_EXCL|O_NOFOLLOW; *copied counts them. Links
 * and other non-regular entries are passed over; with `warn` set each
 * is named in a warning ("<shown>/<name>"). 0 or CRS_ERR.
 */
int cache_copy_files(int from, int to, const char *shown, int warn,
		     size_t files_max, size_t file_max, size_t *copied);
/*
 * Move the file `src` (in crs-ci's own work folder) to `name` in the cache
 * folder `dirfd`: renamed when on the same file system, else copied to a
 * new temporary file (O_EXCL|O_NOFOLLOW) renamed over `name`. Whatever
 * was at `name` (a link too) is replaced, never followed. `src` is gone
 * afterwards either way. 0 or CRS_ERR.
 */
int cache_root_put(int dirfd, const char *name, const char *src);
/*
 * The regular file `rel` below the cache: 1 (and *size its bytes, when
 * not NULL) when it is one, reached without a link; else 0.
 */
int cache_root_has(struct scan *s, const char *rel, long long *size);
/* Remove `rel` below the cache (its parents walked without links; a
 * link at `rel` is removed, never followed). Missing: 0. */
int cache_root_remove(struct scan *s, const char *rel);

#ifdef UNIT_TESTS
/* cache_root_fd's open of `path`: made when missing, never a link;
 * the descriptor is 3 or more (0 means "not opened" in struct scan). */
int cache_root_open(const char *path, int *fd);
/* cache_root_dir below the folder `root`, shown as `shown`. */
int cache_root_dir_at(int root, const char *shown, const char *rel,
		      int mkdirs, int *fd);
#endif

#endif
