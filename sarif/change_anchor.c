/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_anchor.c - choosing, copying and reading a finding's change
 * anchor
 *
 * The choice walks the crashing stack from the crash outwards and takes
 * the first function that executed a changed line; results.json may come
 * from a shard or an old run, so reading it checks every field and caps
 * the lines.
 */
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void change_anchor_free(struct change_anchor *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->executed_nr; i++) {
		free(a->executed[i].path);
		free(a->executed[i].lines);
	}
	free(a->executed);
	free(a->how);
	free(a->file);
	free(a->function);
	free(a->reason);
	free(a);
}

static void copy_exec(struct change_anchor *a, const struct anchor_file *e,
		      size_t n)
{
	a->executed = xcalloc(n ? n : 1, sizeof(*a->executed));
	for (size_t i = 0; i < n; i++) {
		struct anchor_file *d = &a->executed[a->executed_nr];

		if (!e[i].nr)
			continue;
		d->path = xstrdup(e[i].path);
		d->lines = xmalloc(e[i].nr * sizeof(int));
		memcpy(d->lines, e[i].lines, e[i].nr * sizeof(int));
		d->nr = e[i].nr;
		a->executed_nr++;
	}
}

struct change_anchor *change_anchor_dup(const struct change_anchor *a)
{
	struct change_anchor *d;

	if (!a)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->how = xstrdup(a->how);
	d->file = a->file ? xstrdup(a->file) : NULL;
	d->line = a->line;
	d->function = a->function ? xstrdup(a->function) : NULL;
	d->frame = a->frame;
	d->reason = a->reason ? xstrdup(a->reason) : NULL;
	copy_exec(d, a->executed, a->executed_nr);
	return d;
}

/* The crash site as an anchor labelled `how`. */
static struct change_anchor *at_crash(const struct finding *f,
				      const char *how)
{
	struct change_anchor *a = xcalloc(1, sizeof(*a));

	a->how = xstrdup(how);
	a->frame = -1;
	if (f->file && f->line > 0) {
		a->file = xstrdup(f->file);
		a->line = f->line;
		a->function = f->function ? xstrdup(f->function) : NULL;
	}
	for (size_t i = 0; a->file && i < f->stack_nr; i++)
		if (f->stack[i].in_project) {
			a->frame = (int)i;	/* the crash frame */
			break;
		}
	return a;
}

struct change_anchor *change_anchor_unmeasured(const struct finding *f,
					       const char *reason)
{
	struct change_anchor *a = at_crash(f, ANCHOR_UNMEASURED);

	a->reason = xstrdup(reason && *reason ? reason : "not measured");
	a->frame = -1;
	return a;
}

static const struct anchor_file *exec_file(const struct anchor_file *e,
					   size_t n, const char *path)
{
	for (size_t i = 0; path && i < n; i++)
		if (!strcmp(e[i].path, path))
			return &e[i];
	return NULL;
}

/*
 * The line of `ef` in [lo, hi] nearest `at` (a line above wins a tie),
 * or 0.
 */
static int nearest(const struct anchor_file *ef, int lo, int hi, int at)
{
	int best = 0;
	long bestd = LONG_MAX;

	for (size_t i = 0; ef && i < ef->nr; i++) {
		int l = ef->lines[i];
		long d = l > at ? (long)l - at : (long)at - l;

		if (l < lo || l > hi)
			continue;
		if (d < bestd || (d == bestd && l < best)) {
			best = l;
			bestd = d;
		}
	}
	return best;
}

static void set_at(struct change_anchor *a, const char *how,
		   const char *file, int line, const char *function,
		   int frame)
{
	free(a->how);
	free(a->file);
	free(a->function);
	a->how = xstrdup(how);
	a->file = xstrdup(file);
	a->line = line;
	a->function = function ? xstrdup(function) : NULL;
	a->frame = frame;
}

