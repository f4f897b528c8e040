/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triage.c - every submitted PoV reproduced, parsed and deduplicated
 *
 * A CRS's word is not evidence: each PoV is run N times on crs-ci's
 * own head build (and base build), then deduplicated by signature
 * and by bug.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/container.h"
#include "runner/scan/after_finding.h"
#include "runner/phase/saturation_watch.h"
#include "runner/scan/harness_runs.h"
#include "runner/exec/base_images.h"
#include "runner/scan/scan.h"
#include "runner/exec/source_index.h"
#include "runner/scan/submissions.h"
#include "runner/exec/reproduce.h"
#include "runner/exec/reproduce_pov.h"
#include "runner/phase/early_jobs.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "diff/changeset.h"
#include "sarif/bug_key.h"
#include "sarif/crash.h"
#include "sarif/finding.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define POV_MAX_BYTES (16u << 20)

struct pov {
	char *path;		/* <out>/povs/<sha>: crs-ci's copy */
	int user;		/* given with --pov, not found by a CRS */
	char *crs;
	char *harness;
	char sha[65];
	double mtime;		/* seconds since the epoch, with nanoseconds */
};

struct pov_list {
	struct pov *items;
	size_t nr, alloc;
	/* per compose CRS: PoVs it submitted, the earliest one's mtime */
	size_t *crs_povs;
	double *crs_first;
};

static double mtime_of(const struct stat *st)
{
	return (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9;
}

/* Earliest first: the first PoV triaged for a bug is its first finder's. */
static int cmp_mtime(const void *a, const void *b)
{
	double x = ((const struct pov *)a)->mtime;
	double y = ((const struct pov *)b)->mtime;

	return (x > y) - (x < y);
}

/*
 * A PoV's bytes: its first copy is written to <out>/povs/<sha>, the file
 * every later run binds (never the submitted file itself).
 */
static void add_pov(struct scan *s, struct pov_list *l, const void *data,
		    size_t len, const char *crs, const char *harness,
		    const struct stat *st)
{
	struct pov p = { 0 };
	char *dir;

	sha256_hex(p.sha, data, len);
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i].sha, p.sha) &&
		    !strcmp(l->items[i].harness, harness)) {
			if (mtime_of(st) < l->items[i].mtime) {
				free(l->items[i].crs);
				l->items[i].crs = xstrdup(crs);
				l->items[i].mtime = mtime_of(st);
			}
			return;
		}
	dir = xasprintf("%s/povs", s->out_dir);
	p.path = xasprintf("%s/%s", dir, p.sha);
	if (fs_mkdir_p(dir) != 0 ||
	    fs_write_file_atomic(p.path, data, len) != 0) {
		log_warn("pov %.12s: %s", p.sha, crs_error_last());
		crs_error_clear();
		free(p.path);
		free(dir);
		return;
	}
	free(dir);
	p.crs = xstrdup(crs);
	p.harness = xstrdup(harness);
	p.mtime = mtime_of(st);
	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = p;
}

/* Each --pov file, tried on every harness of the scan. */
static int collect_user_povs(struct scan *s, struct pov_list *l)
{
	int r = 0;

	for (size_t i = 0; i < s->opts->povs_nr && r == 0; i++) {
		const char *path = s->opts->povs[i];
		struct buf b = BUF_INIT;
		struct stat st;

		if (stat(path, &st) != 0 ||
		    fs_read_file(&b, path, POV_MAX_BYTES) != 0) {
			crs_error_clear();
			r = crs_error_set(CRS_EINPUT, "--pov: '%s' is not a "
					  "readable file", path);
		}
		for (size_t k = 0; r == 0 && k < s->state.harnesses_nr; k++) {
			size_t before = l->nr;

			add_pov(s, l, b.ptr, b.len, "--pov",
				s->state.harnesses[k], &st);
			if (l->nr > before)
				l->items[l->nr - 1].user = 1;
		}
		buf_release(&b);
	}
	return r;
}

