/* SPDX-License-Identifier: Apache-2.0 */
/*
 * watch.c - the directory watchers behind register-submit-dir and
 * register-fetch-dir
 *
 * inotify handles each file at once (OSS-CRS batches and polls);
 * without inotify the folders are scanned every second.
 *
 * Details: docs/exchange.md; design notes: docs/internals.md.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUBMIT_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | \
		     IN_MOVE_SELF | IN_ONLYDIR)
#define FETCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
		    IN_DELETE_SELF | IN_MOVE_SELF)
#define POLL_MS 1000		/* scan period without inotify */
#define FETCH_SAFETY_MS 5000	/* fetch re-sync period with inotify */

enum watch_kind { WATCH_SUBMIT, WATCH_FETCH };

/* A set of 64-bit file keys (0 never stored), open addressing. */
struct seen_set {
	uint64_t *slots;
	size_t alloc;
	size_t nr;
};

struct crs_watch {
	enum watch_kind kind;
	enum crs_type type;
	int ifd;		/* inotify instance, or -1: polling */
	int wd;			/* submit: watch on dir, or -1 */
	int missing;		/* submit: dir vanished, waiting for it */
	int idle;		/* fetch: OSS_CRS_FETCH_DIR unset */
	crs_event_fn fn;
	void *ctx;
	struct seen_set seen;
	char dir[LCRS_PATH_MAX];	/* watched dir, or fetch destination */
	char src[LCRS_PATH_MAX];	/* fetch: FETCH_DIR/<type dir> */
	char submit_dir[LCRS_PATH_MAX];
	char shown[LCRS_PATH_MAX + 512];	/* scratch: event paths */
};

static void emit(struct crs_watch *w, enum crs_event_kind kind,
		 const char *path, const char *name, const char *message)
{
	lcrs_emit(w->fn, w->ctx, kind, w->type, path, name, message);
}

static uint64_t file_key(const char *name, const struct stat *st)
{
	uint64_t h = 1469598103934665603ULL;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h ^= (uint64_t)st->st_ino * 0x9e3779b97f4a7c15ULL;
	h = (h ^ (uint64_t)st->st_size) * 1099511628211ULL;
	h = (h ^ (uint64_t)st->st_mtim.tv_sec) * 1099511628211ULL;
	h = (h ^ (uint64_t)st->st_mtim.tv_nsec) * 1099511628211ULL;
	return h ? h : 1;
}

static int seen_has(const struct seen_set *s, uint64_t key)
{
	if (!s->alloc)
		return 0;
	for (size_t i = key & (s->alloc - 1); s->slots[i];
	     i = (i + 1) & (s->alloc - 1))
		if (s->slots[i] == key)
			return 1;
	return 0;
}

/* Remember key; on allocation failure forget nothing but add nothing. */
static void seen_add(struct seen_set *s, uint64_t key)
{
	if ((s->nr + 1) * 2 > s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 1024;
		uint64_t *slots = calloc(alloc, sizeof(*slots));

		if (!slots)
			return;
		for (size_t i = 0; i < s->alloc; i++) {
			size_t j;

			if (!s->slots[i])
				continue;
			for (j = s->slots[i] & (alloc - 1); slots[j];
			     j = (j + 1) & (alloc - 1))
				;
			slots[j] = s->slots[i];
		}
		free(s->slots);
		s->slots = slots;
		s->alloc = alloc;
	}
	for (size_t i = key & (s->alloc - 1); ; i = (i + 1) & (s->alloc - 1)) {
		if (s->slots[i] == key)
			return;
		if (!s->slots[i]) {
			s->slots[i] = key;
			s->nr++;
			return;
		}
	}
}

/* A watch of `dir`, which is created when missing. */
static int watch_new(struct crs_watch **out, enum watch_kind kind,
		     enum crs_type type, const char *dir)
{
	struct crs_watch *w = NULL;
	int fd = -1, r;

