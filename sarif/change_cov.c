/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_cov.c - the changed lines fuzzing executed, counted and printed
 *
 * A change's head lines, each NONE (no code), MISSED or HIT, per file;
 * from them the totals, the merged "not reached" ranges and the one-line
 * summary every reporter prints. results.json may come from a shard
 * (`crs-ci merge`), so reading it checks every field and caps the lines.
 */
#include "sarif/change_cov.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct change_cov *change_cov_new(void)
{
	return xcalloc(1, sizeof(struct change_cov));
}

void change_cov_free(struct change_cov *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->files_nr; i++) {
		free(c->files[i].path);
		free(c->files[i].lines);
		free(c->files[i].state);
	}
	free(c->files);
	free(c->not_reached);
	for (size_t i = 0; i < c->by_harness_nr; i++)
		free(c->by_harness[i].name);
	free(c->by_harness);
	free(c->unknown);
	free(c);
}

void change_cov_set_unknown(struct change_cov *c, const char *reason)
{
	free(c->unknown);
	c->unknown = xstrdup(reason && *reason ? reason : "not measured");
}

static struct change_cov_file *file_get(struct change_cov *c,
					const char *path)
{
	struct change_cov_file *f;

	for (size_t i = 0; i < c->files_nr; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	ALLOC_GROW(c->files, c->files_nr + 1, c->files_alloc);
	f = &c->files[c->files_nr++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	return f;
}

int change_cov_add(struct change_cov *c, const char *path, int line,
		   enum change_cov_state state)
{
	struct change_cov_file *f = file_get(c, path);
	size_t old = f->alloc;

	if (line < 1)
		return 0;
	/* the common case: lines arrive in order */
	for (size_t i = f->nr; i-- > 0 && f->lines[i] >= line;)
		if (f->lines[i] == line) {
			int raised = state == CHANGE_COV_HIT &&
				f->state[i] != CHANGE_COV_HIT;

			if (state > f->state[i])
				f->state[i] = (unsigned char)state;
			return raised;
		}
	ALLOC_GROW(f->lines, f->nr + 1, f->alloc);
	if (f->alloc != old)
		f->state = xrealloc(f->state, f->alloc);
	f->lines[f->nr] = line;
	f->state[f->nr++] = (unsigned char)state;
	return state == CHANGE_COV_HIT;
}

void change_cov_add_harness(struct change_cov *c, const char *harness,
			    size_t lines)
{
	for (size_t i = 0; i < c->by_harness_nr; i++)
		if (!strcmp(c->by_harness[i].name, harness)) {
			if (lines > c->by_harness[i].lines)
				c->by_harness[i].lines = lines;
			return;
		}
	c->by_harness = xrealloc(c->by_harness, st_mult(c->by_harness_nr + 1,
					 sizeof(*c->by_harness)));
	c->by_harness[c->by_harness_nr].name = xstrdup(harness);
	c->by_harness[c->by_harness_nr++].lines = lines;
}

struct line_state {
	int line;
	unsigned char state;
};

static int cmp_line_state(const void *a, const void *b)
{
	const struct line_state *x = a, *y = b;

	if (x->line != y->line)
		return (x->line > y->line) - (x->line < y->line);
	return (x->state < y->state) - (x->state > y->state);	/* high 1st */
}

/* Sort a file's lines; a repeated line keeps its highest state. */
static void file_sort(struct change_cov_file *f)
{
	struct line_state *ls;
	size_t n = 0;

	if (f->nr < 2)
		return;
	ls = xmalloc(st_mult(f->nr, sizeof(*ls)));
	for (size_t i = 0; i < f->nr; i++) {
		ls[i].line = f->lines[i];
		ls[i].state = f->state[i];
	}
	qsort(ls, f->nr, sizeof(*ls), cmp_line_state);
	for (size_t i = 0; i < f->nr; i++) {
		if (n && f->lines[n - 1] == ls[i].line)
			continue;
		f->lines[n] = ls[i].line;
		f->state[n++] = ls[i].state;
	}
	f->nr = n;
	free(ls);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct change_cov_file *)a)->path,
		      ((const struct change_cov_file *)b)->path);
}

static int cmp_harness(const void *a, const void *b)
{
	return strcmp(((const struct change_cov_harness *)a)->name,
		      ((const struct change_cov_harness *)b)->name);
}

static void add_range(struct change_cov *c, size_t *alloc, const char *file,
		      int start, int end)
{
	ALLOC_GROW(c->not_reached, c->not_reached_nr + 1, *alloc);
	c->not_reached[c->not_reached_nr].file = file;
	c->not_reached[c->not_reached_nr].start = start;
	c->not_reached[c->not_reached_nr++].end = end;
}

/*
 * Walk one file's changed lines: a run is a stretch of consecutive line
 * numbers without an executed line; within it, the range goes from its
 * first missed line to its last.
 */
