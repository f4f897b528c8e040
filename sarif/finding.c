/* SPDX-License-Identifier: Apache-2.0 */
/*
 * finding.c - the finding model and its file form, results.json, written
 *
 * Owns the in-memory set of proved findings, its JSON form (documented in
 * docs/results.md) and the --fail-on policy; finding_load.c reads it back.
 * Knows nothing of Docker or CI systems. Its JSON file writer,
 * finding_json_save(), also writes the SARIF log.
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

void finding_set_init(struct finding_set *s)
{
	memset(s, 0, sizeof(*s));
}

static void frame_release(struct finding_frame *f)
{
	free(f->func);
	free(f->file);
}

void finding_release(struct finding *f)
{
	free(f->id);
	free(f->signature);
	free(f->crash_type);
	free(f->kind);
	free(f->sanitizer);
	free(f->description);
	free(f->harness);
	free(f->file);
	free(f->function);
	for (size_t i = 0; i < f->stack_nr; i++)
		frame_release(&f->stack[i]);
	free(f->stack);
	free(f->pov_path);
	free(f->pov_sha256);
	free(f->novelty);
	free(f->found_by);
	free(f->report_path);
	for (size_t i = 0; i < f->fixed_by_nr; i++)
		free(f->fixed_by[i]);
	free(f->fixed_by);
	free(f->suppressed);
	for (size_t i = 0; i < f->harnesses_nr; i++)
		free(f->harnesses[i]);
	free(f->harnesses);
	for (size_t i = 0; i < f->povs_nr; i++) {
		free(f->povs[i].harness);
		free(f->povs[i].path);
		free(f->povs[i].sha256);
	}
	change_anchor_free(f->anchor);
	free(f->povs);
}

void finding_patch_release(struct finding_patch *p)
{
	free(p->sha256);
	free(p->path);
	free(p->crs);
	free(p->harness);
	free(p->diff);
	free(p->failed_step);
	free(p->failure);
	for (size_t i = 0; i < p->steps_nr; i++) {
		free(p->steps[i].name);
		free(p->steps[i].verdict);
		free(p->steps[i].detail);
		free(p->steps[i].log_path);
	}
	for (size_t i = 0; i < p->fixes_nr; i++)
		free(p->fixes[i]);
	free(p->fixes);
}

void finding_candidate_release(struct finding_candidate *c)
{
	free(c->source);
	free(c->rule_id);
	free(c->level);
	free(c->message);
	free(c->file);
	free(c->function);
	free(c->status);
	free(c->finding_id);
	free(c->pov_path);
	memset(c, 0, sizeof(*c));
}

static void summary_release(struct scan_summary *m)
{
	free(m->tool_version);
	free(m->project);
	free(m->source_root);
	free(m->head_build);
	free(m->runner_image);
	free(m->base);
	free(m->head);
	free(m->mode);
	for (size_t i = 0; i < m->harnesses_nr; i++)
		free(m->harnesses[i]);
	free(m->harnesses);
	for (size_t i = 0; i < m->crs_nr; i++)
		free(m->crs[i]);
	free(m->crs);
	free(m->crs_povs);
	free(m->crs_first_pov_s);
	free(m->started_at);
	free(m->finished_at);
	free(m->fail_on);
	free(m->sarif_category);
	free(m->sanitizer);
	free(m->llm_reason);
	for (size_t i = 0; i < m->uncommitted_nr; i++)
		free(m->uncommitted[i]);
	free(m->uncommitted);
	for (size_t i = 0; i < m->incomplete_nr; i++) {
		free(m->incomplete[i].harness);
		free(m->incomplete[i].reason);
	}
	free(m->incomplete);
}

void finding_set_release(struct finding_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		finding_release(&s->items[i]);
	free(s->items);
	for (size_t i = 0; i < s->patches_nr; i++)
		finding_patch_release(&s->patches[i]);
	free(s->patches);
	for (size_t i = 0; i < s->candidates_nr; i++)
		finding_candidate_release(&s->candidates[i]);
	free(s->candidates);
	summary_release(&s->summary);
	json_decref(s->timings);
	change_cov_free(s->change_coverage);
	run_cut_free(s->run_cut);
	free(s->saturation);
	run_corpus_free(s->corpus);
	finding_set_init(s);
}

struct finding *finding_set_add(struct finding_set *s)
{
	struct finding *f;

	ALLOC_GROW(s->items, s->nr + 1, s->alloc);
	f = &s->items[s->nr++];
	memset(f, 0, sizeof(*f));
	f->found_after_s = -1;
	return f;
}

struct finding *finding_set_find(struct finding_set *s, const char *id)
{
	for (size_t i = 0; id && i < s->nr; i++)
		if (s->items[i].id && !strcmp(s->items[i].id, id))
			return &s->items[i];
	return NULL;
}

struct finding_patch *finding_set_add_patch(struct finding_set *s)
{
	struct finding_patch *p;

	ALLOC_GROW(s->patches, s->patches_nr + 1, s->patches_alloc);
	p = &s->patches[s->patches_nr++];
	memset(p, 0, sizeof(*p));
	return p;
}

struct finding_candidate *finding_set_add_candidate(struct finding_set *s)
{
	struct finding_candidate *c;

	ALLOC_GROW(s->candidates, s->candidates_nr + 1, s->candidates_alloc);
	c = &s->candidates[s->candidates_nr++];
	memset(c, 0, sizeof(*c));
	return c;
}

const struct finding_patch *finding_set_find_patch(const struct finding_set *s,
						   const char *sha256)
{
	for (size_t i = 0; sha256 && i < s->patches_nr; i++)
		if (s->patches[i].sha256 &&
		    !strcmp(s->patches[i].sha256, sha256))
			return &s->patches[i];
	return NULL;
}

void finding_set_clear_patches(struct finding_set *s)
{
	for (size_t i = 0; i < s->patches_nr; i++)
		finding_patch_release(&s->patches[i]);
	free(s->patches);
	s->patches = NULL;
	s->patches_nr = s->patches_alloc = 0;
	for (size_t i = 0; i < s->nr; i++) {
		struct finding *f = &s->items[i];

		for (size_t k = 0; k < f->fixed_by_nr; k++)
			free(f->fixed_by[k]);
		free(f->fixed_by);
		f->fixed_by = NULL;
		f->fixed_by_nr = 0;
	}
}

void finding_patch_add_step(struct finding_patch *p, const char *name,
			    const char *verdict, const char *detail,
			    const char *log_path)
{
	struct finding_patch_step *st;

	if (p->steps_nr >= FINDING_PATCH_STEPS_MAX)
		return;
	st = &p->steps[p->steps_nr++];
	st->name = xstrdup(name);
	st->verdict = xstrdup(verdict);
	st->detail = detail ? xstrdup(detail) : NULL;
	st->log_path = log_path ? xstrdup(log_path) : NULL;
}

CRS_TESTABLE const char *finding_suppressed_by(const struct finding *f, int hide_timeouts,
				  int hide_ooms)
{
	const char *t = f->crash_type ? f->crash_type : "";
	const char *k = f->kind ? f->kind : "";

	/* crash.c's normalised names: "Timeout", "Out-of-memory ..." */
	if (hide_timeouts && (!strcmp(t, "Timeout") || !strcmp(k, "timeout")))
		return "report-timeouts";
	if (hide_ooms && (!strncmp(t, "Out-of-memory", 13) ||
			  !strcmp(k, "out-of-memory")))
		return "report-ooms";
	return NULL;
}

