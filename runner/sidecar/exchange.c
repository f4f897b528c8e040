/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.c - the artifact exchange between the CRSs of a run
 *
 * Trust boundary: submit folders are the CRSs'. Each is held open and
 * read through descriptors without following links, with caps on
 * depth, size, count and work per call.
 *
 * Details: docs/exchange.md; design notes: docs/internals.md.
 */
#include "runner/sidecar/exchange.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strset.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXCHANGE_FILE_MAX (64u << 20)
#define EXCHANGE_DEPTH_MAX 8
#define EXCHANGE_TYPES 5
#define EXCHANGE_WARN_MAX 10	/* problem lines per CRS, then silence */
#define EXCHANGE_READS_MAX 64	/* inotify reads per sync call */
#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
		    IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR)

static const char *const types[EXCHANGE_TYPES] = {
	"povs", "seeds", "bug-candidates", "reports", "patches",
};

struct watch {
	int wd;		/* -1: a free slot */
	int fd;		/* the folder, held */
	char *rel;	/* its path below the type folder ("" at the top) */
	int type;	/* -1: a submit root, whose type folders are watched */
	int depth;
	size_t crs;
	DIR *scan;	/* a listing under way, or NULL */
	int rescan;	/* list it (again) */
	int made;	/* its folder in the exchange exists */
};

struct exchange_crs {
	char *name;
	size_t dirs;			/* folders watched */
	unsigned long files;		/* files read */
	unsigned long long bytes;	/* bytes read */
	int capped;			/* a cap was reached */
	unsigned warned;		/* problem lines logged */
	struct strset taken;		/* "<type>/<rel>/<name>" handled */
	unsigned long tick_files, tick_entries;	/* left this call */
	unsigned long long tick_bytes;
};

struct exchange {
	int fd;
	char *root;
	struct exchange_crs *crs;
	size_t crs_nr;
	struct watch *w;
	size_t w_nr, w_alloc;
	struct strset seen;	/* "<type>:<sha256>" of copied contents */
	unsigned long files_max;
	unsigned long long bytes_max;
	unsigned copied[EXCHANGE_TYPES];
	exchange_pov_fn *on_pov;	/* exchange_on_pov() */
	void *on_pov_ctx;
};

void exchange_on_pov(struct exchange *x, exchange_pov_fn *fn, void *ctx)
{
	x->on_pov = fn;
	x->on_pov_ctx = ctx;
}

/* A problem with a CRS's file; `what` may hold its names (quoted here). */
static void crs_warn(struct exchange_crs *k, const char *what)
{
	char q[1024];

	if (k->warned > EXCHANGE_WARN_MAX)
		return;
	if (k->warned++ == EXCHANGE_WARN_MAX)
		log_warn("exchange: %s: more files refused; not logged",
			 k->name);
	else
		log_warn("exchange: %s: %s", k->name,
			 log_quote(q, sizeof(q), what, strlen(what)));
}

static void watch_drop(struct exchange *x, struct watch *w, int rm)
{
	if (w->wd < 0)
		return;
	if (rm)
		inotify_rm_watch(x->fd, w->wd);
	if (w->scan)
		closedir(w->scan);
	close(w->fd);
	free(w->rel);
	x->crs[w->crs].dirs--;
	memset(w, 0, sizeof(*w));
	w->wd = w->fd = -1;
}

/* Stop reading a CRS at a cap: its watches go, its files are ignored. */
static void crs_cap(struct exchange *x, size_t ci)
{
	struct exchange_crs *k = &x->crs[ci];

	k->capped = 1;
	log_warn("exchange: %s submitted more than %lu files or %llu MiB; "
		 "its further files are not shared", k->name, x->files_max,
		 x->bytes_max >> 20);
	for (size_t i = 0; i < x->w_nr; i++)
		if (x->w[i].wd >= 0 && x->w[i].crs == ci)
			watch_drop(x, &x->w[i], 1);
}

