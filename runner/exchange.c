/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.c - the artifact exchange between the CRSs of a run
 *
 * Trust boundary: submit dirs are written by CRS containers. Only regular
 * files are copied (lstat, then open with O_NOFOLLOW), each at most
 * EXCHANGE_FILE_MAX bytes, at most EXCHANGE_DEPTH_MAX folders deep, names
 * taken from readdir (so never "..") and dot files skipped. Copies are
 * written to a temp name and renamed, so a CRS never fetches half a file.
 * Content is deduplicated by SHA-256 across all CRSs; nested folders are
 * kept (OSS-CRS flattened or dropped them).
 */
#include "runner/exchange.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXCHANGE_FILE_MAX (64u << 20)
#define EXCHANGE_DEPTH_MAX 8
#define EXCHANGE_TYPES 5

static const char *const types[EXCHANGE_TYPES] = {
	"povs", "seeds", "bug-candidates", "reports", "patches",
};

struct watch {
	int wd;
	char *dir;		/* watched folder */
	char *rel;		/* its path below the type folder ("" at top) */
	int type;
	int depth;
	char *crs;
};

struct exchange {
	int fd;
	char *root;
	struct watch *w;
	size_t w_nr, w_alloc;
	char **seen;		/* "<type>:<sha256>" of copied contents */
	size_t seen_nr, seen_alloc;
	unsigned copied[EXCHANGE_TYPES];
};

static int seen_before(const struct exchange *x, int type, const char *sha)
{
	char key[80];

	snprintf(key, sizeof(key), "%d:%s", type, sha);
	for (size_t i = 0; i < x->seen_nr; i++)
		if (!strcmp(x->seen[i], key))
			return 1;
	return 0;
}

/* Remember content that reached the exchange (after, not before, it did). */
static void mark_seen(struct exchange *x, int type, const char *sha)
{
	ALLOC_GROW(x->seen, x->seen_nr + 1, x->seen_alloc);
	x->seen[x->seen_nr++] = xasprintf("%d:%s", type, sha);
}

/* Read a submitted file without following links, bounded. */
static int read_submitted(struct buf *b, const char *path)
{
	char chunk[65536];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int r = 0;

	if (fd < 0)
		return crs_error_set(CRS_EINPUT, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)EXCHANGE_FILE_MAX) {
		close(fd);
		return crs_error_set(CRS_EINPUT, "%s: not a regular file of at "
				     "most %u bytes", path, EXCHANGE_FILE_MAX);
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				r = crs_error_set(CRS_ERR, "%s: %s", path,
						  strerror(errno));
			break;
		}
		if (b->len + (size_t)n > EXCHANGE_FILE_MAX) {
			r = crs_error_set(CRS_EINPUT, "%s: grew past %u bytes",
					  path, EXCHANGE_FILE_MAX);
			break;
		}
		buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	return r;
}

static void copy_one(struct exchange *x, const struct watch *w,
		     const char *name)
{
	char *src = xasprintf("%s/%s", w->dir, name);
	char *dir = *w->rel ? xasprintf("%s/%s/%s", x->root, types[w->type],
					w->rel) :
		xasprintf("%s/%s", x->root, types[w->type]);
	char *dst = xasprintf("%s/%s", dir, name);
	struct buf b = BUF_INIT;
	char sha[65];

	if (name[0] == '.' || fs_exists(dst))
		goto out;
	if (read_submitted(&b, src) != 0) {
		if (fs_exists(src))	/* else renamed away meanwhile */
			log_warn("exchange: %s: %s", w->crs, crs_error_last());
		crs_error_clear();
		goto out;
	}
	sha256_hex(sha, b.ptr, b.len);
	if (seen_before(x, w->type, sha))
		goto out;
	if (fs_mkdir_p(dir) != 0 || fs_write_file_atomic(dst, b.ptr, b.len)) {
		log_warn("exchange: %s", crs_error_last());
		crs_error_clear();
		goto out;
	}
	mark_seen(x, w->type, sha);
	x->copied[w->type]++;
	log_debug("exchange: %s/%s%s%s from %s", types[w->type], w->rel,
		  *w->rel ? "/" : "", name, w->crs);
out:
	buf_release(&b);
	free(src);
	free(dir);
	free(dst);
}

static void scan_dir(struct exchange *x, size_t wi, int depth);

