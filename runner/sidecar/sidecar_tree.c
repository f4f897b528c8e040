/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_tree.c - build-project's trees, diffed against crs-ci's own
 *
 * Sorted walks so the same trees give the same diff; every entry is
 * opened below its folder's descriptor without following links.
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#include "runner/sidecar/sidecar_tree.h"
#include "runner/sidecar/sidecar_read.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_PATH_MAX 4000	/* bytes of a path below the tree */

struct walk {
	const char *name;	/* the request tree, in messages */
	const char *orig;
	const char *patched;	/* or NULL */
	struct sidecar_tree_count *count;
	struct buf *patch;
	struct strvec seen;	/* the request's files and symlinks */
	struct buf rel;		/* the current path below the trees */
};

/* Append "/leaf" (or "leaf" at the top) to w->rel; *saved: to cut back. */
static int rel_push(struct walk *w, const char *leaf, size_t *saved)
{
	*saved = w->rel.len;
	if (w->rel.len)
		buf_addch(&w->rel, '/');
	buf_adds(&w->rel, leaf);
	if (w->rel.len > TREE_PATH_MAX)
		return crs_error_set(CRS_EINPUT, "%s/%.60s...: path longer "
				     "than %d bytes", w->name, w->rel.ptr,
				     TREE_PATH_MAX);
	return 0;
}

static void rel_pop(struct walk *w, size_t saved)
{
	w->rel.len = saved;
	w->rel.ptr[saved] = '\0';
}

/* The sorted names of a folder, without ".", ".." and ".git". */
static int list_dir(DIR *d, const char *shown, struct strvec *names)
{
	struct dirent *de;

	for (;;) {
		errno = 0;
		if (!(de = readdir(d)))
			break;
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, ".git"))
			strvec_push(names, de->d_name);
	}
	if (errno)
		return crs_error_set(CRS_ERR, "%s: %s", shown,
				     strerror(errno));
	strvec_sort(names->v, names->nr);
	return 0;
}