/* SUBMIT_DIR/<harness>/povs/<file> of every CRS of the run. */
struct pov_walk {
	struct scan *s;
	struct pov_list *l;
};

static void on_pov(const struct submission *sub, void *ctx)
{
	struct pov_walk *w = ctx;
	struct pov_list *l = w->l;
	size_t i = sub->crs_index;

	add_pov(w->s, l, sub->data, sub->len, w->s->compose->crs[i].name,
		sub->harness, sub->st);
	l->crs_povs[i]++;
	if (l->crs_first[i] < 0 || mtime_of(sub->st) < l->crs_first[i])
		l->crs_first[i] = mtime_of(sub->st);
}

static void collect_povs(struct scan *s, struct pov_list *l)
{
	struct pov_walk w = { s, l };

	submissions_walk(s, "povs", (off_t)POV_MAX_BYTES, "PoV", on_pov, &w);
}

/* The frame file relative to the repo, or NULL when outside it. */
static char *repo_relative(const char *file, const char *repo_path)
{
	size_t n = strlen(repo_path);

	if (!file || strncmp(file, repo_path, n) || file[n] != '/')
		return NULL;
	return xstrdup(file + n + 1);
}

/*
 * A JVM frame's file in the head tree: its package path as the suffix of
 * exactly one .java file there (the index is built on the first such
 * frame). NULL when it is no JVM frame or no one file matches.
 */
static char *java_frame_file(const struct scan *s,
			     const struct crash_frame *cf,
			     struct source_index *idx, int *indexed)
{
	char *guess = crash_frame_java_path(cf), *src;
	const char *found = NULL;

	if (!guess)
		return NULL;
	if (!*indexed) {
		*indexed = 1;
		src = scan_work_path(s, "source/%s/src",
				     s->state.head_commit);
		if (source_index_build(idx, src, ".java") != 0)
			crs_error_clear();	/* no index: frames as printed */
		free(src);
	}
	found = source_index_find(idx, guess);
	free(guess);
	return found ? xstrdup(found) : NULL;
}

static void fill_location(struct finding *f, const struct crash_report *cr,
			  const struct scan *s, int on_head)
{
	const char *root = s->state.repo_path;
	char *prefix = xasprintf("%s/", root);
	struct source_index java = SOURCE_INDEX_INIT;
	int java_indexed = 0;

	f->stack = xcalloc(cr->frames_nr ? cr->frames_nr : 1,
			   sizeof(*f->stack));
	for (size_t i = 0; i < cr->frames_nr; i++) {
		const struct crash_frame *cf = &cr->frames[i];
		struct finding_frame *ff = &f->stack[f->stack_nr++];
		char *rel = crash_frame_in_project(cf, prefix) ?
			repo_relative(cf->file, root) : NULL;

		if (!rel && on_head && s->state.head_commit)
			rel = java_frame_file(s, cf, &java, &java_indexed);

		ff->func = cf->func ? xstrdup(cf->func) : NULL;
		ff->line = cf->line;
		ff->column = cf->column;
		ff->in_project = rel != NULL;
		ff->file = rel ? rel : (cf->file ? xstrdup(cf->file) : NULL);
		ff->in_change = on_head && rel &&
			diff_changeset_touches(s->change, rel, cf->line);
		if (rel && !f->file) {
			f->file = xstrdup(rel);
			f->line = cf->line;
			f->column = cf->column;
			f->function = cf->func ? xstrdup(cf->func) : NULL;
			f->in_change = ff->in_change;
		}
	}
	source_index_release(&java);
	free(prefix);
}

/*
 * Tell from the base build's runs (in `bdir`, when `on_base`) whether the
 * change brought the bug: "new" (base does not crash, or has no such
 * harness), "pre-existing" (same signature on base), "changed" (base
 * crashes differently), or NULL when there is no base build to ask.
 */
