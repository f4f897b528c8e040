/* SPDX-License-Identifier: Apache-2.0 */
/*
 * finding.c - the finding model and its file form, results.json
 *
 * Owns the in-memory set of proved findings, its JSON form (documented in
 * docs/results.md) and the --fail-on policy. Knows nothing of Docker or
 * CI systems. results.json is re-read by later phases and may have been
 * edited by hand, so loading checks every field's type and range and
 * names the file and the field in its error. Its JSON file writer,
 * finding_json_save(), also writes the SARIF log.
 */
#include "sarif/finding.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
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

CRS_TESTABLE struct finding_candidate *finding_set_add_candidate(struct finding_set *s)
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

/* --- from JSON ---------------------------------------------------------- */

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
	    (r = get_str(&m->llm_reason, &c, o, "llm_reason", 0)))
		return r;
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
	finding_set_release(s);
	*s = tmp;
	finding_set_init(&tmp); /* transferred */
	r = 0;
out:
	finding_set_release(&tmp);
	return r;
}

int finding_set_load(struct finding_set *s, const char *path)
{
	struct buf b = BUF_INIT;
	json_error_t err;
	json_t *j = NULL;
	int r = CRS_ERR;

	if ((r = fs_read_file(&b, path, FINDING_RESULTS_MAX)) != 0)
		goto out;
	if (!(j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, &err))) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, err.line,
				  err.column, err.text);
		goto out;
	}
	r = finding_set_from_json(s, j, path);
out:
	json_decref(j);
	buf_release(&b);
	return r;
}
