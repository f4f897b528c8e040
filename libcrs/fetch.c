/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fetch.c - `libCRS fetch`: copy shared artifacts from FETCH_DIR
 *
 * Nested files are copied too (OSS-CRS copies only the top level);
 * links are neither followed nor copied. lcrs_emit() lives here.
 *
 * Details: docs/crs-authors.md; design notes: docs/internals.md.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* Events that mean "something may have appeared below here". */
#define FETCH_WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
			  IN_DELETE_SELF | IN_MOVE_SELF)

struct fetch_pass {
	enum crs_type type;
	int dstfd;
	const char *dst;
	int ifd;
	crs_event_fn fn;
	void *ctx;
	size_t copied;
	int first_err;
	char src[LCRS_PATH_MAX];	/* source path of the current dir */
	char rel[LCRS_PATH_MAX];	/* path relative to the type dir */
};

void lcrs_emit(crs_event_fn fn, void *ctx, enum crs_event_kind kind,
	       enum crs_type type, const char *path, const char *name,
	       const char *message)
{
	struct crs_event ev = {
		.kind = kind, .type = type, .path = path, .name = name,
		.message = message,
	};

	if (fn)
		fn(&ev, ctx);
}

static void emit(struct fetch_pass *p, enum crs_event_kind kind,
		 const char *path, const char *name, const char *message)
{
	lcrs_emit(p->fn, p->ctx, kind, p->type, path, name, message);
}

static void fail(struct fetch_pass *p, int r, const char *path)
{
	if (!p->first_err)
		p->first_err = r;
	emit(p, CRS_EVENT_ERROR, path, NULL, crs_error_last());
}

static void fetch_file(struct fetch_pass *p, int sfd, const char *name)
{
	struct stat st;
	const char *leaf = NULL;
	int pfd = -1, r;

	if (fstatat(p->dstfd, p->rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return;		/* already there */
	if ((r = lcrs_walk(p->dstfd, p->dst, p->rel, 1, &pfd, &leaf)) != 0 ||
	    (r = lcrs_copy_reg_at(sfd, name, pfd, leaf, p->src)) != 0) {
		fail(p, r, p->src);
	} else {
		p->copied++;
		emit(p, CRS_EVENT_FETCHED, p->src, p->rel, NULL);
	}
	if (pfd >= 0)
		close(pfd);
}

static void fetch_dir(struct fetch_pass *p, int sfd)
{
	struct dirent *de;
	DIR *d = NULL;
	int r;

	if (p->ifd >= 0)
		inotify_add_watch(p->ifd, p->src, FETCH_WATCH_MASK);
	if ((r = lcrs_fdopendir(sfd, p->src, &d)) != 0) {
		fail(p, r, p->src);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		size_t ls, lr;
		int sub;

		if (de->d_name[0] == '.')
			continue;
		if (lcrs_path_push(p->src, &ls, de->d_name) != 0) {
			fail(p, CRS_ERR, p->src);
			continue;
		}
		if (lcrs_path_push(p->rel, &lr, de->d_name) != 0) {
			fail(p, CRS_ERR, p->src);
			p->src[ls] = '\0';
			continue;
		}
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			/* vanished while we looked: not an error */
		} else if (S_ISREG(st.st_mode)) {
			fetch_file(p, sfd, de->d_name);
		} else if (S_ISDIR(st.st_mode)) {
			sub = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				fail(p, crs_error_set(CRS_ERR, "'%s': %s",
						      p->src,
						      strerror(errno)),
				     p->src);
			} else {
				fetch_dir(p, sub);
				close(sub);
			}
		}
		p->src[ls] = '\0';
		p->rel[lr] = '\0';
	}
	closedir(d);
}

int lcrs_fetch_pass(const char *src, int dstfd, const char *dst,
		    enum crs_type type, int ifd, crs_event_fn fn, void *ctx,
		    size_t *count)
{
	struct fetch_pass *p = NULL;
	int sfd = -1, r = CRS_ERR;

	if (count)
		*count = 0;
	sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;	/* nothing shared of this type */
	if (sfd < 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", src, strerror(errno));
		goto out;
	}
	/* Two path buffers: too large for a daemon's stack frames. */
	if (!(p = calloc(1, sizeof(*p)))) {
		r = crs_error_set(CRS_ENOMEM, "fetch: out of memory");
		goto out;
	}
	p->type = type;
	p->dstfd = dstfd;
	p->dst = dst;
	p->ifd = ifd;
	p->fn = fn;
	p->ctx = ctx;
	if ((r = lcrs_path_fmt(p->src, sizeof(p->src), src, "%s",
			       src)) != 0)
		goto out;
	fetch_dir(p, sfd);
	r = p->first_err;	/* each was reported as an event */
	if (count)
		*count = p->copied;
	free(p);
	close(sfd);
	return r;
out:
	/* A failure before any file: report it as an event as well. */
	lcrs_emit(fn, ctx, CRS_EVENT_ERROR, type, src, NULL, crs_error_last());
	free(p);
	if (sfd >= 0)
		close(sfd);
	return r;
}

int crs_fetch(const struct crs_env *env, enum crs_type type,
	      const char *dir, crs_event_fn fn, void *ctx, size_t *count)
{
	char src[LCRS_PATH_MAX];
	int dfd = -1, r;

	if (count)
		*count = 0;
	if (!crs_type_allows(type, CRS_USE_FETCH))
		return crs_error_set(CRS_EINPUT, "type %d cannot be fetched",
				     (int)type);
	if ((r = lcrs_open_dir(dir, 1, &dfd)) != 0)
		return r;
	if (env->fetch_dir && *env->fetch_dir &&
	    (r = lcrs_path_fmt(src, sizeof(src), env->fetch_dir, "%s/%s",
			       env->fetch_dir, crs_type_dir(type))) == 0)
		r = lcrs_fetch_pass(src, dfd, dir, type, -1, fn, ctx, count);
	close(dfd);
	return r;
}