/* A changed line in the function of some in-project frame: 1 if found. */
static int pick_on_stack(struct change_anchor *a, const struct finding *f,
			 const struct anchor_file *exec, size_t exec_nr,
			 anchor_span_fn span, void *ctx)
{
	int crash_frame = -1;

	for (size_t i = 0; span && i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];
		const struct anchor_file *ef;
		const char *name = NULL;
		int start, end, l;

		if (!fr->in_project || !fr->file || fr->line < 1)
			continue;
		if (crash_frame < 0)
			crash_frame = (int)i;
		ef = exec_file(exec, exec_nr, fr->file);
		if (!ef || !span(ctx, fr->file, fr->line, &start, &end, &name))
			continue;
		if (!(l = nearest(ef, start, end, fr->line)))
			continue;
		set_at(a, (int)i == crash_frame ? ANCHOR_CRASH_FUNCTION :
		       ANCHOR_CALLER, fr->file, l, name ? name : fr->func,
		       (int)i);
		return 1;
	}
	return 0;
}

struct change_anchor *change_anchor_pick(const struct finding *f,
					 const struct anchor_file *exec,
					 size_t exec_nr, anchor_span_fn span,
					 void *ctx)
{
	struct change_anchor *a;
	const struct anchor_file *ef;
	int l;

	if (f->in_change && f->file && f->line > 0) {
		a = at_crash(f, ANCHOR_CRASH_SITE);
		copy_exec(a, exec, exec_nr);
		return a;
	}
	a = at_crash(f, ANCHOR_NOT_EXECUTED);
	copy_exec(a, exec, exec_nr);
	if (!a->executed_nr)
		return a;
	if (pick_on_stack(a, f, a->executed, a->executed_nr, span, ctx))
		return a;
	/* off the stack: above the crash in its file, else the first */
	ef = exec_file(a->executed, a->executed_nr, f->file);
	if (ef && f->line > 0 && (l = nearest(ef, 1, f->line, f->line)))
		set_at(a, ANCHOR_EXECUTED, ef->path, l, NULL, -1);
	else
		set_at(a, ANCHOR_EXECUTED, a->executed[0].path,
		       a->executed[0].lines[0], NULL, -1);
	if (span) {
		const char *name = NULL;
		int s, e;

		if (span(ctx, a->file, a->line, &s, &e, &name) && name)
			a->function = xstrdup(name);
	}
	return a;
}

int change_anchor_moved(const struct change_anchor *a)
{
	return a && a->file && a->line > 0 &&
		(!strcmp(a->how, ANCHOR_CRASH_FUNCTION) ||
		 !strcmp(a->how, ANCHOR_CALLER) ||
		 !strcmp(a->how, ANCHOR_EXECUTED));
}

const char *change_anchor_place(const struct finding *f, int *line_out,
				int *moved_out)
{
	int moved = change_anchor_moved(f->anchor);

	if (moved_out)
		*moved_out = moved;
	if (moved) {
		*line_out = f->anchor->line;
		return f->anchor->file;
	}
	*line_out = f->file ? f->line : 0;
	return f->file;
}

int change_anchor_executed(const struct change_anchor *a, const char *path,
			   int line)
{
	const struct anchor_file *ef;

	if (!a || !(ef = exec_file(a->executed, a->executed_nr, path)))
		return 0;
	for (size_t i = 0; i < ef->nr; i++)
		if (ef->lines[i] == line)
			return 1;
	return 0;
}

const char *change_anchor_how_text(const struct change_anchor *a)
{
	if (!a)
		return "not measured";
	if (!strcmp(a->how, ANCHOR_CRASH_SITE))
		return "the crash line is a changed line";
	if (!strcmp(a->how, ANCHOR_CRASH_FUNCTION))
		return "the changed line the PoV executed nearest the crash, "
			"in the crashing function";
	if (!strcmp(a->how, ANCHOR_CALLER))
		return "the changed line the PoV executed nearest the call, "
			"in a caller on the crashing stack";
	if (!strcmp(a->how, ANCHOR_EXECUTED))
		return "a changed line the PoV executed, off the crashing "
			"stack";
	if (!strcmp(a->how, ANCHOR_NOT_EXECUTED))
		return "the PoV executed no changed line; shown at the crash "
			"site";
	return "the PoV's coverage of the change is unknown; shown at the "
		"crash site";
}