static void novelty(struct scan *s, const struct pov *p, const char *bdir,
		    int on_base, const char *head_sig, char **out)
{
	struct repro_verdict v = { 0 };

	*out = NULL;
	if (!s->state.base_image)
		return;
	if (!on_base) {
		*out = xstrdup("new");	/* the harness itself is new */
		return;
	}
	reproduce_read_runs(&v, bdir, s->opts->reproduce_runs,
			    p->harness);
	if (!v.signature)
		*out = xstrdup("new");
	else if (!strcmp(v.signature, head_sig))
		*out = xstrdup("pre-existing");
	else
		*out = xstrdup("changed");
	log_info("triage: PoV %.12s on base %.12s: %s", p->sha,
		 s->state.base_commit, *out);
	repro_verdict_release(&v);
}

static const char *kind_of(const struct crash_report *cr)
{
	return cr->kind ? cr->kind : "crash";
}

/* A finding from a verdict, nothing written; `on_head` says whose lines
 * its stack names. */
static struct finding *fill_finding(struct scan *s, struct finding_set *fs,
				    const struct pov *p,
				    const struct repro_verdict *v,
				    const char *id, int on_head)
{
	struct finding *f = finding_set_add(fs);

	f->id = xstrdup(id);
	f->signature = xstrdup(v->signature);
	f->crash_type = xstrdup(v->report->crash_type ? v->report->crash_type :
				kind_of(v->report));
	f->kind = xstrdup(kind_of(v->report));
	f->sanitizer = xstrdup(s->state.sanitizer);
	f->description = v->report->description ?
		xstrdup(v->report->description) : NULL;
	f->harness = xstrdup(p->harness);
	f->is_security = v->report->is_security;
	fill_location(f, v->report, s, on_head);
	f->pov_path = xasprintf("povs/%s", p->sha);
	f->pov_sha256 = xstrdup(p->sha);
	finding_add_pov(f, p->harness, f->pov_path, p->sha);
	f->reproduced = v->reproduced;
	f->attempts = v->attempts;
	f->found_by = p->crs ? xstrdup(p->crs) : NULL;
	return f;
}

/* fill_finding's, with its sanitizer report under <out>/reports/. */
static struct finding *add_finding(struct scan *s, struct finding_set *fs,
				   const struct pov *p,
				   const struct repro_verdict *v,
				   const char *id, int on_head,
				   time_t run_start)
{
	struct finding *f = fill_finding(s, fs, p, v, id, on_head);
	char *rdir = xasprintf("%s/reports", s->out_dir);
	char *rp = xasprintf("%s/%s.txt", rdir, id);

	f->found_after_s = p->user ? -1 : (p->mtime - (double)run_start);
	if (fs_mkdir_p(rdir) == 0 &&
	    fs_write_file_atomic(rp, v->log, v->log_len) == 0)
		f->report_path = xasprintf("reports/%s.txt", id);
	crs_error_clear();
	free(rdir);
	free(rp);
	return f;
}

/*
 * A PoV the user gave (--pov) that no longer crashes the head: if it
 * crashed the base (its runs in `bdir`, when `on_base`), the change fixed
 * that bug; say so as a notice.
 */
static void fixed_by_change(struct scan *s, const struct pov *p,
			    const char *bdir, int on_base,
			    struct finding_set *fs, time_t run_start)
{
	struct repro_verdict v = { 0 };
	struct finding *f;
	char id[17];

	if (!on_base)
		return;
	reproduce_read_runs(&v, bdir, s->opts->reproduce_runs,
			    p->harness);
	if (!v.signature || !v.report)
		goto out;
	crash_signature_id(id, v.signature);
	if (finding_set_find(fs, id))
		goto out;
	f = add_finding(s, fs, p, &v, id, 0, run_start);
	f->novelty = xstrdup("fixed-by-change");
	log_info("triage: PoV %.12s crashes the base (%s) but not the head: "
		 "fixed by this change", p->sha, f->crash_type);
out:
	repro_verdict_release(&v);
}