static void file_ranges(struct change_cov *c, size_t *alloc,
			const struct change_cov_file *f)
{
	int start = 0, end = 0;

	for (size_t k = 0; k < f->nr; k++) {
		int broken = k && f->lines[k] != f->lines[k - 1] + 1;

		if (start && (broken || f->state[k] == CHANGE_COV_HIT)) {
			add_range(c, alloc, f->path, start, end);
			start = 0;
		}
		if (f->state[k] == CHANGE_COV_MISSED) {
			if (!start)
				start = f->lines[k];
			end = f->lines[k];
		}
	}
	if (start)
		add_range(c, alloc, f->path, start, end);
}

void change_cov_finish(struct change_cov *c)
{
	size_t alloc = 0;

	if (c->files_nr > 1)
		qsort(c->files, c->files_nr, sizeof(*c->files), cmp_file);
	if (c->by_harness_nr > 1)
		qsort(c->by_harness, c->by_harness_nr, sizeof(*c->by_harness),
		      cmp_harness);
	free(c->not_reached);
	c->not_reached = NULL;
	c->not_reached_nr = 0;
	c->lines_total = c->lines_executed = 0;
	for (size_t i = 0; i < c->files_nr; i++) {
		struct change_cov_file *f = &c->files[i];

		file_sort(f);
		for (size_t k = 0; k < f->nr; k++) {
			c->lines_total += f->state[k] != CHANGE_COV_NONE;
			c->lines_executed += f->state[k] == CHANGE_COV_HIT;
		}
		file_ranges(c, &alloc, f);
	}
}

void change_cov_line(struct buf *b, const struct change_cov *c)
{
	size_t shown;

	if (c->unknown) {
		buf_printf(b, "fuzzing's coverage of the changed lines is "
			   "unknown: %s", c->unknown);
		return;
	}
	if (!c->lines_total) {
		buf_adds(b, "no changed line is code a harness runs "
			 "(comments, documentation, declarations or files "
			 "outside the build)");
		return;
	}
	buf_printf(b, "fuzzing executed %zu of %zu %s", c->lines_executed,
		   c->lines_total, c->around_removals ?
		   "lines around the removals" : "changed lines");
	if (!c->not_reached_nr)
		return;
	buf_adds(b, "; not reached: ");
	shown = c->not_reached_nr > CHANGE_COV_SHOWN ? CHANGE_COV_SHOWN :
		c->not_reached_nr;
	for (size_t i = 0; i < shown; i++) {
		const struct change_cov_range *r = &c->not_reached[i];

		buf_printf(b, "%s%s:%d", i ? ", " : "", r->file, r->start);
		if (r->end != r->start)
			buf_printf(b, "-%d", r->end);
	}
	if (c->not_reached_nr > shown)
		buf_printf(b, " and %zu more", c->not_reached_nr - shown);
}

void change_cov_merge(struct change_cov *into, const struct change_cov *from)
{
	if (from->unknown && !into->unknown)
		change_cov_set_unknown(into, from->unknown);
	into->around_removals |= from->around_removals;
	for (size_t i = 0; i < from->files_nr; i++)
		for (size_t k = 0; k < from->files[i].nr; k++)
			change_cov_add(into, from->files[i].path,
				       from->files[i].lines[k],
				       from->files[i].state[k]);
	for (size_t i = 0; i < from->by_harness_nr; i++)
		change_cov_add_harness(into, from->by_harness[i].name,
				       from->by_harness[i].lines);
	change_cov_finish(into);
}

/* --- JSON ---------------------------------------------------------------- */

/* Paths and harness names as valid UTF-8 (jansson refuses the rest). */
static char *clean(const char *s)
{
	return utf8_clean(s, strlen(s), strlen(s));
}

static json_t *cstr(const char *s)
{
	char *c = clean(s);
	json_t *j = json_string(c);

	free(c);
	return j;
}

/* [[start, end], ...] of the lines whose state is at least `min`. */
static json_t *ranges_json(const struct change_cov_file *f, unsigned min)
{
	json_t *a = json_array();
	size_t k = 0;

	while (k < f->nr) {
		size_t e;

		if (f->state[k] < min) {
			k++;
			continue;
		}
		e = k;
		while (e + 1 < f->nr && f->state[e + 1] >= min &&
		       f->lines[e + 1] == f->lines[e] + 1)
			e++;
		json_array_append_new(a, json_pack("[ii]", f->lines[k],
						   f->lines[e]));
		k = e + 1;
	}
	return a;
}

json_t *change_cov_to_json(const struct change_cov *c)
{
	json_t *o = json_object(), *a, *h;

	if (c->unknown) {
		json_object_set_new(o, "status", json_string("unknown"));
		json_object_set_new(o, "reason", cstr(c->unknown));
		return o;
	}
	json_object_set_new(o, "status", json_string("measured"));
	json_object_set_new(o, "lines_total",
			    json_integer((json_int_t)c->lines_total));
	json_object_set_new(o, "lines_executed",
			    json_integer((json_int_t)c->lines_executed));
	if (c->around_removals)
		json_object_set_new(o, "lines_around_removals", json_true());
	a = json_array();
	for (size_t i = 0; i < c->not_reached_nr; i++)
		json_array_append_new(a, json_pack("{s:o,s:i,s:i}", "file",
			cstr(c->not_reached[i].file), "start",
			c->not_reached[i].start, "end",
			c->not_reached[i].end));
	json_object_set_new(o, "not_reached", a);
	h = json_object();
	for (size_t i = 0; i < c->by_harness_nr; i++) {
		char *k = clean(c->by_harness[i].name);

		json_object_set_new(h, k,
			json_integer((json_int_t)c->by_harness[i].lines));
		free(k);
	}
	json_object_set_new(o, "by_harness", h);
	a = json_array();
	for (size_t i = 0; i < c->files_nr; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o}",
			"path", cstr(c->files[i].path),
			"changed", ranges_json(&c->files[i], CHANGE_COV_NONE),
			"executable", ranges_json(&c->files[i],
						  CHANGE_COV_MISSED),
			"executed", ranges_json(&c->files[i],
						CHANGE_COV_HIT)));
	json_object_set_new(o, "files", a);
	return o;
}