void change_anchor_lead_text(struct buf *b, const struct finding *f,
			     int capital)
{
	const char *type = f->crash_type && *f->crash_type ?
		f->crash_type : "crash";
	size_t at = b->len;

	buf_printf(b, "%s change leads to a ", capital ? "This" : "this");
	at = b->len;
	buf_adds(b, type);
	/* "Heap-buffer-overflow WRITE 4": a sentence's word, not a title */
	if (b->ptr[at] >= 'A' && b->ptr[at] <= 'Z' &&
	    !(b->ptr[at + 1] >= 'A' && b->ptr[at + 1] <= 'Z'))
		b->ptr[at] = (char)(b->ptr[at] - 'A' + 'a');
	if (f->file && f->line > 0)
		buf_printf(b, " at %s:%d", f->file, f->line);
	if (f->function)
		buf_printf(b, " in %s", f->function);
}

/* --- results.json -------------------------------------------------------- */

json_t *change_anchor_to_json(const struct change_anchor *a)
{
	json_t *o = json_object(), *ex = json_array();

	json_object_set_new(o, "how", json_string(a->how));
	json_object_set_new(o, "file", a->file ? json_string(a->file) :
			    json_null());
	json_object_set_new(o, "line", json_integer(a->line));
	json_object_set_new(o, "function", a->function ?
			    json_string(a->function) : json_null());
	json_object_set_new(o, "frame", a->frame < 0 ? json_null() :
			    json_integer(a->frame));
	if (a->reason)
		json_object_set_new(o, "reason", json_string(a->reason));
	for (size_t i = 0; i < a->executed_nr; i++) {
		json_t *ls = json_array();

		for (size_t k = 0; k < a->executed[i].nr; k++)
			json_array_append_new(ls, json_integer(
				a->executed[i].lines[k]));
		json_array_append_new(ex, json_pack("{s:s,s:o}", "file",
				      a->executed[i].path, "lines", ls));
	}
	json_object_set_new(o, "executed", ex);
	return o;
}

static int bad(const char *src, const char *at, const char *key,
	       const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: %s.%s: %s", src, at, key, what);
}

/* A repo-relative path: no leading '/', no ".." segment, no control. */
static int relative_path_ok(const char *p)
{
	size_t n = strlen(p);

	if (!n || n > 4096 || p[0] == '/')
		return 0;
	for (const char *s = p; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	for (const char *s = p; s; s = strchr(s, '/'), s = s ? s + 1 : s)
		if (!strncmp(s, "..", 2) && (s[2] == '/' || !s[2]))
			return 0;
	return 1;
}

static const char *const how_values[] = {
	ANCHOR_CRASH_SITE, ANCHOR_CRASH_FUNCTION, ANCHOR_CALLER,
	ANCHOR_EXECUTED, ANCHOR_NOT_EXECUTED, ANCHOR_UNMEASURED, NULL
};

/* An optional string member that is one line of at most `max` bytes. */
static int get_line_str(char **out, const json_t *o, const char *key,
			size_t max, const char *src, const char *at)
{
	json_t *v = json_object_get(o, key);
	const char *s;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(src, at, key, "expected a string");
	s = json_string_value(v);
	if (strlen(s) > max || strchr(s, '\n'))
		return bad(src, at, key, "expected one line");
	*out = xstrdup(s);
	return 0;
}

static int executed_from_json(struct change_anchor *a, const json_t *v,
			      const char *src, const char *at)
{
	size_t i, total = 0;
	json_t *e;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > ANCHOR_LINES_MAX)
		return bad(src, at, "executed", "expected an array of "
			   "{file, lines}");
	a->executed = xcalloc(json_array_size(v) + 1, sizeof(*a->executed));
	json_array_foreach(v, i, e) {
		json_t *f = json_object_get(e, "file");
		json_t *ls = json_object_get(e, "lines"), *l;
		struct anchor_file *d = &a->executed[a->executed_nr];
		size_t k;

		if (!json_is_object(e) || !json_is_string(f) ||
		    !relative_path_ok(json_string_value(f)) ||
		    !json_is_array(ls) || !json_array_size(ls))
			return bad(src, at, "executed", "expected objects "
				   "with a repo-relative file and lines");
		if (i && strcmp(a->executed[i - 1].path,
				json_string_value(f)) >= 0)
			return bad(src, at, "executed", "files not sorted "
				   "and unique");
		total += json_array_size(ls);
		if (total > ANCHOR_LINES_MAX)
			return bad(src, at, "executed", "too many lines");
		d->path = xstrdup(json_string_value(f));
		d->lines = xmalloc(json_array_size(ls) * sizeof(int));
		a->executed_nr++;
		json_array_foreach(ls, k, l) {
			json_int_t n = json_is_integer(l) ?
				json_integer_value(l) : 0;

			if (n < 1 || n > INT_MAX ||
			    (k && n <= d->lines[k - 1]))
				return bad(src, at, "executed", "lines must "
					   "be ascending integers >= 1");
			d->lines[d->nr++] = (int)n;
		}
	}
	return 0;
}