static int triage_pov(struct scan *s, const struct pov *p, time_t run_start,
		      struct finding_set *fs)
{
	char *hdir = reproduce_pov_dir(s, p->harness, p->sha, "head");
	char *bdir = reproduce_pov_dir(s, p->harness, p->sha, "base");
	struct repro_verdict v = { 0 };
	struct finding *f;
	char id[17];
	int r, on_base = 0;

	log_info("triage: PoV %.12s from %s on %s, %d run(s)", p->sha, p->crs,
		 p->harness, s->opts->reproduce_runs);
	/* the first PoV may have been reproduced while the run ended */
	r = p->user ? -1 : early_triage_take(s, p->harness, p->sha, &on_base);
	if (r < 0)
		r = reproduce_pov(s, p->harness, p->sha, p->path, &on_base);
	if (r != 0)
		goto out;
	reproduce_read_runs(&v, hdir, s->opts->reproduce_runs,
			    p->harness);
	if (!v.signature || !v.report) {
		if (p->user) {
			fixed_by_change(s, p, bdir, on_base, fs, run_start);
			goto out;
		}
		log_warn("triage: PoV %.12s from %s did not crash the head "
			 "build in %d run(s); not a finding", p->sha, p->crs,
			 v.attempts);
		fs->summary.povs_not_reproduced++;
		goto out;
	}
	crash_signature_id(id, v.signature);
	if ((f = finding_set_find(fs, id))) {
		double after = (p->mtime - (double)run_start);
		char *pov = xasprintf("povs/%s", p->sha);

		finding_add_pov(f, p->harness, pov, p->sha);
		free(pov);
		f->duplicates++;
		if (!p->user &&
		    (f->found_after_s < 0 || after < f->found_after_s)) {
			free(f->found_by);
			f->found_by = xstrdup(p->crs);
			f->found_after_s = after;
		}
		log_info("triage: PoV %.12s is a duplicate of %s", p->sha, id);
		goto out;
	}
	f = add_finding(s, fs, p, &v, id, 1, run_start);
	novelty(s, p, bdir, on_base, v.signature, &f->novelty);
	log_info("triage: %s in %s (%s:%d), reproduced %d/%d", f->crash_type,
		 f->function ? f->function : "?", f->file ? f->file : "?",
		 f->line, f->reproduced, f->attempts);
out:
	repro_verdict_release(&v);
	free(hdir);
	free(bdir);
	return r;
}

void phase_triage_preview(struct scan *s, const char *harness,
			  const char *sha, const char *crs, int on_base,
			  struct finding_set *fs)
{
	char *hdir = reproduce_pov_dir(s, harness, sha, "head");
	char *bdir = reproduce_pov_dir(s, harness, sha, "base");
	struct pov p = { .crs = (char *)crs, .harness = (char *)harness };
	struct repro_verdict v = { 0 };
	struct finding *f;
	char id[17];

	snprintf(p.sha, sizeof(p.sha), "%s", sha);
	reproduce_read_runs(&v, hdir, s->opts->reproduce_runs, harness);
	if (v.signature && v.report) {
		crash_signature_id(id, v.signature);
		f = fill_finding(s, fs, &p, &v, id, 1);
		novelty(s, &p, bdir, on_base, v.signature, &f->novelty);
	}
	repro_verdict_release(&v);
	free(hdir);
	free(bdir);
}

static time_t read_run_start(struct scan *s)
{
	char *path = scan_work_path(s, "runs/%s/started_at", s->state.run_id);
	struct buf b = BUF_INIT;
	time_t t = s->started_wall;

	if (fs_read_file(&b, path, 64) == 0)
		t = (time_t)strtol(b.ptr, NULL, 10);
	crs_error_clear();
	buf_release(&b);
	free(path);
	return t;
}