size_t finding_set_suppress(struct finding_set *s, int hide_timeouts,
			    int hide_ooms)
{
	size_t changed = 0;

	for (size_t i = 0; i < s->nr; i++) {
		struct finding *f = &s->items[i];
		const char *by = finding_suppressed_by(f, hide_timeouts,
						       hide_ooms);

		if (!by == !f->suppressed &&
		    (!by || !strcmp(by, f->suppressed)))
			continue;
		free(f->suppressed);
		f->suppressed = by ? xstrdup(by) : NULL;
		changed++;
	}
	return changed;
}

int finding_fails_policy(const struct finding *f, const char *fail_on)
{
	if (f->suppressed)
		return 0;
	if (fail_on && !strcmp(fail_on, "any"))
		return 1;
	if (fail_on && !strcmp(fail_on, "none"))
		return 0;
	/* flaky: reported as a warning with its rate, not a failure */
	if (f->attempts > 0 && f->reproduced < f->attempts)
		return 0;
	if (f->novelty)
		return !strcmp(f->novelty, "new");
	return f->in_change != 0;
}

static int same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

void finding_add_pov(struct finding *f, const char *harness,
		     const char *path, const char *sha256)
{
	struct finding_pov *p;
	size_t i;

	for (i = 0; i < f->harnesses_nr; i++)
		if (same(f->harnesses[i], harness))
			break;
	if (i == f->harnesses_nr && harness) {
		f->harnesses = xrealloc(f->harnesses, (f->harnesses_nr + 1) *
					sizeof(*f->harnesses));
		f->harnesses[f->harnesses_nr++] = xstrdup(harness);
	}
	for (i = 0; i < f->povs_nr; i++)
		if (same(f->povs[i].harness, harness) &&
		    same(f->povs[i].sha256, sha256))
			return;
	f->povs = xrealloc(f->povs, (f->povs_nr + 1) * sizeof(*f->povs));
	p = &f->povs[f->povs_nr++];
	p->harness = harness ? xstrdup(harness) : NULL;
	p->path = path ? xstrdup(path) : NULL;
	p->sha256 = sha256 ? xstrdup(sha256) : NULL;
}