static void copy_out(struct exchange *x, struct watch *w,
		     const char *name, const struct buf *b)
{
	char *dir = *w->rel ? xasprintf("%s/%s/%s", x->root, types[w->type],
					w->rel) :
		xasprintf("%s/%s", x->root, types[w->type]);
	char *dst = xasprintf("%s/%s", dir, name), key[80], sha[65];

	sha256_hex(sha, b->ptr, b->len);
	snprintf(key, sizeof(key), "%d:%s", w->type, sha);
	if (strset_has(&x->seen, key) || fs_exists(dst))
		goto out;
	if ((!w->made && fs_mkdir_p(dir) != 0) ||
	    fs_write_file_atomic(dst, b->ptr, b->len) != 0) {
		const char *why = crs_error_last();
		char q[1024];

		log_warn("exchange: %s", log_quote(q, sizeof(q), why,
						   strlen(why)));
		crs_error_clear();
		goto out;
	}
	w->made = 1;
	strset_add(&x->seen, key);
	x->copied[w->type]++;
	if (w->type == 0 && x->on_pov)
		x->on_pov(x->on_pov_ctx, x->crs[w->crs].name, b->ptr,
			  b->len);
	if (log_get_level() >= LOG_DEBUG) {
		const char *rel = dst + strlen(x->root) + 1;
		char q[1024];

		log_debug("exchange: %s from %s",
			  log_quote(q, sizeof(q), rel, strlen(rel)),
			  x->crs[w->crs].name);
	}
out:
	free(dir);
	free(dst);
}

/* Watch wi's file `name`, unless handled before or past a cap. */
static void take_file(struct exchange *x, size_t wi, const char *name)
{
	struct watch *w = &x->w[wi];
	struct exchange_crs *k = &x->crs[w->crs];
	char *key = xasprintf("%d/%s/%s", w->type, w->rel, name);
	struct buf b = BUF_INIT;
	int r;

	if (name[0] == '.' || k->capped || strset_has(&k->taken, key))
		goto out;
	if (k->files >= x->files_max || k->bytes >= x->bytes_max) {
		crs_cap(x, w->crs);
		goto out;
	}
	r = fs_read_regular_at(&b, w->fd, name, NULL, EXCHANGE_FILE_MAX,
			       NULL);
	if (r == CRS_ENOTFOUND)	/* renamed away meanwhile */
		goto out;
	if (r == 0 || crs_error_code() == CRS_EINPUT) {
		/* read, refused or too big: never again under this name */
		k->files++;
		k->bytes += b.len;
		k->tick_files = k->tick_files ? k->tick_files - 1 : 0;
		k->tick_bytes -= b.len < k->tick_bytes ? b.len : k->tick_bytes;
		strset_add(&k->taken, key);
	}
	if (r != 0) {
		crs_warn(k, crs_error_last());
		crs_error_clear();
		goto out;
	}
	copy_out(x, w, name, &b);
out:
	crs_error_clear();
	buf_release(&b);
	free(key);
}

static int budget_left(const struct exchange_crs *k)
{
	return !k->capped && k->tick_files && k->tick_bytes &&
		k->tick_entries;
}

/*
 * Watch the folder `name` below the held folder `parentfd` (opened
 * without following a link). Its listing starts on the next sync step.
 */
static void add_watch(struct exchange *x, int parentfd, const char *name,
		      size_t ci, int type, const char *rel, int depth)
{
	struct exchange_crs *k = &x->crs[ci];
	char proc[64];
	struct watch *w = NULL;
	int fd, wd;

	if (depth > EXCHANGE_DEPTH_MAX || k->capped)
		return;
	if (k->dirs >= EXCHANGE_DIRS_MAX) {
		crs_warn(k, "more folders than are watched; the rest are not "
			 "shared");
		return;
	}
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;		/* a link, not a folder, or gone */
	/* the folder held, not whatever its name points at now */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(x->fd, proc, WATCH_MASK);
	for (size_t i = 0; wd >= 0 && i < x->w_nr; i++)
		if (x->w[i].wd == wd)
			wd = -1;	/* watched already, maybe as moved */
	if (wd < 0) {
		close(fd);
		return;
	}
	for (size_t i = 0; i < x->w_nr && !w; i++)
		if (x->w[i].wd < 0)
			w = &x->w[i];
	if (!w) {
		ALLOC_GROW(x->w, x->w_nr + 1, x->w_alloc);
		w = &x->w[x->w_nr++];
	}
	w->wd = wd;
	w->fd = fd;
	w->rel = xstrdup(rel);
	w->type = type;
	w->depth = depth;
	w->crs = ci;
	w->scan = NULL;
	w->rescan = 1;
	w->made = 0;
	k->dirs++;
}