static void fill_summary(struct scan *s, struct finding_set *fs,
			 const struct pov_list *l, time_t run_start)
{
	struct scan_summary *sm = &fs->summary;
	char when[32];
	time_t now = time(NULL);

	sm->tool_version = xstrdup(CRS_CI_VERSION);
	sm->project = xstrdup(s->state.project);
	sm->source_root = xstrdup(s->source_dir);
	sm->head_build = scan_work_path(s, "builds/%s/head/out",
					s->state.sanitizer);
	sm->runner_image = xstrdup(base_images_runner_name(s));
	sm->base = s->state.base_commit ? xstrdup(s->state.base_commit) : NULL;
	sm->head = xstrdup(s->state.head_commit);
	sm->mode = xstrdup(s->change ? "delta" : "full");
	sm->harnesses = xcalloc(s->state.harnesses_nr + 1, sizeof(char *));
	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		sm->harnesses[sm->harnesses_nr++] =
			xstrdup(s->state.harnesses[i]);
	sm->crs = xcalloc(s->compose->crs_nr + 1, sizeof(char *));
	sm->crs_povs = xcalloc(s->compose->crs_nr + 1, sizeof(size_t));
	sm->crs_first_pov_s = xcalloc(s->compose->crs_nr + 1, sizeof(double));
	for (size_t i = 0; i < s->compose->crs_nr; i++) {
		sm->crs_povs[i] = l->crs_povs[i];
		sm->crs_first_pov_s[i] = l->crs_first[i] < 0 ? -1 :
			l->crs_first[i] - (double)run_start;
		sm->crs[sm->crs_nr++] = xstrdup(s->compose->crs[i].name);
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&s->started_wall));
	sm->started_at = xstrdup(when);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	sm->finished_at = xstrdup(when);
	sm->duration_s = scan_elapsed(s);
	sm->povs_submitted = l->nr;
	sm->fail_on = xstrdup(s->opts->fail_on);
	if (s->opts->sarif_category)
		sm->sarif_category = xstrdup(s->opts->sarif_category);
	if (s->state.sanitizer)
		sm->sanitizer = xstrdup(s->state.sanitizer);
}

size_t phase_suppress(struct scan *s, struct finding_set *fs)
{
	size_t changed = finding_set_suppress(fs, s->opts->hide_timeouts,
					      s->opts->hide_ooms), n = 0;

	for (size_t i = 0; i < fs->nr; i++)
		n += fs->items[i].suppressed != NULL;
	if (n)
		log_info("triage: %zu timeout/out-of-memory finding(s) "
			 "suppressed (--report-timeouts/--report-ooms no): "
			 "listed in results.json, failing no policy", n);
	return changed;
}

/*
 * results.json's "incomplete": each harness the run phase fuzzed short
 * (harness_runs.h) that proved no finding. A harness with a proved
 * finding is not incomplete: its CRS found what it was there to find.
 */
static int fill_incomplete(struct scan *s, struct finding_set *fs)
{
	struct harness_runs rec = HARNESS_RUNS_INIT;
	char *path = scan_work_path(s, "runs/%s/harness_runs.json",
				    s->state.run_id);
	int r = harness_runs_load(&rec, path);

	if (r == CRS_ENOTFOUND) {
		/* a run phase that stopped before it wrote the record */
		crs_error_clear();
		r = 0;
	}
	for (size_t i = 0; i < rec.nr && r == 0; i++) {
		const struct harness_run_record *e = &rec.v[i];
		int proved = 0;

		for (size_t k = 0; k < fs->nr && !proved; k++)
			for (size_t j = 0; j < fs->items[k].harnesses_nr; j++)
				proved |= !strcmp(fs->items[k].harnesses[j],
						  e->harness);
		if (e->reason && !proved)
			scan_summary_add_incomplete(&fs->summary, e->harness,
						    e->reason, e->fuzzed_s,
						    e->wanted_s);
	}
	harness_runs_release(&rec);
	free(path);
	return r;
}

/*
 * results.json's "after_finding": the run phase's record, with the proof
 * it did not see (a finding proved after its last harness ended).
 */
