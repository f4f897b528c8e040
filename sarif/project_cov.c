/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project_cov.c - the project's coverage totals and their history
 */
#include "sarif/project_cov.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define COUNT_MAX 1000000000

void project_cov_release(struct project_cov *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->files[i].path);
	free(c->files);
	for (size_t i = 0; i < c->history_nr; i++) {
		free(c->history[i].at);
		free(c->history[i].commit);
	}
	free(c->history);
	memset(c, 0, sizeof(*c));
}

void project_cov_add_point(struct project_cov *c, const char *at,
			   const char *commit, size_t lines, size_t hit,
			   size_t inputs)
{
	struct project_cov_point *p;

	if (c->history_nr == PROJECT_COV_HISTORY_MAX) {
		free(c->history[0].at);
		free(c->history[0].commit);
		memmove(c->history, c->history + 1,
			(c->history_nr - 1) * sizeof(*c->history));
		c->history_nr--;
	}
	c->history = xrealloc(c->history,
			      (c->history_nr + 1) * sizeof(*c->history));
	p = &c->history[c->history_nr++];
	p->at = xstrdup(at);
	p->commit = xstrdup(commit);
	p->lines = lines;
	p->hit = hit;
	p->inputs = inputs;
}

json_t *project_cov_history_to_json(const struct project_cov *c)
{
	json_t *pts = json_array();

	for (size_t i = 0; i < c->history_nr; i++) {
		const struct project_cov_point *p = &c->history[i];

		json_array_append_new(pts, json_pack("{s:s,s:s,s:I,s:I,s:I}",
			"at", p->at, "commit", p->commit,
			"lines", (json_int_t)p->lines,
			"hit", (json_int_t)p->hit,
			"inputs", (json_int_t)p->inputs));
	}
	return json_pack("{s:o}", "points", pts);
}

static int count(size_t *out, const json_t *o, const char *key,
		 const char *src)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > COUNT_MAX)
		return crs_error_set(CRS_EINPUT, "%s: points[].%s: expected "
				     "a count", src, key);
	*out = (size_t)json_integer_value(v);
	return 0;
}

/* a string of 1 to `max` printable ASCII characters */
static const char *text(const json_t *o, const char *key, size_t max)
{
	const char *s = json_string_value(json_object_get(o, key));
	size_t n = s ? strlen(s) : 0;

	if (!n || n > max)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return NULL;
	return s;
}

int project_cov_history_from_json(struct project_cov *c, const json_t *j,
				  const char *source)
{
	const json_t *pts = json_object_get(j, "points");
	size_t n, first;

	for (size_t i = 0; i < c->history_nr; i++) {
		free(c->history[i].at);
		free(c->history[i].commit);
	}
	free(c->history);
	c->history = NULL;
	c->history_nr = 0;
	if (!json_is_object(j) || !json_is_array(pts))
		return crs_error_set(CRS_EINPUT, "%s: points: expected an "
				     "array", source);
	n = json_array_size(pts);
	first = n > PROJECT_COV_HISTORY_MAX ? n - PROJECT_COV_HISTORY_MAX : 0;
	for (size_t i = first; i < n; i++) {
		const json_t *p = json_array_get(pts, i);
		const char *at = text(p, "at", 40), *commit = text(p, "commit",
								   64);
		size_t lines, hit, inputs;

		if (!at || !commit)
			return crs_error_set(CRS_EINPUT, "%s: points[%zu]: "
					     "expected at and commit as short "
					     "text", source, i);
		if (count(&lines, p, "lines", source) ||
		    count(&hit, p, "hit", source) ||
		    count(&inputs, p, "inputs", source))
			return CRS_EINPUT;
		if (hit > lines)
			return crs_error_set(CRS_EINPUT, "%s: points[%zu]: "
					     "more lines hit than lines",
					     source, i);
		project_cov_add_point(c, at, commit, lines, hit, inputs);
	}
	return 0;
}
