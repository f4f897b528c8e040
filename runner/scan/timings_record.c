/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timings_record.c - a record of spans, kept in <work>/timings.json
 *
 * One mutex guards the recorder; wall-clock times so separate phase
 * commands share one record. Read back bounded and checked.
 *
 * Details: docs/internals.md.
 */
#include "runner/scan/timings_record.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TIMINGS_FORMAT "crs-ci-timings"

struct timing_span {
	char *kind, *name, *harness;	/* harness may be NULL */
	double start, end;		/* scan clock; end < 0 while open */
	int lane;			/* phase spans: 0 */
	int dropped;			/* a re-run phase replaced it */
};

struct timings {
	pthread_mutex_t lock;
	char *path;
	char *dir;		/* the work folder: no record without it */
	int loaded;		/* the file was read (or found missing) */
	int fresh;		/* this process started the record */
	int warned;		/* a write failed once: said so */
	double origin;		/* wall clock of the record's start */
	double deadline_s;	/* --timeout of the scan (or its run), 0 */
	double own_origin;	/* this process's scan start (wall clock) */
	double own_deadline_s;	/* and its --timeout */
	double first_pov;	/* scan clock, < 0 none */
	/* wall-clock seconds this process leaves out of the scan clock: a
	 * report run later than the record it joins starts where the record
	 * ended, so the scan's total is its own, not the time until now */
	double skew;
	int joined;		/* this process's first phase has begun */
	int phase;		/* the open phase span, -1 none */
	struct timing_span *v;
	size_t nr, alloc;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double clock_now(const struct timings *t)
{
	return wall_now() - t->origin - t->skew;
}

static void span_release(struct timing_span *sp)
{
	free(sp->kind);
	free(sp->name);
	free(sp->harness);
}

static void spans_clear(struct timings *t)
{
	for (size_t i = 0; i < t->nr; i++)
		span_release(&t->v[i]);
	t->nr = 0;
	t->phase = -1;
	t->first_pov = -1;
}

double timings_wall_now(void)
{
	return wall_now();
}

struct timings *timings_new(const char *path, double origin,
			    double deadline_s)
{
	struct timings *t = xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->lock, NULL);
	t->path = xstrdup(path);
	t->dir = xstrdup(path);
	if (strrchr(t->dir, '/'))
		*strrchr(t->dir, '/') = '\0';
	t->phase = -1;
	t->first_pov = -1;
	t->own_origin = origin;
	t->own_deadline_s = deadline_s;
	return t;
}

/* --- the file ---------------------------------------------------------- */

static json_t *span_json(const struct timing_span *sp, double now)
{
	json_t *o = json_pack("{s:s,s:s}", "kind", sp->kind, "name", sp->name);

	if (sp->harness)
		json_object_set_new(o, "harness", json_string(sp->harness));
	json_object_set_new(o, "start_s", json_real(sp->start));
	json_object_set_new(o, "end_s", json_real(sp->end < 0 ? now :
						   sp->end));
	json_object_set_new(o, "lane", json_integer(sp->lane));
	return o;
}

/* Spans that are not dropped; open ones only with `open`. */
static json_t *spans_json(const struct timings *t, int open, double now)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nr; i++)
		if (!t->v[i].dropped && (open || t->v[i].end >= 0))
			json_array_append_new(a, span_json(&t->v[i], now));
	return a;
}

/* Write the closed spans; a failure is logged once, never returned. */
static void save_locked(struct timings *t)
{
	json_t *j = json_pack("{s:s,s:i,s:f,s:f,s:o}", "format",
			      TIMINGS_FORMAT, "version", 1, "origin",
			      t->origin, "deadline_s", t->deadline_s,
			      "spans", spans_json(t, 0, 0));
	char *text;
	int r;

	if (!fs_exists(t->dir)) {	/* `crs-ci report` without one */
		json_decref(j);
		return;
	}
	if (t->first_pov >= 0)
		json_object_set_new(j, "first_pov_at_s",
				    json_real(t->first_pov));
	text = json_dumps(j, JSON_INDENT(1));
	r = text ? fs_write_file_atomic(t->path, text, strlen(text)) :
		crs_error_set(CRS_ERR, "%s: cannot serialise", t->path);
	if (r != 0 && !t->warned) {
		log_warn("timings not saved: %s", crs_error_last());
		t->warned = 1;
	}
	if (r != 0)
		crs_error_clear();
	free(text);
	json_decref(j);
}

static void span_push(struct timings *t, const char *kind, const char *name,
		      const char *harness, double start, double end, int lane)
{
	struct timing_span *sp;

	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	sp = &t->v[t->nr++];
	memset(sp, 0, sizeof(*sp));
	sp->kind = xstrdup(kind);
	sp->name = xstrdup(name);
	sp->harness = harness ? xstrdup(harness) : NULL;
	sp->start = start;
	sp->end = end;
	sp->lane = lane;
}

/* A number member >= 0, or -1. */
static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key); /* borrowed */

	if (!json_is_number(v) || json_number_value(v) < 0)
		return -1;
	return json_number_value(v);
}