/* A folder `name` appeared in watch wi. */
static void add_child(struct exchange *x, size_t wi, const char *name)
{
	struct watch *w = &x->w[wi];
	char *rel;

	if (name[0] == '.')
		return;
	if (w->type < 0) {	/* a submit root: only its type folders */
		for (int t = 0; t < EXCHANGE_TYPES; t++)
			if (!strcmp(name, types[t]))
				add_watch(x, w->fd, name, w->crs, t, "", 0);
		return;
	}
	rel = *w->rel ? xasprintf("%s/%s", w->rel, name) : xstrdup(name);
	add_watch(x, w->fd, name, w->crs, w->type, rel, w->depth + 1);
	free(rel);
}

/*
 * List more of watch wi's folder within its CRS's budget: files are
 * taken, folders watched; links and special files skipped unopened.
 */
static void scan_more(struct exchange *x, size_t wi)
{
	struct exchange_crs *k = &x->crs[x->w[wi].crs];

	if (!x->w[wi].scan) {
		x->w[wi].rescan = 0;
		if (!(x->w[wi].scan = fs_dir_stream(x->w[wi].fd)))
			return;
	}
	while (x->w[wi].wd >= 0 && budget_left(k)) {
		struct dirent *de = readdir(x->w[wi].scan);
		unsigned char type;
		struct stat st;

		if (!de) {
			closedir(x->w[wi].scan);
			x->w[wi].scan = NULL;
			return;
		}
		k->tick_entries--;
		if (de->d_name[0] == '.')
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN)
			type = fstatat(x->w[wi].fd, de->d_name, &st,
				       AT_SYMLINK_NOFOLLOW) != 0 ? DT_UNKNOWN :
				S_ISDIR(st.st_mode) ? DT_DIR :
				S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
		if (type == DT_DIR)
			add_child(x, wi, de->d_name);	/* may move x->w */
		else if (type == DT_REG && x->w[wi].type >= 0)
			take_file(x, wi, de->d_name);
	}
}

static long find_watch(const struct exchange *x, int wd)
{
	for (size_t i = 0; i < x->w_nr; i++)
		if (x->w[i].wd == wd)
			return (long)i;
	return -1;
}

static void handle_event(struct exchange *x, const struct inotify_event *e)
{
	long wi;

	if (e->mask & IN_Q_OVERFLOW) {	/* events lost: list everything */
		for (size_t i = 0; i < x->w_nr; i++)
			x->w[i].rescan = x->w[i].wd >= 0;
		return;
	}
	if ((wi = find_watch(x, e->wd)) < 0)
		return;
	if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
		size_t ci = x->w[wi].crs;

		/* whatever moved is found again by its new parent */
		watch_drop(x, &x->w[wi], !(e->mask & IN_IGNORED));
		for (size_t i = 0; i < x->w_nr; i++)
			if (x->w[i].wd >= 0 && x->w[i].crs == ci)
				x->w[i].rescan = 1;
		return;
	}
	if (!e->len || e->name[0] == '.')
		return;
	if (e->mask & IN_ISDIR) {
		if (e->mask & (IN_CREATE | IN_MOVED_TO))
			add_child(x, (size_t)wi, e->name);
	} else if ((e->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) &&
		   x->w[wi].type >= 0) {
		if (budget_left(&x->crs[x->w[wi].crs]))
			take_file(x, (size_t)wi, e->name);
		else
			x->w[wi].rescan = 1;	/* its listing finds it */
	}
}

