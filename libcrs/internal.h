/* SPDX-License-Identifier: Apache-2.0 */
/*
 * internal.h - helpers shared by the libcrs sources, not part of the API
 *
 * Paths live in fixed PATH_MAX buffers so that the public functions need
 * no heap allocation for them; "too long" is reported as CRS_EINPUT.
 * Everything returns 0 or a negative CRS_E* code with a message set.
 */
#ifndef CRS_LIBCRS_INTERNAL_H
#define CRS_LIBCRS_INTERNAL_H

#include "libcrs/libcrs.h"

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Size of every path buffer here. */
#define LCRS_PATH_MAX 4096

/* snprintf into out[outsz]; CRS_EINPUT naming `what` when it is cut. */
int lcrs_path_fmt(char *out, size_t outsz, const char *what,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* `value` when it is set (non-NULL, non-empty), else CRS_ECONFIG. */
int lcrs_need(const char *value, const char *var);

/* mkdir -p `path` (mode 0755), following symlinks: for caller paths. */
int lcrs_mkdir_p(const char *path);

/*
 * Open the directory `root` (O_DIRECTORY), creating it with its parents
 * first when `create` is set. *fd_out gets the descriptor.
 */
int lcrs_open_dir(const char *root, int create, int *fd_out);

/*
 * The last component of `path` (trailing slashes ignored) into out[outsz].
 * Returns 0, or CRS_EINPUT with no message set when it does not fit: the
 * caller says what was too long.
 */
int lcrs_base_name(char *out, size_t outsz, const char *path);

/*
 * Append "/name" to the path in buf[LCRS_PATH_MAX] ("name" when buf is
 * empty); *saved gets the old length, to cut back to. CRS_ERR when it
 * does not fit.
 */
int lcrs_path_push(char *buf, size_t *saved, const char *name);

/*
 * Walk the normalised relative path `rel` (see crs_path_normalize) below
 * the directory `rootfd` without following symlinks, creating missing
 * directories when `mkdirs` is set. On success *parent_fd is a new
 * descriptor of the directory holding the last component and *leaf points
 * into `rel` at that component's name. `rel` must not be "" (CRS_EINPUT).
 * `shown` names the root in messages.
 */
int lcrs_walk(int rootfd, const char *shown, const char *rel, int mkdirs,
	      int *parent_fd, const char **leaf);

/*
 * lcrs_open_dir(root, 1) then lcrs_walk(..., rel, 1): *fd_out is the
 * directory holding rel's last component and *leaf its name, or for rel
 * "" root itself and NULL. Only *fd_out is left open.
 */
int lcrs_open_below(const char *root, const char *rel, int *fd_out,
		    const char **leaf);

/*
 * A DIR stream over a duplicate of the directory descriptor `fd` (which
 * stays the caller's); `shown` names it in messages.
 */
int lcrs_fdopendir(int fd, const char *shown, DIR **out);

/*
 * Create a hidden temporary file ".libcrs.tmp.<pid>.<n>" in `dirfd`, mode
 * 0600. name[64] gets its name, *fd_out the descriptor.
 */
int lcrs_tmp_create(int dirfd, char name[64], int *fd_out);

/* close(2) *fd and set it to -1; "close '<shown>'" when that fails. */
int lcrs_close(int *fd, const char *shown);

/*
 * The cleanup after lcrs_tmp_create() on any path: close `fd` when >= 0
 * and remove `name` from `dirfd` unless it is "" (renamed into place).
 */
void lcrs_tmp_discard(int dirfd, const char *name, int fd);

/*
 * rename(2) `from` to `to` in `dirfd` unless `to` exists. Returns 0,
 * CRS_ECONFLICT (no message set: a caller branches on it) when `to`
 * exists, CRS_ERR otherwise.
 */
int lcrs_rename_noreplace(int dirfd, const char *from, const char *to);

/*
 * Copy `in` to `out` until end of file, handing each chunk to `peek`
 * first when it is set. `shown_in` and `shown_out` name them in messages.
 */
int lcrs_copy_fd(int in, int out, const char *shown_in,
		 const char *shown_out,
		 void (*peek)(const void *data, size_t len, void *ctx),
		 void *ctx);

/* Write `data` to dirfd/name via a temporary file and rename, `mode`. */
int lcrs_write_file_at(int dirfd, const char *name, const void *data,
		       size_t len, mode_t mode, const char *shown);

/*
 * Copy the regular file `sname` in `sdirfd` (opened without following a
 * symlink) to `dname` in `ddirfd` via a temporary file and rename,
 * keeping mode, mtime and (as root) owner. `shown` names the source.
 */
int lcrs_copy_reg_at(int sdirfd, const char *sname, int ddirfd,
		     const char *dname, const char *shown);

/*
 * Copy `src` (followed if a symlink) into the directory `ddirfd`:
 * - leaf == NULL: ddirfd itself is the destination directory (a directory
 *   source has its contents merged in, a file goes in under its name);
 * - leaf != NULL: the destination is ddirfd/leaf, not followed if it is a
 *   symlink (replaced instead), unless `follow_leaf` is set.
 * `shown_dst` names the destination in messages.
 */
int lcrs_copy_to(const char *src, int ddirfd, const char *leaf,
		 int follow_leaf, const char *shown_dst);

/* What build-project's copies used of the CRS_TREE_* caps so far. */
struct lcrs_tree_count {
	size_t files;			/* files and symlinks */
	unsigned long long bytes;	/* of the files */
};

/*
 * build-project: copy the folder `src` (followed if a symlink) into
 * ddirfd/leaf as lcrs_copy_to does, skipping ".git" entries, refusing
 * FIFOs, sockets, devices and symlinks that lead out of src (absolute,
 * too many "..", or resolving outside) with CRS_EINPUT, and adding up
 * *count across calls against the CRS_TREE_* caps of libcrs.h.
 */
int lcrs_copy_tree(const char *src, int ddirfd, const char *leaf,
		   const char *shown_dst, struct lcrs_tree_count *count);

/*
 * rm -rf pfd/name without following symlinks; a missing name is not an
 * error.
 */
int lcrs_remove_at(int pfd, const char *name);

/*
 * Submit the open regular file `fd` (whose base name is `base`, for the
 * suffix) of type `type` into the submit directory `submit_dir`.
 * Arguments and results as crs_submit().
 */
int lcrs_submit_fd(const char *submit_dir, enum crs_type type, int fd,
		   const char *base, char *name_out, int *existed);

/*
 * One fetch pass from `src` (fetch_dir/<type dir>) into the open directory
 * `dstfd` (shown as `dst`). When `ifd` >= 0 every directory walked is
 * added to that inotify instance. Arguments and results as crs_fetch().
 */
int lcrs_fetch_pass(const char *src, int dstfd, const char *dst,
		    enum crs_type type, int ifd, crs_event_fn fn, void *ctx,
		    size_t *count);

/* Hand one event of `kind` to `fn` (with `ctx`) when fn is set. */
void lcrs_emit(crs_event_fn fn, void *ctx, enum crs_event_kind kind,
	       enum crs_type type, const char *path, const char *name,
	       const char *message);

#endif