/* The spans of an earlier phase command of this scan; a bad file is
 * logged and ignored (the record starts anew). */
static void load_locked(struct timings *t)
{
	struct buf b = BUF_INIT;
	json_error_t err;
	json_t *j = NULL, *e;
	const json_t *f;
	size_t i;

	t->loaded = 1;
	t->origin = t->own_origin;
	t->deadline_s = t->own_deadline_s;
	if (fs_read_file(&b, t->path, TIMINGS_FILE_MAX) != 0) {
		crs_error_clear();	/* none yet: a new record */
		goto out;
	}
	j = json_loadb(b.ptr, b.len, 0, &err);
	f = json_object_get(j, "format"); /* borrowed */
	if (!json_is_object(j) || !json_is_string(f) ||
	    strcmp(json_string_value(f), TIMINGS_FORMAT) ||
	    num(j, "origin") <= 0) {
		log_warn("%s: not a timings record; starting a new one",
			 t->path);
		goto out;
	}
	t->origin = num(j, "origin");
	if (num(j, "deadline_s") >= 0)
		t->deadline_s = num(j, "deadline_s");
	t->first_pov = num(j, "first_pov_at_s");
	json_array_foreach(json_object_get(j, "spans"), i, e) {
		const json_t *k = json_object_get(e, "kind"); /* borrowed */
		const json_t *n = json_object_get(e, "name"); /* borrowed */
		const json_t *h = json_object_get(e, "harness"); /* borrowed */
		double a = num(e, "start_s"), z = num(e, "end_s");
		double lane = num(e, "lane");

		if (!json_is_string(k) || !json_is_string(n) || a < 0 ||
		    z < a || lane < 0 || lane > 1024 ||
		    t->nr >= TIMINGS_SPANS_MAX)
			continue;
		span_push(t, json_string_value(k), json_string_value(n),
			  json_is_string(h) ? json_string_value(h) : NULL, a,
			  z, (int)lane);
	}
out:
	json_decref(j);
	buf_release(&b);
}

static struct timings *lock(struct timings *t)
{
	if (!t)
		return NULL;
	pthread_mutex_lock(&t->lock);
	if (!t->loaded)
		load_locked(t);
	return t;
}

static void unlock(struct timings *t)
{
	pthread_mutex_unlock(&t->lock);
}

/* --- spans ------------------------------------------------------------- */

/* The lowest lane no open non-phase span holds. */
static int free_lane(const struct timings *t)
{
	for (int lane = 0;; lane++) {
		size_t i;

		for (i = 0; i < t->nr; i++)
			if (!t->v[i].dropped && t->v[i].end < 0 &&
			    t->v[i].lane == lane &&
			    strcmp(t->v[i].kind, "phase"))
				break;
		if (i == t->nr)
			return lane;
	}
}

int timings_begin(struct timings *rec, const char *kind, const char *name,
		  const char *harness)
{
	struct timings *t = lock(rec);
	int id = -1;

	if (!t)
		return -1;
	if (t->nr < TIMINGS_SPANS_MAX) {
		span_push(t, kind, name, harness, clock_now(t), -1,
			  strcmp(kind, "phase") ? free_lane(t) : 0);
		id = (int)t->nr - 1;
	}
	unlock(t);
	return id;
}

static void end_locked(struct timings *t, int id)
{
	if (id < 0 || (size_t)id >= t->nr || t->v[id].end >= 0)
		return;
	t->v[id].end = clock_now(t);
	if (t->v[id].end < t->v[id].start)	/* the wall clock stepped */
		t->v[id].end = t->v[id].start;
	if (id == t->phase)
		t->phase = -1;
}

void timings_end(struct timings *rec, int id)
{
	struct timings *t = id < 0 ? NULL : lock(rec);

	if (!t)
		return;
	end_locked(t, id);
	save_locked(t);
	unlock(t);
}

static void restart_locked(struct timings *t)
{
	spans_clear(t);
	t->skew = 0;
	t->origin = t->own_origin;
	t->deadline_s = t->own_deadline_s;
	t->fresh = 1;
}

void timings_restart(struct timings *rec)
{
	struct timings *t = lock(rec);

	if (!t)
		return;
	restart_locked(t);
	save_locked(t);
	unlock(t);
}

/* Phase `name` was recorded before: drop it and all that began later. */
static void rerun_locked(struct timings *t, const char *name)
{
	double cut = -1;
	size_t left = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!t->v[i].dropped && !strcmp(t->v[i].kind, "phase") &&
		    !strcmp(t->v[i].name, name) &&
		    (cut < 0 || t->v[i].start < cut))
			cut = t->v[i].start;
	if (cut < 0)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		if (t->v[i].start >= cut && t->v[i].end >= 0)
			t->v[i].dropped = 1;
		left += !t->v[i].dropped;
	}
	if (t->first_pov >= cut)
		t->first_pov = -1;
	if (!left)
		restart_locked(t);
}

