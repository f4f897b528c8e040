/* SPDX-License-Identifier: Apache-2.0 */
/*
 * finding_load.c - results.json read back into a finding set
 *
 * The file is re-read by later phases and may have been edited by hand,
 * so every field's type and range is checked, and an error names the
 * file and the field.
 */
#include "sarif/finding.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "sarif/run_corpus.h"
#include "common/utf8.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define FINDING_STACK_MAX 4096	/* frames accepted per finding on load */

static const char *const novelty_values[] = {
	"new", "pre-existing", "changed", "fixed-by-change", NULL,
};
static const char *const mode_values[] = { "delta", "full", NULL };
static const char *const fail_on_values[] = { "new", "any", "none", NULL };
static const char *const suppressed_values[] = { "report-timeouts",
						 "report-ooms", NULL };
static const char *const verdict_values[] = {
	"passed", "failed", "no tests", "skipped", NULL,
};
const char *const finding_patch_step_names[] = {
	"policy", "apply", "build", "povs", "tests", "refuzz", NULL,
};

#define FINDING_PATCHES_MAX 4096	/* patches accepted on load */
#define FINDING_CANDIDATES_MAX 100000	/* candidates accepted on load */
static const char *const level_values[] = {
	"none", "note", "warning", "error", NULL,
};
static const char *const status_values[] = {
	"confirmed", "unconfirmed", NULL,
};

/* Where we are in the document, for messages: "findings[3]." */
struct jctx {
	const char *src;
	char at[128];
};

static int bad(const struct jctx *c, const char *key, const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: %s%s: %s", c->src, c->at, key,
			     what);
}

/* A borrowed member, or NULL when missing or null. */
static json_t *member(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key); /* borrowed */

	return json_is_null(v) ? NULL : v;
}

static int get_str(char **out, const struct jctx *c, const json_t *o,
		   const char *key, int required)
{
	json_t *v = member(o, key);
	const char *s;
	size_t n;

	*out = NULL;
	if (!v)
		return required ? bad(c, key, "missing") : 0;
	if (!json_is_string(v))
		return bad(c, key, "expected a string");
	s = json_string_value(v);
	n = json_string_length(v);
	if (strlen(s) != n)
		return bad(c, key, "contains a NUL character");
	if (required && !n)
		return bad(c, key, "is empty");
	*out = xstrndup(s, n);
	return 0;
}

static int get_enum(char **out, const struct jctx *c, const json_t *o,
		    const char *key, const char *const *allowed)
{
	int r = get_str(out, c, o, key, 0);

	if (r || !*out)
		return r;
	for (size_t i = 0; allowed[i]; i++)
		if (!strcmp(*out, allowed[i]))
			return 0;
	r = crs_error_set(CRS_EINPUT, "%s: %s%s: unknown value \"%.64s\"",
			  c->src, c->at, key, *out);
	free(*out);
	*out = NULL;
	return r;
}

