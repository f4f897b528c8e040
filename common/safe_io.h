/* SPDX-License-Identifier: Apache-2.0 */
/*
 * safe_io.h - the bounded read and write loops, the relative-path check
 *
 * The two primitives every trust-boundary reader shares (docs/decisions.md,
 * decision 10): a read that never takes more than a cap, retries EINTR
 * and reports short files, and the test that a path a container or a
 * report named stays below the folder it is joined to; and the one way a
 * new folder is made inside a folder someone else can write. Opening
 * existing files (O_NOFOLLOW, fstatat) stays with the callers in fsutil.c.
 */
#ifndef CRS_COMMON_SAFE_IO_H
#define CRS_COMMON_SAFE_IO_H

#include <stddef.h>

struct buf;

/*
 * Read fd into dst until end of file or until `cap` bytes are in; *len_out
 * gets the count (less than cap only at end of file). EINTR is retried.
 * 0, or CRS_ERR "<what>: read: <errno text>" (*len_out then holds what
 * was read before the failure).
 */
int safe_read_full(int fd, void *dst, size_t cap, size_t *len_out,
		   const char *what);

/* Called once per chunk read by safe_read_chunks; nonzero stops it. */
typedef int (*safe_chunk_fn)(void *ctx, const char *p, size_t n);

/*
 * Read fd to its end in chunks, handing each to fn: more than `max` bytes
 * in all is CRS_EINPUT "<what>: larger than <max> bytes" (nothing past the
 * cap is handed on). 0, fn's code, or safe_read_full's.
 */
int safe_read_chunks(int fd, size_t max, const char *what, safe_chunk_fn fn,
		     void *ctx);

/* safe_read_chunks appending to out: at most `max` new bytes. */
int safe_read_buf(struct buf *out, int fd, size_t max, const char *what);

/*
 * Write all `len` bytes of data to fd, retrying EINTR and short writes.
 * 0, or CRS_ERR "<what>: write: <errno text>".
 */
int safe_write_all(int fd, const void *data, size_t len, const char *what);

/*
 * 1 when `p` is a relative path that stays below the folder it is joined
 * to: not NULL, not empty, not absolute, no ".." component. Else 0.
 * Cannot fail.
 */
int safe_relpath_ok(const char *p);

/*
 * Make the new folder `name` (one component, mode 0755) in the folder
 * `dirfd` and open it (O_DIRECTORY|O_NOFOLLOW, so whatever replaced it
 * in between is not followed): the descriptor, the caller's to close, or
 * -1 with errno set (EEXIST when `name` already exists).
 */
int safe_mkdirat_open(int dirfd, const char *name);

#endif
