/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_json.c - render change.json: files, lines, functions, literals
 *
 * Lines become inclusive [first, last] ranges, functions carry the
 * changed lines inside them. Everything here came from the pull request
 * (paths, literal bytes): jansson escapes it, and text that is not UTF-8
 * is repaired or left out, never passed through raw.
 */
#include "diff/change_json.h"
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/literals.h"
#include "common/error.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_SHOWN 4096

static json_t *text(const char *s)
{
	json_t *j;
	char *clean;

	if (!s)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	clean = utf8_clean(s, strlen(s), PATH_MAX_SHOWN); /* not UTF-8 */
	j = json_string(clean);
	free(clean);
	return j ? j : json_null();
}

/* Is the run of lines[i..] consecutive; returns the index of its end. */
static size_t run_end(const int *lines, size_t nr, size_t i)
{
	while (i + 1 < nr && lines[i + 1] == lines[i] + 1)
		i++;
	return i;
}

/* [[first, last], ...] of the file's changed lines within [lo, hi]. */
static json_t *ranges(const struct diff_file *f, int lo, int hi)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->lines_nr; i++) {
		size_t j;
		int first, last;

		if (f->lines[i] < lo || f->lines[i] > hi)
			continue;
		j = run_end(f->lines, f->lines_nr, i);
		first = f->lines[i];
		last = f->lines[j] > hi ? hi : f->lines[j];
		json_array_append_new(a, json_pack("[ii]", first, last));
		i = j;
	}
	return a;
}

static const char *lang_name(enum diff_lang l)
{
	switch (l) {
	case DIFF_LANG_C:
		return "c";
	case DIFF_LANG_CPP:
		return "c++";
	case DIFF_LANG_JAVA:
		return "java";
	case DIFF_LANG_NONE:
		break;
	}
	return NULL;
}

static json_t *functions(const struct diff_file *f,
			 const struct diff_touched *t)
{
	json_t *a = json_array();

	for (size_t i = 0; t && i < t->nr; i++) {
		const struct diff_touched_fn *fn = &t->v[i];

		if (strcmp(fn->path, f->path))
			continue;
		json_array_append_new(
			a, json_pack("{s:o,s:i,s:i,s:o}", "name",
				     text(fn->name), "start", fn->start, "end",
				     fn->end, "changed_lines",
				     ranges(f, fn->start, fn->end)));
	}
	return a;
}

static json_t *file_obj(const struct diff_file *f, const struct diff_touched *t)
{
	const char *lang = lang_name(diff_lang_of_path(f->path));
	json_t *o = json_object();

	json_object_set_new(o, "path", text(f->path));
	if (strcmp(f->old_path, f->path))
		json_object_set_new(o, "old_path", text(f->old_path));
	json_object_set_new(o, "status",
			    json_string(diff_status_name(f->status)));
	json_object_set_new(o, "language",
			    lang ? json_string(lang) : json_null());
	json_object_set_new(o, "binary", json_boolean(f->binary));
	json_object_set_new(
		o, "added_lines",
		ranges(f, 1, f->lines_nr ? f->lines[f->lines_nr - 1] : 0));
	json_object_set_new(o, "functions", functions(f, t));
	return o;
}

/* 1 when s is UTF-8 without NUL: what every JSON reader accepts. */
static int json_safe(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!s[i] || (n = utf8_seq(s + i, len - i, NULL)) == 0)
			return 0;
	return 1;
}

static json_t *literals(const struct diff_literals *l)
{
	json_t *a = json_array();

	for (size_t i = 0; l && i < l->nr; i++) {
		const struct diff_literal *lit = &l->v[i];
		json_t *s;

		if (!json_safe(lit->bytes, lit->len) ||
		    !(s = json_stringn(lit->bytes, lit->len)))
			continue; /* bytes only: change.dict has it */
		json_array_append_new(a, s);
	}
	return a;
}

int diff_change_json(char **out, size_t *len_out,
		     const struct diff_changeset *cs,
		     const struct diff_touched *touched,
		     const struct diff_literals *lit)
{
	json_t *doc = json_object(), *files = json_array();
	char *s;
	int r = 0;

	*out = NULL;
	for (size_t i = 0; i < cs->nr; i++) {
		if (cs->files[i].status == DIFF_DELETED)
			continue; /* no head side: nothing to aim at */
		json_array_append_new(files, file_obj(&cs->files[i], touched));
	}
	json_object_set_new(doc, "version",
			    json_integer(DIFF_CHANGE_JSON_VERSION));
	json_object_set_new(doc, "base_commit", text(cs->base_commit));
	json_object_set_new(doc, "head_commit", text(cs->head_commit));
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "literals", literals(lit));
	json_object_set_new(doc, "literals_dropped",
			    json_integer(lit ? (json_int_t)lit->dropped : 0));
	json_object_set_new(doc, "function_literals",
			    json_integer(touched ? (json_int_t)(touched->body->nr +
						 touched->callees->nr) : 0));
	json_object_set_new(doc, "comparisons",
			    json_integer(lit ? (json_int_t)lit->comparisons :
					       0));
	s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!s)
		return crs_error_set(CRS_ERR, "change.json: cannot render");
	if (len_out)
		*len_out = strlen(s);
	*out = xstrdup(s);
	free(s);
	return r;
}