static int get_int(int *out, const struct jctx *c, const json_t *o,
		   const char *key, int required)
{
	json_t *v = member(o, key);

	*out = 0;
	if (!v)
		return required ? bad(c, key, "missing") : 0;
	if (!json_is_integer(v))
		return bad(c, key, "expected an integer");
	if (json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
		return bad(c, key, "out of range");
	*out = (int)json_integer_value(v);
	return 0;
}

static int get_size(size_t *out, const struct jctx *c, const json_t *o,
		    const char *key)
{
	json_t *v = member(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return bad(c, key, "expected an integer");
	if (json_integer_value(v) < 0)
		return bad(c, key, "out of range");
	*out = (size_t)json_integer_value(v);
	return 0;
}

static int get_bool(int *out, const struct jctx *c, const json_t *o,
		    const char *key)
{
	json_t *v = member(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad(c, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

/* A number >= 0; `def` when missing or null. */
static int get_num(double *out, const struct jctx *c, const json_t *o,
		   const char *key, double def)
{
	json_t *v = member(o, key);

	*out = def;
	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad(c, key, "expected a number");
	if (!isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return bad(c, key, "out of range");
	*out = json_number_value(v);
	return 0;
}

/* summary.crs_stats (optional): {"<crs>": {povs, first_pov_after_s}} */
static int get_crs_stats(struct scan_summary *m, const struct jctx *c,
			 const json_t *o)
{
	const json_t *st = json_object_get(o, "crs_stats");	/* borrowed */

	if (!st || json_is_null(st))
		return 0;
	if (!json_is_object(st))
		return bad(c, "crs_stats", "not an object");
	m->crs_povs = xcalloc(m->crs_nr ? m->crs_nr : 1, sizeof(size_t));
	m->crs_first_pov_s = xcalloc(m->crs_nr ? m->crs_nr : 1,
				     sizeof(double));
	for (size_t i = 0; i < m->crs_nr; i++) {
		const json_t *e = json_object_get(st, m->crs[i]);
		const json_t *p = json_object_get(e, "povs");
		const json_t *t = json_object_get(e, "first_pov_after_s");

		m->crs_povs[i] = json_is_integer(p) && json_integer_value(p) > 0 ?
			(size_t)json_integer_value(p) : 0;
		m->crs_first_pov_s[i] = json_is_number(t) ?
			json_number_value(t) : -1;
	}
	return 0;
}

static int get_str_array(char ***out, size_t *nr, const struct jctx *c,
			 const json_t *o, const char *key)
{
	json_t *v = member(o, key), *e;
	char **a = NULL;
	size_t i, n = 0;
	char what[48];
	int r = 0;

	*out = NULL;
	*nr = 0;
	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(c, key, "expected an array of strings");
	a = xcalloc(json_array_size(v) + 1, sizeof(*a));
	json_array_foreach(v, i, e) {
		if (!json_is_string(e) ||
		    strlen(json_string_value(e)) != json_string_length(e)) {
			snprintf(what, sizeof(what), "[%zu]", i);
			r = crs_error_set(CRS_EINPUT, "%s: %s%s%s: expected a "
					  "string", c->src, c->at, key, what);
			break;
		}
		a[n++] = xstrdup(json_string_value(e));
	}
	if (r) {
		for (i = 0; i < n; i++)
			free(a[i]);
		free(a);
		return r;
	}
	*out = a;
	*nr = n;
	return 0;
}

static int summary_from_json(struct scan_summary *m, const json_t *o,
			     const char *src)
{
	struct jctx c = { src, "summary." };
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: summary: expected an "
				     "object", src);
	if ((r = get_str(&m->tool_version, &c, o, "tool_version", 0)) ||
	    (r = get_str(&m->project, &c, o, "project", 0)) ||
	    (r = get_str(&m->source_root, &c, o, "source_root", 0)) ||
	    (r = get_str(&m->head_build, &c, o, "head_build", 0)) ||
	    (r = get_str(&m->runner_image, &c, o, "runner_image", 0)) ||
	    (r = get_str(&m->base, &c, o, "base", 0)) ||
	    (r = get_str(&m->head, &c, o, "head", 0)) ||
	    (r = get_enum(&m->mode, &c, o, "mode", mode_values)) ||
	    (r = get_str_array(&m->harnesses, &m->harnesses_nr, &c, o,
			   "harnesses")) ||
	    (r = get_str_array(&m->crs, &m->crs_nr, &c, o, "crs")) ||
	    (r = get_str(&m->started_at, &c, o, "started_at", 0)) ||
	    (r = get_str(&m->finished_at, &c, o, "finished_at", 0)) ||
	    (r = get_num(&m->duration_s, &c, o, "duration_s", 0)) ||
	    (r = get_bool(&m->timed_out, &c, o, "timed_out")) ||
	    (r = get_size(&m->povs_submitted, &c, o, "povs_submitted")) ||
	    (r = get_size(&m->povs_not_reproduced, &c, o,
		      "povs_not_reproduced")) ||
	    (r = get_size(&m->private_findings, &c, o, "private_findings")) ||
	    (r = get_size(&m->private_new, &c, o, "private_new")) ||
	    (r = get_enum(&m->fail_on, &c, o, "fail_on", fail_on_values)) ||
	    (r = get_str(&m->sarif_category, &c, o, "sarif_category", 0)) ||
	    (r = get_str(&m->sanitizer, &c, o, "sanitizer", 0)) ||
	    (r = get_bool(&m->llm_crs, &c, o, "llm_crs")) ||
	    (r = get_str(&m->llm_reason, &c, o, "llm_reason", 0)) ||
	    (r = get_str_array(&m->uncommitted, &m->uncommitted_nr, &c, o,
			       "uncommitted")) ||
	    (r = get_size(&m->uncommitted_total, &c, o, "uncommitted_total")))
		return r;
	if (m->uncommitted_nr > SUMMARY_UNCOMMITTED_MAX ||
	    m->uncommitted_nr > m->uncommitted_total)
		return bad(&c, "uncommitted", "more paths than "
			   "uncommitted_total, or than 20");
	return get_crs_stats(m, &c, o);
}

static int frame_from_json(struct finding_frame *f, const json_t *o,
			   const struct jctx *c)
{
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: %.*s: expected an object",
				     c->src, (int)strlen(c->at) - 1, c->at);
	if ((r = get_str(&f->func, c, o, "function", 0)) ||
	    (r = get_str(&f->file, c, o, "file", 0)) ||
	    (r = get_int(&f->line, c, o, "line", 0)) ||
	    (r = get_int(&f->column, c, o, "column", 0)) ||
	    (r = get_bool(&f->in_project, c, o, "in_project")) ||
	    (r = get_bool(&f->in_change, c, o, "in_change")))
		return r;
	return 0;
}

static int check_id(const struct jctx *c, const char *id)
{
	if (strlen(id) != 16)
		return bad(c, "id", "expected 16 lowercase hex digits");
	for (const char *p = id; *p; p++)
		if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p))
			return bad(c, "id", "expected 16 lowercase hex "
				   "digits");
	return 0;
}

static int stack_from_json(struct finding *f, const json_t *o,
			   const struct jctx *c)
{
	json_t *v = member(o, "stack"), *e;
	struct jctx fc = { c->src, "" };
	size_t i;
	int r;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(c, "stack", "expected an array");
	if (json_array_size(v) > FINDING_STACK_MAX)
		return bad(c, "stack", "too many frames");
	f->stack = xcalloc(json_array_size(v) + 1, sizeof(*f->stack));
	json_array_foreach(v, i, e) {
		snprintf(fc.at, sizeof(fc.at), "%.64sstack[%zu].", c->at,
			 i);
		r = frame_from_json(&f->stack[f->stack_nr++], e, &fc);
		if (r)
			return r;
	}
	return 0;
}

/* "povs" (optional): [{harness, path, sha256}]; "harnesses" follows. */
static int povs_from_json(struct finding *f, const json_t *o,
			  const struct jctx *c)
{
	json_t *v = member(o, "povs"), *e;
	char **h = NULL;
	size_t i, hn = 0;
	int r;

	if (v && !json_is_array(v))
		return bad(c, "povs", "expected an array");
	json_array_foreach(v, i, e) {
		struct jctx pc = *c;
		char *ph = NULL, *pp = NULL, *ps = NULL;

		snprintf(pc.at, sizeof(pc.at), "%.96spovs[%zu].", c->at, i);
		if (!json_is_object(e))
			return bad(c, "povs", "expected objects");
		if ((r = get_str(&ph, &pc, e, "harness", 0)) == 0 &&
		    (r = get_str(&pp, &pc, e, "path", 0)) == 0 &&
		    (r = get_str(&ps, &pc, e, "sha256", 0)) == 0)
			finding_add_pov(f, ph, pp, ps);
		free(ph);
		free(pp);
		free(ps);
		if (r)
			return r;
	}
	/* and "harnesses" that no listed PoV names */
	if ((r = get_str_array(&h, &hn, c, o, "harnesses")) != 0)
		return r;
	for (i = 0; i < hn; i++) {
		size_t k;

		for (k = 0; k < f->harnesses_nr; k++)
			if (!strcmp(f->harnesses[k], h[i]))
				break;
		if (k == f->harnesses_nr) {
			f->harnesses = xrealloc(f->harnesses,
				(f->harnesses_nr + 1) * sizeof(char *));
			f->harnesses[f->harnesses_nr++] = xstrdup(h[i]);
		}
	}
	for (i = 0; i < hn; i++)
		free(h[i]);
	free(h);
	return 0;
}

/* "change_anchor" (optional), after the stack it may point into. */
static int anchor_from_json(struct finding *f, const json_t *o,
			    const struct jctx *c)
{
	json_t *v = member(o, "change_anchor");
	char at[160];

	if (!v)
		return 0;
	snprintf(at, sizeof(at), "%.140schange_anchor", c->at);
	return change_anchor_from_json(&f->anchor, v, f->stack_nr, c->src, at);
}

static int finding_from_json(struct finding *f, const json_t *o,
			     const struct jctx *c)
{
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: %.*s: expected an object",
				     c->src, (int)strlen(c->at) - 1, c->at);
	if ((r = get_str(&f->id, c, o, "id", 1)) ||
	    (r = check_id(c, f->id)) ||
	    (r = get_str(&f->signature, c, o, "signature", 1)) ||
	    (r = get_str(&f->crash_type, c, o, "crash_type", 1)) ||
	    (r = get_str(&f->kind, c, o, "kind", 0)) ||
	    (r = get_str(&f->sanitizer, c, o, "sanitizer", 0)) ||
	    (r = get_str(&f->description, c, o, "description", 0)) ||
	    (r = get_str(&f->harness, c, o, "harness", 0)) ||
	    (r = get_bool(&f->is_security, c, o, "is_security")) ||
	    (r = get_str(&f->file, c, o, "file", 0)) ||
	    (r = get_int(&f->line, c, o, "line", 0)) ||
	    (r = get_int(&f->column, c, o, "column", 0)) ||
	    (r = get_str(&f->function, c, o, "function", 0)) ||
	    (r = get_bool(&f->in_change, c, o, "in_change")) ||
	    (r = stack_from_json(f, o, c)) ||
	    (r = get_str(&f->pov_path, c, o, "pov_path", 0)) ||
	    (r = get_str(&f->pov_sha256, c, o, "pov_sha256", 0)) ||
	    (r = get_int(&f->reproduced, c, o, "reproduced", 1)) ||
	    (r = get_int(&f->attempts, c, o, "attempts", 1)) ||
	    (r = get_enum(&f->novelty, c, o, "novelty", novelty_values)) ||
	    (r = get_str(&f->found_by, c, o, "found_by", 0)) ||
	    (r = get_num(&f->found_after_s, c, o, "found_after_s", -1)) ||
	    (r = get_size(&f->duplicates, c, o, "duplicates")) ||
	    (r = get_str(&f->report_path, c, o, "report_path", 0)) ||
	    (r = get_str_array(&f->fixed_by, &f->fixed_by_nr, c, o,
			       "fixed_by")) ||
	    (r = get_enum(&f->suppressed, c, o, "suppressed",
			  suppressed_values)) ||
	    (r = povs_from_json(f, o, c)) ||
	    (r = anchor_from_json(f, o, c)))
		return r;
	if (f->reproduced > f->attempts)
		return bad(c, "reproduced", "larger than attempts");
	return 0;
}

static int step_from_json(struct finding_patch_step *st, const json_t *o,
			  const struct jctx *c)
{
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: %.*s: expected an object",
				     c->src, (int)strlen(c->at) - 1, c->at);
	if ((r = get_enum(&st->name, c, o, "name",
			  finding_patch_step_names)) ||
	    (r = get_enum(&st->verdict, c, o, "verdict", verdict_values)) ||
	    (r = get_str(&st->detail, c, o, "detail", 0)) ||
	    (r = get_str(&st->log_path, c, o, "log_path", 0)))
		return r;
	if (!st->name)
		return bad(c, "name", "missing");
	if (!st->verdict)
		return bad(c, "verdict", "missing");
	return 0;
}