void scan_summary_add_incomplete(struct scan_summary *m, const char *harness,
				 const char *reason, double fuzzed_s,
				 double wanted_s)
{
	struct finding_incomplete *e;

	m->incomplete = xrealloc(m->incomplete, (m->incomplete_nr + 1) *
				 sizeof(*m->incomplete));
	e = &m->incomplete[m->incomplete_nr++];
	e->harness = xstrdup(harness);
	e->reason = xstrdup(reason);
	e->fuzzed_s = fuzzed_s;
	e->wanted_s = wanted_s;
}

enum finding_verdict finding_set_verdict(const struct finding_set *s,
					 const char *fail_on,
					 size_t *failing_out)
{
	const char *policy = fail_on ? fail_on :
		s->summary.fail_on ? s->summary.fail_on : "new";
	size_t failing = 0;

	for (size_t i = 0; i < s->nr; i++)
		failing += finding_fails_policy(&s->items[i], policy) != 0;
	/* private findings fail the policy too, counted only */
	if (!strcmp(policy, "any"))
		failing += s->summary.private_findings;
	else if (strcmp(policy, "none"))
		failing += s->summary.private_new;
	if (failing_out)
		*failing_out = failing;
	if (failing)
		return VERDICT_FAIL;
	return s->summary.incomplete_nr ? VERDICT_INCOMPLETE : VERDICT_PASS;
}

const char *finding_verdict_name(enum finding_verdict v)
{
	switch (v) {
	case VERDICT_FAIL: return "FAIL";
	case VERDICT_INCOMPLETE: return "INCOMPLETE";
	default: return "PASS";
	}
}

/* --- to JSON ------------------------------------------------------------ */

/* A JSON string, or null; invalid UTF-8 is repaired, never dropped. */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *c;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	c = utf8_clean(s, strlen(s), strlen(s));
	j = json_string(c);
	free(c);
	return j;
}

static json_t *jsize(size_t n)
{
	return json_integer(n > (size_t)LLONG_MAX ? LLONG_MAX : (json_int_t)n);
}