	*out = NULL;
	if ((r = lcrs_open_dir(dir, 1, &fd)) != 0)
		return r;
	close(fd);
	if (!(w = calloc(1, sizeof(*w))))
		return crs_error_set(CRS_ENOMEM, "watch: out of memory");
	w->kind = kind;
	w->type = type;
	w->ifd = -1;
	w->wd = -1;
	if ((r = lcrs_path_fmt(w->dir, sizeof(w->dir), dir, "%s", dir)) != 0) {
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

static void watch_inotify(struct crs_watch *w)
{
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

int crs_watch_submit_dir(struct crs_watch **out, const struct crs_env *env,
			 enum crs_type type, const char *dir)
{
	struct crs_watch *w = NULL;
	char typedir[LCRS_PATH_MAX];
	int r;

	*out = NULL;
	if (!crs_type_allows(type, CRS_USE_SUBMIT_DIR))
		return crs_error_set(CRS_EINPUT, "type '%s' cannot be used "
				     "with register-submit-dir",
				     crs_type_name(type) ? crs_type_name(type)
				     : "?");
	if ((r = lcrs_need(env->submit_dir, "OSS_CRS_SUBMIT_DIR")) != 0 ||
	    (r = lcrs_path_fmt(typedir, sizeof(typedir), env->submit_dir,
			       "%s/%s", env->submit_dir,
			       crs_type_dir(type))) != 0 ||
	    (r = lcrs_mkdir_p(typedir)) != 0 ||
	    (r = watch_new(&w, WATCH_SUBMIT, type, dir)) != 0 ||
	    (r = lcrs_path_fmt(w->submit_dir, sizeof(w->submit_dir),
			       env->submit_dir, "%s", env->submit_dir)) != 0)
		goto out;
	watch_inotify(w);
	if (w->ifd >= 0 &&
	    (w->wd = inotify_add_watch(w->ifd, dir, SUBMIT_MASK)) < 0) {
		close(w->ifd);
		w->ifd = -1;
	}
	*out = w;
	w = NULL;
	r = 0;
out:
	crs_watch_free(w);
	return r;
}

int crs_watch_fetch_dir(struct crs_watch **out, const struct crs_env *env,
			enum crs_type type, const char *dir)
{
	struct crs_watch *w = NULL;
	int r;

	*out = NULL;
	if (!crs_type_allows(type, CRS_USE_FETCH))
		return crs_error_set(CRS_EINPUT, "type %d cannot be fetched",
				     (int)type);
	if ((r = watch_new(&w, WATCH_FETCH, type, dir)) != 0)
		goto out;
	if (!env->fetch_dir || !*env->fetch_dir) {
		w->idle = 1;
	} else {
		if ((r = lcrs_path_fmt(w->src, sizeof(w->src),
				       env->fetch_dir, "%s/%s",
				       env->fetch_dir,
				       crs_type_dir(type))) != 0)
			goto out;
		watch_inotify(w);
	}
	*out = w;
	w = NULL;
	r = 0;
out:
	crs_watch_free(w);
	return r;
}

int crs_watch_uses_inotify(const struct crs_watch *w)
{
	return w->ifd >= 0;
}

void crs_watch_poll_only(struct crs_watch *w)
{
	if (w->ifd >= 0)
		close(w->ifd);
	w->ifd = -1;
	w->wd = -1;
}

void crs_watch_free(struct crs_watch *w)
{
	if (!w)
		return;
	if (w->ifd >= 0)
		close(w->ifd);
	free(w->seen.slots);
	free(w);
}

/* --- register-submit-dir -------------------------------------------------- */

static void submit_one(struct crs_watch *w, int dfd, const char *name)
{
	char out[CRS_NAME_MAX];
	struct stat st;
	uint64_t key = 0;
	int fd, existed = 0, r;

	if (name[0] == '.' || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	if (w->ifd < 0) {
		key = file_key(name, &st);
		if (seen_has(&w->seen, key))
			return;
	}
	if ((size_t)snprintf(w->shown, sizeof(w->shown), "%s/%s", w->dir,
			     name) >= sizeof(w->shown))
		return;		/* cannot be: dir and name both fit a path */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;		/* gone, or replaced by a symlink */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return;
	}
	r = lcrs_submit_fd(w->submit_dir, w->type, fd, name, out, &existed);
	close(fd);
	if (r != 0) {
		emit(w, CRS_EVENT_ERROR, w->shown, NULL, crs_error_last());
		return;
	}
	if (key)
		seen_add(&w->seen, key);
	emit(w, existed ? CRS_EVENT_DUPLICATE : CRS_EVENT_SUBMITTED, w->shown,
	     out, NULL);
}

/* Open the watched dir; a missing one switches to waiting for it. */
static int submit_open(struct crs_watch *w)
{
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 && !w->missing) {
		char msg[LCRS_PATH_MAX + 64];

		snprintf(msg, sizeof(msg), "'%s' is gone (%s); waiting for "
			 "it to come back", w->dir, strerror(errno));
		emit(w, CRS_EVENT_NOTE, w->dir, NULL, msg);
		w->missing = 1;
		if (w->ifd >= 0 && w->wd >= 0)
			inotify_rm_watch(w->ifd, w->wd);
		w->wd = -1;
	}
	return dfd;
}

static void submit_scan(struct crs_watch *w)
{
	struct dirent *de;
	DIR *d;
	int dfd = submit_open(w);

	if (dfd < 0)
		return;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)))
		submit_one(w, dirfd(d), de->d_name);
	closedir(d);
}