static int patch_from_json(struct finding_patch *p, const json_t *o,
			   const struct jctx *c)
{
	struct jctx sc = { c->src, "" };
	json_t *v, *e;
	size_t i;
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: %.*s: expected an object",
				     c->src, (int)strlen(c->at) - 1, c->at);
	if ((r = get_str(&p->sha256, c, o, "sha256", 1)) ||
	    (r = get_str(&p->path, c, o, "path", 0)) ||
	    (r = get_str(&p->crs, c, o, "crs", 0)) ||
	    (r = get_str(&p->harness, c, o, "harness", 0)) ||
	    (r = get_bool(&p->validated, c, o, "validated")) ||
	    (r = get_enum(&p->failed_step, c, o, "failed_step",
			  finding_patch_step_names)) ||
	    (r = get_str(&p->failure, c, o, "failure", 0)) ||
	    (r = get_str_array(&p->fixes, &p->fixes_nr, c, o, "fixes")) ||
	    (r = get_str(&p->diff, c, o, "diff", 0)))
		return r;
	if (!(v = member(o, "steps")))
		return 0;
	if (!json_is_array(v))
		return bad(c, "steps", "expected an array");
	if (json_array_size(v) > FINDING_PATCH_STEPS_MAX)
		return bad(c, "steps", "too many steps");
	json_array_foreach(v, i, e) {
		snprintf(sc.at, sizeof(sc.at), "%.64ssteps[%zu].", c->at, i);
		if ((r = step_from_json(&p->steps[p->steps_nr++], e, &sc)))
			return r;
	}
	return 0;
}