static json_t *str_array(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

static json_t *summary_to_json(const struct scan_summary *m)
{
	json_t *o = json_object();

	json_object_set_new(o, "tool_version", jstr(m->tool_version));
	json_object_set_new(o, "project", jstr(m->project));
	json_object_set_new(o, "source_root", jstr(m->source_root));
	json_object_set_new(o, "head_build", jstr(m->head_build));
	json_object_set_new(o, "runner_image", jstr(m->runner_image));
	json_object_set_new(o, "base", jstr(m->base));
	json_object_set_new(o, "head", jstr(m->head));
	json_object_set_new(o, "mode", jstr(m->mode));
	json_object_set_new(o, "harnesses",
			    str_array(m->harnesses, m->harnesses_nr));
	json_object_set_new(o, "crs", str_array(m->crs, m->crs_nr));
	if (m->crs_povs && m->crs_first_pov_s) {
		json_t *st = json_object();

		for (size_t i = 0; i < m->crs_nr; i++)
			json_object_set_new(st, m->crs[i], json_pack(
				"{s:o,s:o}", "povs", jsize(m->crs_povs[i]),
				"first_pov_after_s", m->crs_first_pov_s[i] < 0 ?
				json_null() : json_real(m->crs_first_pov_s[i])));
		json_object_set_new(o, "crs_stats", st);
	}
	json_object_set_new(o, "started_at", jstr(m->started_at));
	json_object_set_new(o, "finished_at", jstr(m->finished_at));
	json_object_set_new(o, "duration_s", json_real(m->duration_s));
	json_object_set_new(o, "timed_out", json_boolean(m->timed_out));
	json_object_set_new(o, "povs_submitted", jsize(m->povs_submitted));
	json_object_set_new(o, "povs_not_reproduced",
			    jsize(m->povs_not_reproduced));
	if (m->private_findings) {
		json_object_set_new(o, "private_findings",
				    jsize(m->private_findings));
		json_object_set_new(o, "private_new", jsize(m->private_new));
	}
	json_object_set_new(o, "fail_on", jstr(m->fail_on));
	json_object_set_new(o, "sarif_category", jstr(m->sarif_category));
	json_object_set_new(o, "sanitizer", jstr(m->sanitizer));
	json_object_set_new(o, "llm_crs", json_boolean(m->llm_crs));
	json_object_set_new(o, "llm_reason", jstr(m->llm_reason));
	if (m->uncommitted_total) {
		json_t *a = json_array();

		for (size_t i = 0; i < m->uncommitted_nr; i++)
			json_array_append_new(a, jstr(m->uncommitted[i]));
		json_object_set_new(o, "uncommitted", a);
		json_object_set_new(o, "uncommitted_total",
				    jsize(m->uncommitted_total));
	}
	return o;
}

static json_t *frame_to_json(const struct finding_frame *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "function", jstr(f->func));
	json_object_set_new(o, "file", jstr(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->column));
	json_object_set_new(o, "in_project", json_boolean(f->in_project));
	json_object_set_new(o, "in_change", json_boolean(f->in_change));
	return o;
}

json_t *finding_povs_to_json(const struct finding *f)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->povs_nr; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:o}",
			"harness", jstr(f->povs[i].harness),
			"path", jstr(f->povs[i].path),
			"sha256", jstr(f->povs[i].sha256)));
	return a;
}

static json_t *finding_to_json(const struct finding *f)
{
	json_t *o = json_object(), *st = json_array();

	json_object_set_new(o, "id", jstr(f->id));
	json_object_set_new(o, "signature", jstr(f->signature));
	json_object_set_new(o, "crash_type", jstr(f->crash_type));
	json_object_set_new(o, "kind", jstr(f->kind));
	json_object_set_new(o, "sanitizer", jstr(f->sanitizer));
	json_object_set_new(o, "description", jstr(f->description));
	json_object_set_new(o, "harness", jstr(f->harness));
	json_object_set_new(o, "is_security", json_boolean(f->is_security));
	json_object_set_new(o, "file", jstr(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->column));
	json_object_set_new(o, "function", jstr(f->function));
	json_object_set_new(o, "in_change", json_boolean(f->in_change));
	for (size_t i = 0; i < f->stack_nr; i++)
		json_array_append_new(st, frame_to_json(&f->stack[i]));
	json_object_set_new(o, "stack", st);
	json_object_set_new(o, "pov_path", jstr(f->pov_path));
	json_object_set_new(o, "pov_sha256", jstr(f->pov_sha256));
	json_object_set_new(o, "reproduced", json_integer(f->reproduced));
	json_object_set_new(o, "attempts", json_integer(f->attempts));
	json_object_set_new(o, "novelty", jstr(f->novelty));
	json_object_set_new(o, "found_by", jstr(f->found_by));
	json_object_set_new(o, "found_after_s", f->found_after_s < 0 ?
			    json_null() : json_real(f->found_after_s));
	json_object_set_new(o, "duplicates", jsize(f->duplicates));
	json_object_set_new(o, "report_path", jstr(f->report_path));
	json_object_set_new(o, "fixed_by", str_array(f->fixed_by,
						     f->fixed_by_nr));
	json_object_set_new(o, "suppressed", jstr(f->suppressed));
	json_object_set_new(o, "harnesses", str_array(f->harnesses,
						      f->harnesses_nr));
	json_object_set_new(o, "povs", finding_povs_to_json(f));
	if (f->anchor)
		json_object_set_new(o, "change_anchor",
				    change_anchor_to_json(f->anchor));
	return o;
}

