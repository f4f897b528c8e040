/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_read.c - a static analyser's SARIF log into bug candidates
 *
 * The input comes from another tool (or a hand), so every field that is
 * used is type-checked and named by its JSON path in the error; fields
 * that are not used are not looked at. Only one location per result is
 * kept: the candidate is a claim about one place in the source.
 */
#include "sarif/sarif_read.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AT_MAX 256	/* longest JSON path kept for messages */

static const char *const levels[] = {
	"none", "note", "warning", "error", NULL,
};

/* The file's name and the results counted so far. */
struct rd {
	const char *name;
	size_t results;
};

static int bad(const struct rd *c, const char *at, const char *key,
	       const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: %s%s%s: %s", c->name, at,
			     *at && key ? "." : "", key ? key : "", what);
}

/* A borrowed member; NULL when missing or JSON null. */
static json_t *member(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_null(v) ? NULL : v;
}

/* Object member `key` of `o`, which must be an object when present. */
static int get_obj(json_t **out, const struct rd *c, const char *at,
		   const json_t *o, const char *key, int required)
{
	json_t *v = member(o, key);

	*out = NULL;
	if (!v)
		return required ? bad(c, at, key, "missing") : 0;
	if (!json_is_object(v))
		return bad(c, at, key, "not an object");
	*out = v;
	return 0;
}

static int get_arr(json_t **out, const struct rd *c, const char *at,
		   const json_t *o, const char *key, int required)
{
	json_t *v = member(o, key);

	*out = NULL;
	if (!v)
		return required ? bad(c, at, key, "missing") : 0;
	if (!json_is_array(v))
		return bad(c, at, key, "not an array");
	*out = v;
	return 0;
}

/* A borrowed string member (NULL when missing and not required). */
static int get_str(const char **out, const struct rd *c, const char *at,
		   const json_t *o, const char *key, int required)
{
	json_t *v = member(o, key);

	*out = NULL;
	if (!v)
		return required ? bad(c, at, key, "missing") : 0;
	if (!json_is_string(v))
		return bad(c, at, key, "not a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return bad(c, at, key, "contains a NUL character");
	*out = json_string_value(v);
	return 0;
}

/* A line number >= 1, or 0 when missing and not required. */
static int get_line(int *out, const struct rd *c, const char *at,
		    const json_t *o, const char *key, int required)
{
	json_t *v = member(o, key);

	*out = 0;
	if (!v)
		return required ? bad(c, at, key, "missing") : 0;
	if (!json_is_integer(v))
		return bad(c, at, key, "not an integer");
	if (json_integer_value(v) < 1 || json_integer_value(v) > INT_MAX)
		return bad(c, at, key, "out of range");
	*out = (int)json_integer_value(v);
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static const char *skip_dot_slash(const char *p)
{
	while (p[0] == '.' && p[1] == '/') {
		p += 2;
		while (*p == '/')
			p++;
	}
	return p;
}

/* A uri as a path: scheme and host dropped, %XX decoded, "./" dropped. */
static int uri_path(char **out, const struct rd *c, const char *at,
		    const char *uri)
{
	const char *p = uri;
	struct buf b = BUF_INIT;

	*out = NULL;
	if (!strncasecmp(p, "file://", 7)) {
		p += 7;
		if (*p != '/')	/* file://host/path */
			p += strcspn(p, "/");
	} else if (!strncasecmp(p, "file:/", 6)) {
		p += 5;
	}
	for (; *p; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hexval(p[1])) >= 0 &&
		    (lo = hexval(p[2])) >= 0) {
			if (!hi && !lo) {
				buf_release(&b);
				return bad(c, at, "uri", "contains a NUL "
					   "character");
			}
			buf_addch(&b, (char)(hi << 4 | lo));
			p += 2;
		} else {
			buf_addch(&b, *p);
		}
	}
	*out = xstrdup(skip_dot_slash(b.ptr));
	buf_release(&b);
	return 0;
}

/* The name of a logicalLocation of kind "function", borrowed or NULL. */
static int logical_function(const char **fn, const struct rd *c,
			    const char *at, const json_t *loc)
{
	char lat[AT_MAX];
	json_t *a, *e;
	size_t i;
	int r;

	if ((r = get_arr(&a, c, at, loc, "logicalLocations", 0)) || !a)
		return r;
	json_array_foreach(a, i, e) {
		const char *kind, *name, *fq;

		snprintf(lat, sizeof(lat), "%.200s.logicalLocations[%zu]", at,
			 i);
		if (!json_is_object(e))
			return bad(c, lat, NULL, "not an object");
		if ((r = get_str(&kind, c, lat, e, "kind", 0)) ||
		    (r = get_str(&name, c, lat, e, "name", 0)) ||
		    (r = get_str(&fq, c, lat, e, "fullyQualifiedName", 0)))
			return r;
		if (!*fn && kind && !strcmp(kind, "function") &&
		    (name || fq))
			*fn = name ? name : fq;
	}
	return 0;
}