/* Read queued events; 1 when the queue may hold more. */
static int read_events(struct exchange *x)
{
	char ev[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (int reads = 0; reads < EXCHANGE_READS_MAX; reads++) {
		ssize_t n = read(x->fd, ev, sizeof(ev));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;	/* EAGAIN: nothing more now */
		for (char *p = ev; p < ev + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			p += sizeof(*e) + e->len;
			handle_event(x, e);
		}
	}
	return 1;
}

int exchange_sync(struct exchange *x)
{
	int more;

	for (size_t i = 0; i < x->crs_nr; i++) {
		x->crs[i].tick_files = EXCHANGE_TICK_FILES;
		x->crs[i].tick_bytes = EXCHANGE_TICK_BYTES;
		x->crs[i].tick_entries = EXCHANGE_TICK_ENTRIES;
	}
	more = read_events(x);
	for (size_t i = 0; i < x->w_nr; i++)	/* x->w may grow meanwhile */
		if (x->w[i].wd >= 0 && (x->w[i].scan || x->w[i].rescan))
			scan_more(x, i);
	return more || exchange_busy(x);
}

int exchange_busy(const struct exchange *x)
{
	for (size_t i = 0; i < x->w_nr; i++)
		if (x->w[i].wd >= 0 && (x->w[i].scan || x->w[i].rescan))
			return 1;
	return 0;
}

#ifdef UNIT_TESTS
void exchange_set_caps(struct exchange *x, unsigned long files,
		       unsigned long long bytes)
{
	x->files_max = files;
	x->bytes_max = bytes;
}
#endif

int exchange_new(struct exchange **out, const char *exchange_root,
		 const char *const *submit_roots, const char *const *names,
		 int nr)
{
	struct exchange *x = xcalloc(1, sizeof(*x));
	int r = 0;

	*out = NULL;
	x->root = xstrdup(exchange_root);
	x->files_max = EXCHANGE_FILES_MAX;
	x->bytes_max = EXCHANGE_BYTES_MAX;
	x->crs = xcalloc(nr > 0 ? (size_t)nr : 1, sizeof(*x->crs));
	x->crs_nr = nr > 0 ? (size_t)nr : 0;
	for (size_t i = 0; i < x->crs_nr; i++)
		x->crs[i].name = xstrdup(names[i]);
	x->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (x->fd < 0) {
		r = crs_error_set(CRS_ERR, "inotify: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < nr && r == 0; i++) {
		/* crs-ci made the root; no container has run in it yet */
		int rootfd = -1;

		if ((r = fs_mkdir_p(submit_roots[i])) != 0)
			break;
		rootfd = open(submit_roots[i], O_RDONLY | O_DIRECTORY |
			      O_NOFOLLOW | O_CLOEXEC);
		if (rootfd < 0) {
			r = crs_error_set(CRS_ERR, "%s: %s", submit_roots[i],
					  strerror(errno));
			break;
		}
		for (int t = 0; t < EXCHANGE_TYPES && r == 0; t++)
			if (mkdirat(rootfd, types[t], 0755) != 0 &&
			    errno != EEXIST)
				r = crs_error_set(CRS_ERR, "%s/%s: %s",
						  submit_roots[i], types[t],
						  strerror(errno));
		/* the root's listing watches its type folders */
		if (r == 0)
			add_watch(x, rootfd, ".", (size_t)i, -1, "", 0);
		close(rootfd);
		if (r == 0 && x->crs[i].dirs == 0)
			r = crs_error_set(CRS_ERR, "%s: cannot watch: %s",
					  submit_roots[i], strerror(errno));
	}
	if (r == 0)
		exchange_sync(x);
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

unsigned exchange_copied(const struct exchange *x, int type)
{
	return type >= 0 && type < EXCHANGE_TYPES ? x->copied[type] : 0;
}

void exchange_free(struct exchange *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->w_nr; i++)
		watch_drop(x, &x->w[i], 0);
	if (x->fd >= 0)
		close(x->fd);
	for (size_t i = 0; i < x->crs_nr; i++) {
		free(x->crs[i].name);
		strset_release(&x->crs[i].taken);
	}
	strset_release(&x->seen);
	free(x->crs);
	free(x->w);
	free(x->root);
	free(x);
}