static json_t *patch_to_json(const struct finding_patch *p)
{
	json_t *o = json_object(), *st = json_array();

	json_object_set_new(o, "sha256", jstr(p->sha256));
	json_object_set_new(o, "path", jstr(p->path));
	json_object_set_new(o, "crs", jstr(p->crs));
	json_object_set_new(o, "harness", jstr(p->harness));
	json_object_set_new(o, "validated", json_boolean(p->validated));
	json_object_set_new(o, "failed_step", jstr(p->failed_step));
	json_object_set_new(o, "failure", jstr(p->failure));
	for (size_t i = 0; i < p->steps_nr; i++)
		json_array_append_new(st, json_pack("{s:o,s:o,s:o,s:o}",
			"name", jstr(p->steps[i].name),
			"verdict", jstr(p->steps[i].verdict),
			"detail", jstr(p->steps[i].detail),
			"log_path", jstr(p->steps[i].log_path)));
	json_object_set_new(o, "steps", st);
	json_object_set_new(o, "fixes", str_array(p->fixes, p->fixes_nr));
	json_object_set_new(o, "diff", jstr(p->diff));
	return o;
}

static json_t *candidate_to_json(const struct finding_candidate *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "source", jstr(c->source));
	json_object_set_new(o, "index", jsize(c->index));
	json_object_set_new(o, "rule_id", jstr(c->rule_id));
	json_object_set_new(o, "level", jstr(c->level));
	json_object_set_new(o, "message", jstr(c->message));
	json_object_set_new(o, "file", jstr(c->file));
	json_object_set_new(o, "start_line", json_integer(c->start_line));
	json_object_set_new(o, "end_line", json_integer(c->end_line));
	json_object_set_new(o, "function", jstr(c->function));
	json_object_set_new(o, "status", jstr(c->status));
	json_object_set_new(o, "finding_id", jstr(c->finding_id));
	json_object_set_new(o, "pov_path", jstr(c->pov_path));
	return o;
}

CRS_TESTABLE json_t *finding_set_to_json(const struct finding_set *s)
{
	json_t *o = json_object(), *a = json_array();

	json_object_set_new(o, "format", json_string(FINDING_FORMAT));
	json_object_set_new(o, "version",
			    json_integer(FINDING_FORMAT_VERSION));
	json_object_set_new(o, "summary", summary_to_json(&s->summary));
	json_object_set_new(o, "verdict", json_string(finding_verdict_name(
		finding_set_verdict(s, NULL, NULL))));
	for (size_t i = 0; i < s->summary.incomplete_nr; i++) {
		const struct finding_incomplete *e = &s->summary.incomplete[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:f,s:f}",
			"harness", jstr(e->harness), "reason", jstr(e->reason),
			"fuzzed_seconds", e->fuzzed_s,
			"wanted_seconds", e->wanted_s));
	}
	json_object_set_new(o, "incomplete", a);
	a = json_array();
	for (size_t i = 0; i < s->nr; i++)
		json_array_append_new(a, finding_to_json(&s->items[i]));
	json_object_set_new(o, "findings", a);
	a = json_array();
	for (size_t i = 0; i < s->patches_nr; i++)
		json_array_append_new(a, patch_to_json(&s->patches[i]));
	json_object_set_new(o, "patches", a);
	a = json_array();
	for (size_t i = 0; i < s->candidates_nr; i++)
		json_array_append_new(a, candidate_to_json(&s->candidates[i]));
	json_object_set_new(o, "candidates", a);
	if (s->timings)
		json_object_set(o, "timings", s->timings);
	if (s->change_coverage)
		json_object_set_new(o, "change_coverage",
				    change_cov_to_json(s->change_coverage));
	if (s->run_cut)
		json_object_set_new(o, "after_finding",
				    run_cut_to_json(s->run_cut));
	if (s->saturation)
		json_object_set_new(o, "saturation",
				    run_saturation_to_json(s->saturation));
	if (s->corpus)
		json_object_set_new(o, "corpus", run_corpus_to_json(s->corpus));
	return o;
}

int finding_json_save(const json_t *j, const char *path, const char *what)
{
	char *text = json_dumps(j, JSON_INDENT(2));
	struct buf b = BUF_INIT;
	int r;

	if (!text)
		return crs_error_set(CRS_ERR, "%s: cannot serialise the %s",
				     path, what);
	buf_adds(&b, text);
	buf_addch(&b, '\n');
	r = fs_write_file_atomic(path, b.ptr, b.len);
	buf_release(&b);
	free(text);
	return r;
}

int finding_set_save(const struct finding_set *s, const char *path)
{
	json_t *j = finding_set_to_json(s);
	int r = finding_json_save(j, path, "results");

	json_decref(j);
	return r;
}