/*
 * Check one location; when `k` has no file yet and this location has an
 * artifactLocation, it becomes the candidate's location.
 */
static int location(struct finding_candidate *k, const struct rd *c,
		    const char *at, const json_t *loc)
{
	char pat[AT_MAX], aat[AT_MAX], rat[AT_MAX];
	json_t *phys, *art = NULL, *reg = NULL;
	const char *uri = NULL, *fn = NULL;
	int start = 0, end = 0, r;

	if (!json_is_object(loc))
		return bad(c, at, NULL, "not an object");
	snprintf(pat, sizeof(pat), "%.200s.physicalLocation", at);
	if ((r = get_obj(&phys, c, at, loc, "physicalLocation", 0)) ||
	    (r = logical_function(&fn, c, at, loc)))
		return r;
	if (phys) {
		snprintf(aat, sizeof(aat), "%.200s.artifactLocation", pat);
		snprintf(rat, sizeof(rat), "%.200s.region", pat);
		if ((r = get_obj(&art, c, pat, phys, "artifactLocation", 0)) ||
		    (art && (r = get_str(&uri, c, aat, art, "uri", 1))) ||
		    (r = get_obj(&reg, c, pat, phys, "region", 0)) ||
		    (reg && (r = get_line(&start, c, rat, reg, "startLine",
					  1))) ||
		    (reg && (r = get_line(&end, c, rat, reg, "endLine", 0))))
			return r;
		if (end && end < start)
			return bad(c, rat, "endLine", "smaller than startLine");
	}
	if (!uri || k->file) {
		if (!k->file && !k->function && fn)
			k->function = xstrdup(fn);
		return 0;
	}
	if ((r = uri_path(&k->file, c, aat, uri)) != 0)
		return r;
	k->start_line = start;
	k->end_line = end ? end : start;
	if (fn) {
		free(k->function);
		k->function = xstrdup(fn);
	}
	return 0;
}

/* Cut at `max` bytes without splitting a UTF-8 sequence. */
static char *cut_utf8(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return xstrdup(s);
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return xstrndup(s, n);
}

static int result(struct sarif_candidates *out, const struct rd *c,
		  const char *at, const json_t *res, const char *source)
{
	struct finding_candidate *k;
	const char *text, *rule, *level;
	char mat[AT_MAX], lat[AT_MAX];
	json_t *msg, *locs, *e;
	size_t i;
	int r;

	if (!json_is_object(res))
		return bad(c, at, NULL, "not an object");
	snprintf(mat, sizeof(mat), "%.200s.message", at);
	if ((r = get_obj(&msg, c, at, res, "message", 1)) ||
	    (r = get_str(&text, c, mat, msg, "text", 1)) ||
	    (r = get_str(&rule, c, at, res, "ruleId", 0)) ||
	    (r = get_str(&level, c, at, res, "level", 0)) ||
	    (r = get_arr(&locs, c, at, res, "locations", 0)))
		return r;
	if (level) {
		for (i = 0; levels[i] && strcmp(levels[i], level); i++)
			;
		if (!levels[i])
			return bad(c, at, "level", "not one of none, note, "
				   "warning, error");
	}
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	k = &out->v[out->nr++];
	memset(k, 0, sizeof(*k));
	k->source = xstrdup(source);
	k->index = c->results - 1;
	k->rule_id = rule ? xstrdup(rule) : NULL;
	k->level = xstrdup(level ? level : "warning");
	k->message = cut_utf8(text, SARIF_READ_MESSAGE_MAX);
	json_array_foreach(locs, i, e) {
		snprintf(lat, sizeof(lat), "%.200s.locations[%zu]", at, i);
		if ((r = location(k, c, lat, e)) != 0)
			return r;
	}
	return 0;
}

static int run(struct sarif_candidates *out, struct rd *c, const char *at,
	       const json_t *run, const char *source)
{
	char tat[AT_MAX], dat[AT_MAX], rat[AT_MAX];
	const char *name;
	json_t *tool, *driver, *results, *e;
	size_t i;
	int r;

	if (!json_is_object(run))
		return bad(c, at, NULL, "not an object");
	snprintf(tat, sizeof(tat), "%.200s.tool", at);
	snprintf(dat, sizeof(dat), "%.200s.driver", tat);
	if ((r = get_obj(&tool, c, at, run, "tool", 1)) ||
	    (r = get_obj(&driver, c, tat, tool, "driver", 1)) ||
	    (r = get_str(&name, c, dat, driver, "name", 1)) ||
	    (r = get_arr(&results, c, at, run, "results", 1)))
		return r;
	if (!*name)
		return bad(c, dat, "name", "empty");
	json_array_foreach(results, i, e) {
		if (++c->results > SARIF_READ_MAX_RESULTS)
			return bad(c, at, "results", "more than 25000 results "
				   "in the file");
		snprintf(rat, sizeof(rat), "%.200s.results[%zu]", at, i);
		if ((r = result(out, c, rat, e, source)) != 0)
			return r;
	}
	return 0;
}