/* Apply `state` to every line of the [[a, b], ...] member `key`. */
static int ranges_from_json(struct change_cov *c, const char *path,
			    const json_t *f, const char *key,
			    enum change_cov_state state, size_t *budget,
			    const char *src, size_t fi)
{
	json_t *a = json_object_get(f, key), *r;	/* borrowed */
	size_t i;

	if (!json_is_array(a))
		return crs_error_set(CRS_EINPUT, "%s: change_coverage.files"
				     "[%zu].%s: expected an array", src, fi,
				     key);
	json_array_foreach(a, i, r) {
		json_int_t s, e;

		if (!json_is_array(r) || json_array_size(r) != 2 ||
		    !json_is_integer(json_array_get(r, 0)) ||
		    !json_is_integer(json_array_get(r, 1)) ||
		    (s = json_integer_value(json_array_get(r, 0))) < 1 ||
		    (e = json_integer_value(json_array_get(r, 1))) < s ||
		    e > INT_MAX)
			return crs_error_set(CRS_EINPUT, "%s: change_coverage."
					     "files[%zu].%s[%zu]: expected "
					     "[start, end] line numbers", src,
					     fi, key, i);
		if ((size_t)(e - s + 1) > *budget)
			return crs_error_set(CRS_EINPUT, "%s: change_coverage:"
					     " more than %u changed lines",
					     src, CHANGE_COV_LINES_MAX);
		*budget -= (size_t)(e - s + 1);
		for (json_int_t l = s; l <= e; l++)
			change_cov_add(c, path, (int)l, state);
	}
	return 0;
}

int change_cov_from_json(struct change_cov **out, const json_t *j,
			 const char *src)
{
	struct change_cov *c = change_cov_new();
	json_t *v, *e;
	const char *status, *key;
	size_t i, budget = CHANGE_COV_LINES_MAX;
	int r = CRS_EINPUT;

	*out = NULL;
	if (!json_is_object(j)) {
		crs_error_set(r, "%s: change_coverage: expected an object",
			      src);
		goto out;
	}
	/* borrowed */
	status = json_string_value(json_object_get(j, "status"));
	if (!status || (strcmp(status, "unknown") &&
			strcmp(status, "measured"))) {
		crs_error_set(r, "%s: change_coverage.status: expected "
			      "\"measured\" or \"unknown\"", src);
		goto out;
	}
	if (!strcmp(status, "unknown")) {
		/* borrowed */
		change_cov_set_unknown(c, json_string_value(
			json_object_get(j, "reason")));
		goto done;
	}
	v = json_object_get(j, "lines_around_removals");	/* borrowed */
	if (v && !json_is_boolean(v)) {
		crs_error_set(r, "%s: change_coverage.lines_around_removals: "
			      "expected true or false", src);
		goto out;
	}
	c->around_removals = json_is_true(v);
	v = json_object_get(j, "files");	/* borrowed */
	if (!json_is_array(v)) {
		crs_error_set(r, "%s: change_coverage.files: expected an "
			      "array", src);
		goto out;
	}
	json_array_foreach(v, i, e) {
		/* borrowed */
		const char *path = json_string_value(json_object_get(e,
								     "path"));

		if (!path || !*path) {
			crs_error_set(r, "%s: change_coverage.files[%zu].path:"
				      " expected a string", src, i);
			goto out;
		}
		if (ranges_from_json(c, path, e, "changed", CHANGE_COV_NONE,
				     &budget, src, i) ||
		    ranges_from_json(c, path, e, "executable",
				     CHANGE_COV_MISSED, &budget, src, i) ||
		    ranges_from_json(c, path, e, "executed", CHANGE_COV_HIT,
				     &budget, src, i))
			goto out;
	}
	v = json_object_get(j, "by_harness");	/* borrowed */
	if (v && !json_is_object(v)) {
		crs_error_set(r, "%s: change_coverage.by_harness: expected an "
			      "object", src);
		goto out;
	}
	json_object_foreach(v, key, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0) {
			crs_error_set(r, "%s: change_coverage.by_harness.%s: "
				      "expected a count", src, key);
			goto out;
		}
		change_cov_add_harness(c, key, (size_t)json_integer_value(e));
	}
done:
	change_cov_finish(c);
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	change_cov_free(c);
	return r;
}