/* The dir came back (or was replaced): watch the new one, then scan. */
static void submit_reattach(struct crs_watch *w)
{
	struct stat st;

	if (stat(w->dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if (w->ifd >= 0) {
		if (w->wd >= 0)
			inotify_rm_watch(w->ifd, w->wd);
		w->wd = inotify_add_watch(w->ifd, w->dir, SUBMIT_MASK);
	}
	if (w->missing) {
		w->missing = 0;
		emit(w, CRS_EVENT_NOTE, w->dir, NULL, "watching again");
	}
	submit_scan(w);
}

static int submit_events(struct crs_watch *w, const char *buf, ssize_t len)
{
	int dfd = -1, rescan = 0, lost = 0;

	for (const char *p = buf; p < buf + len; ) {
		const struct inotify_event *ev = (const void *)p;

		p += sizeof(*ev) + ev->len;
		if (ev->mask & IN_Q_OVERFLOW)
			rescan = 1;
		if (ev->wd != w->wd)
			continue;
		if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
			lost = 1;
			continue;
		}
		if (!ev->len || (ev->mask & IN_ISDIR) ||
		    !(ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)))
			continue;
		if (dfd < 0 && (dfd = submit_open(w)) < 0)
			return 0;
		submit_one(w, dfd, ev->name);
	}
	if (dfd >= 0)
		close(dfd);
	if (lost) {
		/* Deleted, or renamed away: follow the path, not the inode. */
		if (w->wd >= 0)
			inotify_rm_watch(w->ifd, w->wd);
		w->wd = -1;
		if ((dfd = submit_open(w)) >= 0) {
			close(dfd);
			submit_reattach(w);
		}
	} else if (rescan) {
		submit_scan(w);
	}
	return 0;
}

/* --- register-fetch-dir --------------------------------------------------- */

static void fetch_sync(struct crs_watch *w)
{
	int dfd;

	if (w->idle)
		return;
	if ((dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;		/* the CRS removed its dir: nothing to fill */
	/* Every failure was reported as an event; the next sync retries. */
	(void)lcrs_fetch_pass(w->src, dfd, w->dir, w->type, w->ifd, w->fn,
			      w->ctx, NULL);
	close(dfd);
}

static int fetch_events(struct crs_watch *w, const char *buf, ssize_t len)
{
	int sync = 0;

	for (const char *p = buf; p < buf + len; ) {
		const struct inotify_event *ev = (const void *)p;

		p += sizeof(*ev) + ev->len;
		if (ev->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF |
				IN_MOVE_SELF))
			sync = 1;
		else if (ev->len && ev->name[0] == '.')
			continue;	/* a writer's temporary file */
		else if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
			sync = 1;
		else if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR))
			sync = 1;
	}
	if (sync)
		fetch_sync(w);
	return 0;
}

static int fetch_timeout(const struct crs_watch *w)
{
	struct stat st;

	if (w->idle)
		return -1;
	if (w->ifd < 0 || stat(w->src, &st) != 0)
		return POLL_MS;
	return FETCH_SAFETY_MS;
}

/* --- the loop ------------------------------------------------------------- */

/* Read every queued inotify event and handle it. */
static int drain(struct crs_watch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(
		struct inotify_event))));

	for (;;) {
		ssize_t n = read(w->ifd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;	/* EAGAIN: all read */
		if (w->kind == WATCH_SUBMIT)
			submit_events(w, buf, n);
		else
			fetch_events(w, buf, n);
	}
}

int crs_watch_run(struct crs_watch *w, int stop_fd, crs_event_fn fn,
		  void *ctx)
{
	w->fn = fn;
	w->ctx = ctx;
	if (w->kind == WATCH_SUBMIT)
		submit_scan(w);
	else
		fetch_sync(w);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = stop_fd, .events = POLLIN },
			{ .fd = w->ifd, .events = POLLIN },
		};
		int timeout, n;

		if (w->kind == WATCH_SUBMIT)
			timeout = w->ifd < 0 || w->missing ? POLL_MS : -1;
		else
			timeout = fetch_timeout(w);
		n = poll(pfd, w->ifd >= 0 ? 2 : 1, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return crs_error_set(CRS_ERR, "poll: %s",
					     strerror(errno));
		if (pfd[0].revents) {
			if (w->ifd >= 0)
				drain(w);
			return 0;
		}
		if (w->ifd >= 0 && pfd[1].revents)
			drain(w);
		if (n > 0)
			continue;
		/* Timed out: poll the directories. */
		if (w->kind == WATCH_FETCH)
			fetch_sync(w);
		else if (w->missing)
			submit_reattach(w);
		else
			submit_scan(w);
	}
}
