/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_anchor.c - a finding's change anchor: copied, described, and
 * read back from results.json
 *
 * results.json may come from a shard or an old run, so reading it checks
 * every field and caps the lines.
 */
#include "sarif/change_anchor.h"
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

void change_anchor_set_executed(struct change_anchor *a,
				const struct anchor_file *e, size_t n)
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

const struct anchor_file *change_anchor_file(const struct change_anchor *a,
					    const char *path)
{
	for (size_t i = 0; a && path && i < a->executed_nr; i++)
		if (!strcmp(a->executed[i].path, path))
			return &a->executed[i];
	return NULL;
}

int change_anchor_moved(const struct change_anchor *a)
{
	return a && a->file && a->line > 0 &&
		(!strcmp(a->how, ANCHOR_CRASH_FUNCTION) ||
		 !strcmp(a->how, ANCHOR_CALLER) ||
		 !strcmp(a->how, ANCHOR_EXECUTED));
}

/* 1 when `a` lists `line` of `path` as executed. */
static int executed_line(const struct change_anchor *a, const char *path,
			 int line)
{
	const struct anchor_file *ef;

	if (!(ef = change_anchor_file(a, path)))
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
	    !executed_line(a, a->file, a->line)) {
		change_anchor_free(a);
		return bad(src, at, "line", "an anchor off the crash site "
			   "must be an executed line");
	}
	*out = a;
	return 0;
}