static int anchor_fields(struct change_anchor *a, const json_t *j,
			 size_t stack_nr, const char *src, const char *at)
{
	json_t *v;
	size_t k;
	int r;

	v = json_object_get(j, "how");
	for (k = 0; json_is_string(v) && how_values[k]; k++)
		if (!strcmp(json_string_value(v), how_values[k]))
			break;
	if (!json_is_string(v) || !how_values[k])
		return bad(src, at, "how", "expected crash-site, "
			   "crash-function, caller, executed, not-executed or "
			   "unmeasured");
	a->how = xstrdup(how_values[k]);
	if ((r = get_line_str(&a->file, j, "file", 4096, src, at)) ||
	    (r = get_line_str(&a->function, j, "function", 4096, src, at)) ||
	    (r = get_line_str(&a->reason, j, "reason", 1024, src, at)))
		return r;
	if (a->file && !relative_path_ok(a->file))
		return bad(src, at, "file", "expected a repo-relative path");
	v = json_object_get(j, "line");
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > INT_MAX ||
	    (a->file != NULL) != (json_integer_value(v) > 0))
		return bad(src, at, "line", "expected an integer >= 1 with a "
			   "file, 0 without one");
	a->line = (int)json_integer_value(v);
	v = json_object_get(j, "frame");
	a->frame = -1;
	if (v && !json_is_null(v)) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (size_t)json_integer_value(v) >= stack_nr)
			return bad(src, at, "frame", "expected the index of a "
				   "stack frame");
		a->frame = (int)json_integer_value(v);
	}
	if (change_anchor_moved(a) || !strcmp(a->how, ANCHOR_CRASH_SITE)) {
		if (!a->file)
			return bad(src, at, "file", "missing");
	}
	return executed_from_json(a, json_object_get(j, "executed"), src, at);
}

int change_anchor_from_json(struct change_anchor **out, const json_t *j,
			    size_t stack_nr, const char *src, const char *at)
{
	struct change_anchor *a;
	int r;

	if (!json_is_object(j))
		return crs_error_set(CRS_EINPUT, "%s: %s: expected an object",
				     src, at);
	a = xcalloc(1, sizeof(*a));
	if ((r = anchor_fields(a, j, stack_nr, src, at)) != 0) {
		change_anchor_free(a);
		return r;
	}
	if (change_anchor_moved(a) &&
	    !change_anchor_executed(a, a->file, a->line)) {
		change_anchor_free(a);
		return bad(src, at, "line", "an anchor off the crash site "
			   "must be an executed line");
	}
	*out = a;
	return 0;
}