CRS_TESTABLE int sarif_candidates_parse(const char *buf, size_t len, const char *name,
			   struct sarif_candidates *out)
{
	struct sarif_candidates tmp = SARIF_CANDIDATES_INIT;
	struct rd c = { name ? name : "SARIF", 0 };
	const char *slash = strrchr(c.name, '/'), *version;
	const char *source = slash ? slash + 1 : c.name;
	char at[AT_MAX];
	json_error_t err;
	json_t *j = NULL, *runs, *e;
	size_t i;
	int r;

	if (len > SARIF_READ_MAX_BYTES) {
		r = crs_error_set(CRS_EINPUT, "%s: larger than %u bytes",
				  c.name, SARIF_READ_MAX_BYTES);
		goto out;
	}
	if (!(j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err))) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", c.name, err.line,
				  err.column, err.text);
		goto out;
	}
	if (!json_is_object(j)) {
		r = crs_error_set(CRS_EINPUT, "%s: not a JSON object", c.name);
		goto out;
	}
	if ((r = get_str(&version, &c, "", j, "version", 1)) != 0)
		goto out;
	if (strcmp(version, "2.1.0")) {
		r = bad(&c, "", "version", "not \"2.1.0\"");
		goto out;
	}
	if ((r = get_arr(&runs, &c, "", j, "runs", 1)) != 0)
		goto out;
	if (!json_array_size(runs)) {
		r = bad(&c, "", "runs", "empty");
		goto out;
	}
	json_array_foreach(runs, i, e) {
		snprintf(at, sizeof(at), "runs[%zu]", i);
		if ((r = run(&tmp, &c, at, e, source)) != 0)
			goto out;
	}
	for (i = 0; i < tmp.nr; i++) {
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = tmp.v[i];
	}
	tmp.nr = 0; /* transferred */
	r = 0;
out:
	sarif_candidates_release(&tmp);
	json_decref(j);
	return r;
}

int sarif_candidates_load(const char *path, struct sarif_candidates *out)
{
	struct buf b = BUF_INIT;
	int r;

	if ((r = fs_read_file(&b, path, SARIF_READ_MAX_BYTES)) == 0)
		r = sarif_candidates_parse(b.ptr, b.len, path,
					   out);
	else if (r == CRS_ENOTFOUND)
		r = crs_error_set(CRS_EINPUT, "%s: no such file", path);
	buf_release(&b);
	return r;
}

void sarif_candidates_relativize(struct sarif_candidates *c,
				 const char *root)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n <= 1)	/* no root, or "/" */
		return;
	for (size_t i = 0; i < c->nr; i++) {
		char *f = c->v[i].file;

		if (!f || strncmp(f, root, n) || f[n] != '/')
			continue;
		memmove(f, skip_dot_slash(f + n + 1),
			strlen(skip_dot_slash(f + n + 1)) + 1);
	}
}

static int func_matches(const char *frame, const char *want)
{
	size_t n = strlen(want);

	return frame && !strncmp(frame, want, n) &&
		(!frame[n] || frame[n] == '(');
}

static int frame_confirms(const struct finding_frame *fr,
			  const struct finding_candidate *k)
{
	int end = k->end_line >= k->start_line ? k->end_line : k->start_line;

	if (!fr->in_project || !fr->file || !k->file ||
	    strcmp(fr->file, k->file))
		return 0;
	if (k->start_line > 0 && fr->line >= k->start_line && fr->line <= end)
		return 1;
	return k->function && *k->function &&
		func_matches(fr->func, k->function);
}

static const struct finding *confirming(const struct finding_set *fs,
					const struct finding_candidate *k)
{
	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];

		if (f->novelty && !strcmp(f->novelty, "fixed-by-change"))
			continue;
		for (size_t n = 0; n < f->stack_nr; n++)
			if (frame_confirms(&f->stack[n], k))
				return f;
	}
	return NULL;
}

size_t sarif_candidates_mark(struct finding_set *fs)
{
	size_t confirmed = 0;

	for (size_t i = 0; i < fs->candidates_nr; i++) {
		struct finding_candidate *k = &fs->candidates[i];
		const struct finding *f = confirming(fs, k);

		free(k->status);
		free(k->finding_id);
		free(k->pov_path);
		k->status = xstrdup(f ? "confirmed" : "unconfirmed");
		k->finding_id = f && f->id ? xstrdup(f->id) : NULL;
		k->pov_path = f && f->pov_path ? xstrdup(f->pov_path) : NULL;
		confirmed += f != NULL;
	}
	return confirmed;
}

void sarif_candidates_release(struct sarif_candidates *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		finding_candidate_release(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->nr = c->alloc = 0;
}