static int patches_from_json(struct finding_set *s, const json_t *j,
			     const char *src)
{
	struct jctx c = { src, "" };
	json_t *v = member(j, "patches"), *e;
	size_t i;
	int r;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(&c, "patches", "expected an array");
	if (json_array_size(v) > FINDING_PATCHES_MAX)
		return bad(&c, "patches", "too many patches");
	json_array_foreach(v, i, e) {
		struct finding_patch *p = finding_set_add_patch(s);

		snprintf(c.at, sizeof(c.at), "patches[%zu].", i);
		if ((r = patch_from_json(p, e, &c)) != 0)
			return r;
	}
	return 0;
}

static int candidate_from_json(struct finding_candidate *k, const json_t *o,
			       const struct jctx *c)
{
	int r;

	if (!json_is_object(o))
		return crs_error_set(CRS_EINPUT, "%s: %.*s: expected an object",
				     c->src, (int)strlen(c->at) - 1, c->at);
	if ((r = get_str(&k->source, c, o, "source", 1)) ||
	    (r = get_size(&k->index, c, o, "index")) ||
	    (r = get_str(&k->rule_id, c, o, "rule_id", 0)) ||
	    (r = get_enum(&k->level, c, o, "level", level_values)) ||
	    (r = get_str(&k->message, c, o, "message", 0)) ||
	    (r = get_str(&k->file, c, o, "file", 0)) ||
	    (r = get_int(&k->start_line, c, o, "start_line", 0)) ||
	    (r = get_int(&k->end_line, c, o, "end_line", 0)) ||
	    (r = get_str(&k->function, c, o, "function", 0)) ||
	    (r = get_enum(&k->status, c, o, "status", status_values)) ||
	    (r = get_str(&k->finding_id, c, o, "finding_id", 0)) ||
	    (r = get_str(&k->pov_path, c, o, "pov_path", 0)))
		return r;
	return 0;
}