static int fill_run_cut(struct scan *s, struct finding_set *fs)
{
	struct run_cut *c = NULL;
	char id[17];
	int r = after_finding_load(s, &c);

	if (r == CRS_ENOTFOUND) {
		/* a run phase that stopped before it wrote the record */
		crs_error_clear();
		return 0;
	}
	if (r != 0)
		return r;
	if (c->proved_at_s < 0 &&
	    early_triage_proved(s, &c->proved_at_s, id, &c->announced)) {
		free(c->finding);
		c->finding = xstrdup(id);
	}
	run_cut_free(fs->run_cut);
	fs->run_cut = c;
	return 0;
}

/* results.json's "saturation": the run phase's record, when it kept one
 * (diff mode with --saturation and a coverage build). */
static int fill_saturation(struct scan *s, struct finding_set *fs)
{
	struct run_saturation *r = NULL;
	int rc = saturation_record_load(s, &r);

	if (rc == CRS_ENOTFOUND) {
		crs_error_clear();
		return 0;
	}
	if (rc != 0)
		return rc;
	free(fs->saturation);
	fs->saturation = r;
	return 0;
}

int phase_triage(struct scan *s)
{
	struct pov_list l = { 0 };
	struct finding_set fs;
	char *results = xasprintf("%s/results.json", s->out_dir);
	time_t run_start;
	size_t folded;
	int r = 0;

	timing_phase(s, "triage");
	finding_set_init(&fs);
	if (!s->state.run_id) {
		r = crs_error_set(CRS_ENOTFOUND, "no run in %s: run the run "
				  "phase first", s->work_dir);
		goto out;
	}
	if ((r = fs_mkdir_p(s->out_dir)) != 0)
		goto out;
	run_start = read_run_start(s);
	l.crs_povs = xcalloc(s->compose->crs_nr + 1, sizeof(size_t));
	l.crs_first = xcalloc(s->compose->crs_nr + 1, sizeof(double));
	for (size_t i = 0; i < s->compose->crs_nr; i++)
		l.crs_first[i] = -1;
	if ((r = collect_user_povs(s, &l)) != 0)
		goto out;
	collect_povs(s, &l);
	if (l.nr)
		qsort(l.items, l.nr, sizeof(*l.items), cmp_mtime);
	log_info("triage: %zu distinct PoV(s) submitted", l.nr);
	for (size_t i = 0; i < l.nr && r == 0; i++) {
		char name[13];
		int span;

		snprintf(name, sizeof(name), "%.12s", l.items[i].sha);
		/* an early reproduction is timed by its own span */
		span = !l.items[i].user &&
			early_triage_covers(s, l.items[i].harness,
					    l.items[i].sha) ? -1 :
			timing_begin_harness(s, "triage", name,
					     l.items[i].harness);
		r = triage_pov(s, &l.items[i], run_start, &fs);
		timing_end(s, span);
		if (scan_interrupted(s) && r == 0)
			r = crs_error_set(CRS_EINTR, "interrupted");
	}
	if (r == 0 && (folded = finding_set_fold_bugs(&fs)))
		log_info("triage: %zu finding(s) folded into others: the same "
			 "bug (crash type and top in-project frame) reached "
			 "from several harnesses or stacks", folded);
	fill_summary(s, &fs, &l, run_start);
	phase_suppress(s, &fs);
	if (r == 0)
		r = fill_incomplete(s, &fs);
	if (r == 0)
		r = fill_run_cut(s, &fs);
	if (r == 0)
		r = fill_saturation(s, &fs);
	if (r == 0)
		r = phase_triage_candidates(s, &fs);
	timings_into(s, &fs);
	if (r == 0)
		r = finding_set_save(&fs, results);
out:
	for (size_t i = 0; i < l.nr; i++) {
		free(l.items[i].path);
		free(l.items[i].crs);
		free(l.items[i].harness);
	}
	free(l.items);
	free(l.crs_povs);
	free(l.crs_first);
	finding_set_release(&fs);
	free(results);
	return r;
}