/*
 * A report joining an earlier process's record: the scan clock goes on
 * from the record's last end, leaving out the time between (a report
 * re-run an hour later adds its own seconds to the total, not the hour).
 */
static void join_locked(struct timings *t)
{
	double last = 0, now = clock_now(t);

	for (size_t i = 0; i < t->nr; i++)
		if (!t->v[i].dropped && t->v[i].end > last)
			last = t->v[i].end;
	if (t->first_pov > last)
		last = t->first_pov;
	if (now > last)
		t->skew += now - last;
}

void timings_phase(struct timings *rec, const char *name)
{
	struct timings *t = lock(rec);

	if (!t)
		return;
	if (t->phase >= 0)
		end_locked(t, t->phase);
	if (!strcmp(name, "prepare") && !t->fresh)
		restart_locked(t);
	else
		rerun_locked(t, name);
	if (!t->joined && !t->fresh && t->nr && !strcmp(name, "report"))
		join_locked(t);
	t->joined = 1;
	if (!strcmp(name, "run"))
		t->deadline_s = t->own_deadline_s;
	if (t->nr < TIMINGS_SPANS_MAX) {
		span_push(t, "phase", name, NULL, clock_now(t), -1, 0);
		t->phase = (int)t->nr - 1;
	}
	save_locked(t);
	unlock(t);
}

void timings_first_pov(struct timings *rec)
{
	struct timings *t = lock(rec);

	if (!t)
		return;
	if (t->first_pov < 0) {
		t->first_pov = clock_now(t);
		save_locked(t);
	}
	unlock(t);
}

void timings_free(struct timings *t)
{
	int open = 0;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].end < 0) {
			end_locked(t, (int)i);
			open = 1;
		}
	if (open)
		save_locked(t);
	pthread_mutex_unlock(&t->lock);
	spans_clear(t);
	free(t->v);
	free(t->path);
	free(t->dir);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* --- results.json ------------------------------------------------------ */

/* Cores this process may run on (its affinity), at least 1. */
static int cores(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static int span_cmp(const void *a, const void *b)
{
	double x = json_number_value(json_object_get(*(json_t *const *)a,
						     "start_s"));
	double y = json_number_value(json_object_get(*(json_t *const *)b,
						     "start_s"));

	return x < y ? -1 : x > y;
}

/* Sorted by start (stable for equal starts: begin order). */
static void sort_spans(json_t *a)
{
	size_t n = json_array_size(a);
	json_t **v = xcalloc(n ? n : 1, sizeof(*v));
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
		v[i] = json_incref(e);
	/* insertion sort: stable, and the record is small */
	for (i = 1; i < n; i++)
		for (size_t k = i; k > 0 && span_cmp(&v[k - 1], &v[k]) > 0;
		     k--) {
			json_t *tmp = v[k];

			v[k] = v[k - 1];
			v[k - 1] = tmp;
		}
	json_array_clear(a);
	for (i = 0; i < n; i++)
		json_array_append_new(a, v[i]);
	free(v);
}

static json_t *to_json_locked(const struct timings *t)
{
	double now = clock_now(t), total = 0, fuzz = 0, run = -1;
	json_t *o, *spans = spans_json(t, 1, now), *e;
	size_t i;

	if (!json_array_size(spans)) {
		json_decref(spans);
		return NULL;
	}
	sort_spans(spans);
	json_array_foreach(spans, i, e) {
		const char *kind = json_string_value(json_object_get(e,
								     "kind"));
		const char *name = json_string_value(json_object_get(e,
								     "name"));
		double a = json_number_value(json_object_get(e, "start_s"));
		double z = json_number_value(json_object_get(e, "end_s"));

		if (z > total)
			total = z;
		if (!strcmp(kind, "fuzz"))
			fuzz += z - a;
		if (!strcmp(kind, "phase") && !strcmp(name, "run") &&
		    a <= (t->first_pov >= 0 ? t->first_pov : now))
			run = a;
	}
	o = json_pack("{s:f,s:i,s:f,s:f}", "total_s", total, "cores", cores(),
		      "deadline_s", t->deadline_s, "fuzz_s", fuzz);
	if (t->first_pov >= 0 && run >= 0)
		json_object_set_new(o, "first_pov_s",
				    json_real(t->first_pov - run));
	json_object_set_new(o, "spans", spans);
	return o;
}

json_t *timings_json(struct timings *rec)
{
	struct timings *t = lock(rec);
	json_t *o;

	if (!t)
		return NULL;
	o = to_json_locked(t);
	unlock(t);
	return o;
}

int timings_beyond_report(struct timings *rec)
{
	struct timings *t = lock(rec);
	int yes = 0;

	if (!t)
		return 0;
	for (size_t i = 0; i < t->nr && !yes; i++) {
		const struct timing_span *sp = &t->v[i];

		/* the report phase and what it does (kind "report") */
		yes = !sp->dropped && strcmp(sp->kind, "report") &&
			(strcmp(sp->kind, "phase") || strcmp(sp->name, "report"));
	}
	unlock(t);
	return yes;
}