static void add_watch(struct exchange *x, const char *dir, const char *rel,
		      int type, const char *crs, int depth)
{
	struct watch *w;
	int wd;

	if (depth > EXCHANGE_DEPTH_MAX)
		return;
	wd = inotify_add_watch(x->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO |
			       IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (wd < 0)
		return;
	for (size_t i = 0; i < x->w_nr; i++)
		if (x->w[i].wd == wd)
			return;	/* already watched */
	ALLOC_GROW(x->w, x->w_nr + 1, x->w_alloc);
	w = &x->w[x->w_nr++];
	w->wd = wd;
	w->dir = xstrdup(dir);
	w->rel = xstrdup(rel);
	w->type = type;
	w->depth = depth;
	w->crs = xstrdup(crs);
	scan_dir(x, x->w_nr - 1, depth);
}

/* Copy what a folder holds and watch its sub-folders. */
static void scan_dir(struct exchange *x, size_t wi, int depth)
{
	DIR *d = opendir(x->w[wi].dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *path, *rel;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", x->w[wi].dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			rel = *x->w[wi].rel ?
				xasprintf("%s/%s", x->w[wi].rel, de->d_name) :
				xstrdup(de->d_name);
			add_watch(x, path, rel, x->w[wi].type, x->w[wi].crs,
				  depth + 1);
			free(rel);
		} else if (S_ISREG(st.st_mode)) {
			copy_one(x, &x->w[wi], de->d_name);
		}
		free(path);
	}
	closedir(d);
}

int exchange_new(struct exchange **out, const char *exchange_root,
		 const char *const *submit_roots, const char *const *names,
		 int nr)
{
	struct exchange *x = xcalloc(1, sizeof(*x));
	int r = 0;

	*out = NULL;
	x->root = xstrdup(exchange_root);
	x->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (x->fd < 0) {
		r = crs_error_set(CRS_ERR, "inotify: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < nr && r == 0; i++)
		for (int t = 0; t < EXCHANGE_TYPES && r == 0; t++) {
			char *dir = xasprintf("%s/%s", submit_roots[i], types[t]);

			if ((r = fs_mkdir_p(dir)) == 0)
				add_watch(x, dir, "", t, names[i], 0);
			free(dir);
		}
out:
	if (r != 0) {
		exchange_free(x);
		return r;
	}
	*out = x;
	return 0;
}

int exchange_fd(const struct exchange *x)
{
	return x->fd;
}

static struct watch *find_watch(struct exchange *x, int wd, size_t *idx)
{
	for (size_t i = 0; i < x->w_nr; i++)
		if (x->w[i].wd == wd) {
			*idx = i;
			return &x->w[i];
		}
	return NULL;
}

int exchange_sync(struct exchange *x)
{
	char ev[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(x->fd, ev, sizeof(ev));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;	/* EAGAIN: nothing more now */
		for (char *p = ev; p < ev + n;) {
			struct inotify_event *e = (struct inotify_event *)p;
			size_t wi = 0;
			struct watch *w = find_watch(x, e->wd, &wi);

			p += sizeof(*e) + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				for (size_t i = 0; i < x->w_nr; i++)
					scan_dir(x, i, x->w[i].depth);
				continue;
			}
			if (!w || !e->len)
				continue;
			if (e->mask & IN_ISDIR) {
				char *dir = xasprintf("%s/%s", w->dir, e->name);
				char *rel = *w->rel ?
					xasprintf("%s/%s", w->rel, e->name) :
					xstrdup(e->name);
				char *crs = xstrdup(w->crs);
				int type = w->type, depth = w->depth + 1;

				/* add_watch may move x->w: w is stale after */
				add_watch(x, dir, rel, type, crs, depth);
				free(dir);
				free(rel);
				free(crs);
			} else if (e->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) {
				copy_one(x, w, e->name);
			}
		}
	}
}

unsigned exchange_copied(const struct exchange *x, int type)
{
	return type >= 0 && type < EXCHANGE_TYPES ? x->copied[type] : 0;
}

void exchange_free(struct exchange *x)
{
	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	for (size_t i = 0; i < x->w_nr; i++) {
		free(x->w[i].dir);
		free(x->w[i].rel);
		free(x->w[i].crs);
	}
	for (size_t i = 0; i < x->seen_nr; i++)
		free(x->seen[i]);
	free(x->seen);
	free(x->w);
	free(x->root);
	free(x);
}