static int candidates_from_json(struct finding_set *s, const json_t *j,
				const char *src)
{
	struct jctx c = { src, "" };
	json_t *v = member(j, "candidates"), *e;
	size_t i;
	int r;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(&c, "candidates", "expected an array");
	if (json_array_size(v) > FINDING_CANDIDATES_MAX)
		return bad(&c, "candidates", "too many candidates");
	json_array_foreach(v, i, e) {
		struct finding_candidate *k = finding_set_add_candidate(s);

		snprintf(c.at, sizeof(c.at), "candidates[%zu].", i);
		if ((r = candidate_from_json(k, e, &c)) != 0)
			return r;
	}
	return 0;
}

struct id_pos {
	const char *id;
	size_t pos;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Ids are unique (sorting keeps this O(n log n) for large files). */
static int check_unique_ids(const struct finding_set *s, const char *src)
{
	struct id_pos *v = xcalloc(s->nr + 1, sizeof(*v));
	int r = 0;

	for (size_t i = 0; i < s->nr; i++) {
		v[i].id = s->items[i].id;
		v[i].pos = i;
	}
	qsort(v, s->nr, sizeof(*v), cmp_id);
	for (size_t i = 1; i < s->nr && !r; i++)
		if (!strcmp(v[i - 1].id, v[i].id))
			r = crs_error_set(CRS_EINPUT, "%s: findings[%zu].id: "
					  "duplicate of findings[%zu].id \"%s\"",
					  src, v[i].pos, v[i - 1].pos, v[i].id);
	free(v);
	return r;
}

/* "incomplete" (optional): [{harness, reason, fuzzed_seconds, ...}] */
static int incomplete_from_json(struct finding_set *s, const json_t *j,
				const char *src)
{
	json_t *v = member(j, "incomplete"), *e;
	struct jctx c = { src, "" };
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(&c, "incomplete", "expected an array");
	json_array_foreach(v, i, e) {
		char *h = NULL, *why = NULL;
		double got = 0, want = 0;
		int r;

		snprintf(c.at, sizeof(c.at), "incomplete[%zu].", i);
		if (!json_is_object(e))
			return crs_error_set(CRS_EINPUT, "%s: incomplete[%zu]: "
					     "expected an object", src, i);
		if ((r = get_str(&h, &c, e, "harness", 1)) == 0 &&
		    (r = get_str(&why, &c, e, "reason", 1)) == 0 &&
		    (r = get_num(&got, &c, e, "fuzzed_seconds", 0)) == 0 &&
		    (r = get_num(&want, &c, e, "wanted_seconds", 0)) == 0)
			scan_summary_add_incomplete(&s->summary, h, why, got,
						    want);
		free(h);
		free(why);
		if (r)
			return r;
	}
	return 0;
}

CRS_TESTABLE int finding_set_from_json(struct finding_set *s, const json_t *j,
			  const char *source_name)
{
	const char *src = source_name ? source_name : "results.json";
	struct finding_set tmp;
	struct jctx c = { src, "" };
	json_t *v, *e;
	size_t i;
	int r = CRS_ERR;

	finding_set_init(&tmp);
	if (!json_is_object(j)) {
		r = crs_error_set(CRS_EINPUT, "%s: expected a JSON object",
				  src);
		goto out;
	}
	if ((v = member(j, "format")) && (!json_is_string(v) ||
	    strcmp(json_string_value(v), FINDING_FORMAT))) {
		r = bad(&c, "format", "expected \"" FINDING_FORMAT "\"");
		goto out;
	}
	if (!(v = member(j, "version"))) {
		r = bad(&c, "version", "missing");
		goto out;
	}
	if (!json_is_integer(v) ||
	    json_integer_value(v) != FINDING_FORMAT_VERSION) {
		r = bad(&c, "version", "unsupported (this crs-ci reads "
			"version 1)");
		goto out;
	}
	if (!(v = member(j, "summary"))) {
		r = bad(&c, "summary", "missing");
		goto out;
	}
	if ((r = summary_from_json(&tmp.summary, v, src)) != 0)
		goto out;
	if (!(v = member(j, "findings")) || !json_is_array(v)) {
		r = bad(&c, "findings", v ? "expected an array" : "missing");
		goto out;
	}
	json_array_foreach(v, i, e) {
		struct finding *f = finding_set_add(&tmp);

		snprintf(c.at, sizeof(c.at), "findings[%zu].", i);
		if ((r = finding_from_json(f, e, &c)) != 0)
			goto out;
	}
	if ((r = check_unique_ids(&tmp, src)) != 0 ||
	    (r = incomplete_from_json(&tmp, j, src)) != 0 ||
	    (r = patches_from_json(&tmp, j, src)) != 0 ||
	    (r = candidates_from_json(&tmp, j, src)) != 0)
		goto out;
	if ((v = member(j, "timings")) && !json_is_object(v)) {
		r = bad(&c, "timings", "expected an object");
		goto out;
	}
	tmp.timings = json_incref(v);
	if ((v = member(j, "change_coverage")) &&
	    (r = change_cov_from_json(&tmp.change_coverage, v, src)) != 0)
		goto out;
	if ((v = member(j, "after_finding")) &&
	    (r = run_cut_from_json(&tmp.run_cut, v, src)) != 0)
		goto out;
	if ((v = member(j, "saturation")) &&
	    (r = run_saturation_from_json(&tmp.saturation, v, src)) != 0)
		goto out;
	if ((v = member(j, "corpus")) &&
	    (r = run_corpus_from_json(&tmp.corpus, v, src)) != 0)
		goto out;
	finding_set_release(s);
	*s = tmp;
	finding_set_init(&tmp); /* transferred */
	r = 0;
out:
	finding_set_release(&tmp);
	return r;
}

int finding_json_load(json_t **out, const char *path, size_t max)
{
	struct buf b = BUF_INIT;
	json_error_t err;
	int r;

	*out = NULL;
	if ((r = fs_read_file(&b, path, max)) == 0 &&
	    !(*out = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, &err)))
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, err.line,
				  err.column, err.text);
	buf_release(&b);
	return r;
}

int finding_set_load(struct finding_set *s, const char *path)
{
	json_t *j;
	int r = finding_json_load(&j, path, FINDING_RESULTS_MAX);

	if (r == 0)
		r = finding_set_from_json(s, j, path);
	json_decref(j);
	return r;
}