static int name_ok(const char *n)
{
	for (const unsigned char *p = (const unsigned char *)n; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* lstat of orig/rel: 0, or 1 when it does not exist. */
static int orig_lstat(const struct walk *w, struct stat *st)
{
	char *p = xasprintf("%s/%s", w->orig, w->rel.ptr);
	int r = 0;

	if (lstat(p, st) != 0)
		r = errno == ENOENT || errno == ENOTDIR ? 1 :
			crs_error_set(CRS_ERR, "%s: %s", p, strerror(errno));
	free(p);
	return r;
}

/* The request's regular file dirfd/leaf, within the byte cap. */
static int read_request(struct walk *w, int dirfd, const char *leaf,
			struct buf *b, mode_t *mode)
{
	char *shown = xasprintf("%s/%s", w->name, w->rel.ptr);
	int r = sidecar_read_capped(dirfd, leaf, shown,
				    SIDECAR_TREE_BYTES_MAX - w->count->bytes,
				    b, mode);

	w->count->bytes += b->len;
	free(shown);
	return r;
}

/* Append the diff of one file (old or new NULL: added or deleted). */
static int add_diff(struct walk *w, const struct buf *old,
		    const struct buf *new)
{
	git_diff_options opts;
	git_patch *p = NULL;
	git_buf out = { 0 };
	int r = 0;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_SHOW_BINARY;
	opts.old_prefix = "a";
	opts.new_prefix = "b";
	if (git_patch_from_buffers(&p, old ? old->ptr : NULL,
				   old ? old->len : 0, w->rel.ptr,
				   new ? new->ptr : NULL, new ? new->len : 0,
				   w->rel.ptr, &opts) != 0 ||
	    git_patch_to_buf(&out, p) != 0) {
		const git_error *e = git_error_last();

		r = crs_error_set(CRS_ERR, "%s/%s: cannot diff: %s", w->name,
				  w->rel.ptr, e ? e->message : "?");
	} else if (w->patch->len + out.size > SIDECAR_TREE_PATCH_MAX) {
		r = crs_error_set(CRS_EINPUT, "%s: the diff is larger than %u "
				  "MiB", w->name, SIDECAR_TREE_PATCH_MAX >> 20);
	} else {
		buf_add(w->patch, out.ptr, out.size);
	}
	git_buf_dispose(&out);
	git_patch_free(p);
	return r;
}

/* Write a changed or added file into the patched copy. */
static int write_patched(const struct walk *w, const struct buf *b,
			 mode_t mode)
{
	char *p = xasprintf("%s/%s", w->patched, w->rel.ptr);
	char *slash = strrchr(p, '/');
	int r;

	*slash = '\0';
	r = fs_mkdir_p(p);
	*slash = '/';
	if (r == 0)
		r = fs_write_file_atomic(p, b->ptr, b->len);
	if (r == 0 && chmod(p, mode & 0111 ? 0755 : 0644) != 0)
		r = crs_error_set(CRS_ERR, "%s: %s", p, strerror(errno));
	free(p);
	return r;
}

/* One regular file of the request against the original. */
static int request_file(struct walk *w, int dirfd, const char *leaf,
			const struct stat *ost, int absent)
{
	struct buf nb = BUF_INIT, ob = BUF_INIT;
	char *op = NULL;
	mode_t mode = 0644;
	int r;

	if (!absent && !S_ISREG(ost->st_mode))
		return crs_error_set(CRS_EINPUT, "%s/%s: a file where the "
				     "original has a %s", w->name, w->rel.ptr,
				     S_ISDIR(ost->st_mode) ? "folder" :
				     S_ISLNK(ost->st_mode) ? "symlink" :
				     "special file");
	if ((r = read_request(w, dirfd, leaf, &nb, &mode)) != 0)
		goto out;
	if (!absent) {
		op = xasprintf("%s/%s", w->orig, w->rel.ptr);
		if ((r = fs_read_file(&ob, op, SIDECAR_TREE_BYTES_MAX)) != 0)
			goto out;
		if (ob.len == nb.len && !memcmp(ob.ptr, nb.ptr, nb.len))
			goto out;	/* unchanged */
	}
	if ((r = add_diff(w, absent ? NULL : &ob, &nb)) == 0 && w->patched)
		r = write_patched(w, &nb, mode);
out:
	buf_release(&nb);
	buf_release(&ob);
	free(op);
	return r;
}

/* A symlink of the request: only the original's own, unchanged. */
static int request_link(struct walk *w, int dirfd, const char *leaf,
			const struct stat *ost, int absent)
{
	char nt[TREE_PATH_MAX + 1], ot[TREE_PATH_MAX + 1], *op = NULL;
	ssize_t n = readlinkat(dirfd, leaf, nt, sizeof(nt) - 1), m = -1;

	if (!absent && S_ISLNK(ost->st_mode)) {
		op = xasprintf("%s/%s", w->orig, w->rel.ptr);
		m = readlink(op, ot, sizeof(ot) - 1);
		free(op);
	}
	if (n >= 0 && m == n && !memcmp(nt, ot, (size_t)n))
		return 0;
	return crs_error_set(CRS_EINPUT, "%s/%s: a symlink that is not the "
			     "original's (build-project does not change "
			     "symlinks)", w->name, w->rel.ptr);
}

static int walk_request(struct walk *w, int dfd, int depth);

/* One entry of a request folder. */
static int request_entry(struct walk *w, int dfd, const char *leaf,
			 int depth)
{
	struct stat st, ost;
	int absent, sub, r;

	if (!name_ok(leaf))
		return crs_error_set(CRS_EINPUT, "%s/%s: a name with control "
				     "characters", w->name, w->rel.ptr);
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return crs_error_set(CRS_EINPUT, "%s/%s: %s", w->name,
				     w->rel.ptr, strerror(errno));
	if ((absent = orig_lstat(w, &ost)) < 0)
		return absent;
	if (!S_ISDIR(st.st_mode) &&
	    ++w->count->files > SIDECAR_TREE_FILES_MAX)
		return crs_error_set(CRS_EINPUT, "%s: more than %d files",
				     w->name, SIDECAR_TREE_FILES_MAX);
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size >
	    SIDECAR_TREE_BYTES_MAX - w->count->bytes)
		return crs_error_set(CRS_EINPUT, "%s: more than %llu MiB of "
				     "files", w->name,
				     SIDECAR_TREE_BYTES_MAX >> 20);
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		strvec_push(&w->seen, w->rel.ptr);
	if (S_ISREG(st.st_mode))
		return request_file(w, dfd, leaf, &ost, absent);
	if (S_ISLNK(st.st_mode))
		return request_link(w, dfd, leaf, &ost, absent);
	if (!S_ISDIR(st.st_mode))
		return crs_error_set(CRS_EINPUT, "%s/%s: not a regular file, "
				     "folder or symlink", w->name, w->rel.ptr);
	if (!absent && !S_ISDIR(ost.st_mode))
		return crs_error_set(CRS_EINPUT, "%s/%s: a folder where the "
				     "original has a file or symlink", w->name,
				     w->rel.ptr);
	if (depth >= SIDECAR_TREE_DEPTH_MAX)
		return crs_error_set(CRS_EINPUT, "%s/%s: deeper than %d "
				     "folders", w->name, w->rel.ptr,
				     SIDECAR_TREE_DEPTH_MAX);
	sub = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (sub < 0)
		return crs_error_set(CRS_EINPUT, "%s/%s: %s", w->name,
				     w->rel.ptr, strerror(errno));
	r = walk_request(w, sub, depth + 1);
	close(sub);
	return r;
}

/* The request folder `dfd` (closed by the caller). */
static int walk_request(struct walk *w, int dfd, int depth)
{
	struct strvec names = STRVEC_INIT;
	DIR *d = fs_dir_stream(dfd);
	int r;

	if (!d)
		return crs_error_set(CRS_ERR, "%s/%s: %s", w->name,
				     w->rel.ptr, strerror(errno));
	r = list_dir(d, w->name, &names);
	closedir(d);
	for (size_t i = 0; i < names.nr && r == 0; i++) {
		size_t saved;

		if ((r = rel_push(w, names.v[i], &saved)) == 0)
			r = request_entry(w, dfd, names.v[i], depth);
		rel_pop(w, saved);
	}
	strvec_release(&names);
	return r;
}

/* The original folder orig/rel: what the request lacks is deleted. */
static int walk_orig(struct walk *w)
{
	char *dir = xasprintf("%s/%s", w->orig, w->rel.ptr);
	struct strvec names = STRVEC_INIT;
	DIR *d = opendir(dir);
	int r;

	if (!d) {
		r = crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
		goto out;
	}
	r = list_dir(d, dir, &names);
	closedir(d);
	for (size_t i = 0; i < names.nr && r == 0; i++) {
		struct buf ob = BUF_INIT;
		struct stat st;
		size_t saved;
		char *p;

		if ((r = rel_push(w, names.v[i], &saved)) != 0 ||
		    (r = orig_lstat(w, &st)) != 0) {
			rel_pop(w, saved);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			r = walk_orig(w);
		} else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
			   !bsearch(&w->rel.ptr, w->seen.v, w->seen.nr,
				    sizeof(char *), strvec_cmp)) {
			if (S_ISLNK(st.st_mode)) {
				r = crs_error_set(CRS_EINPUT, "%s/%s: the "
						  "original's symlink is "
						  "missing (build-project does "
						  "not delete symlinks)",
						  w->name, w->rel.ptr);
			} else {
				p = xasprintf("%s/%s", w->orig, w->rel.ptr);
				r = fs_read_file(&ob, p,
						 SIDECAR_TREE_BYTES_MAX);
				free(p);
				if (r == 0)
					r = add_diff(w, &ob, NULL);
				if (r == 0 && w->patched) {
					p = xasprintf("%s/%s", w->patched,
						      w->rel.ptr);
					if (unlink(p) != 0)
						r = crs_error_set(CRS_ERR,
							"%s: %s", p,
							strerror(errno));
					free(p);
				}
			}
		}
		buf_release(&ob);
		rel_pop(w, saved);
	}
out:
	strvec_release(&names);
	free(dir);
	return r;
}

int sidecar_tree_diff(int reqfd, const char *name, const char *orig,
		      const char *patched, struct sidecar_tree_count *count,
		      struct buf *patch)
{
	struct walk w = { .name = name, .orig = orig, .patched = patched,
			  .count = count, .patch = patch,
			  .seen = STRVEC_INIT, .rel = BUF_INIT };
	int dfd = openat(reqfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			 O_CLOEXEC);
	int r;

	if (dfd < 0)
		return crs_error_set(CRS_EINPUT, "%s: not a folder: %s", name,
				     strerror(errno));
	if (patched && ((r = fs_remove_tree(patched)) != 0 ||
			(r = fs_copy_tree(orig, patched)) != 0))
		goto out;
	if ((r = walk_request(&w, dfd, 0)) != 0)
		goto out;
	strvec_sort(w.seen.v, w.seen.nr);
	r = walk_orig(&w);
out:
	close(dfd);
	strvec_release(&w.seen);
	buf_release(&w.rel);
	return r;
}
