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
#include "runner/exec/corpus_import.h"
#include "runner/phase/early_jobs.h"
#include "runner/phase/triage_finding.h"
#include "runner/report/disclose.h"
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
#include "sarif/run_corpus.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/num.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define POV_MAX_BYTES (16u << 20)

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
	f = triage_add_finding(s, fs, p, &v, id, 0, run_start);
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
	f = triage_add_finding(s, fs, p, &v, id, 1, run_start);
	/* the early triage logged a PoV it reproduced during the run */
	triage_novelty(s, p, bdir, on_base, v.signature, &f->novelty,
		       !p->user && early_triage_covers(s, p->harness, p->sha));
	if (disclose_hides(s->opts->disclose, f))
		log_info("triage: a finding in released code, reproduced "
			 "%d/%d; its details are kept private (--disclose)",
			 f->reproduced, f->attempts);
	else
		log_info("triage: %s in %s (%s:%d), reproduced %d/%d",
			 f->crash_type, f->function ? f->function : "?",
			 f->file ? f->file : "?", f->line, f->reproduced,
			 f->attempts);
out:
	repro_verdict_release(&v);
	free(hdir);
	free(bdir);
	return r;
}

static time_t read_run_start(struct scan *s)
{
	char *path = scan_work_path(s, "runs/%s/started_at", s->state.run_id);
	struct buf b = BUF_INIT;
	time_t t = s->started_wall;
	long v;

	if (fs_read_file(&b, path, 64) == 0 &&
	    num_parse_long_n(b.ptr, num_trim_newline(b.ptr, b.len), 0,
			     LONG_MAX, &v) == 0)
		t = (time_t)v;
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
	sm->runner_image = xstrdup(base_images_runner_name(&s->exec));
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

/* results.json's "corpus": what the scan's corpus sources added. */
static int fill_corpus(struct scan *s, struct finding_set *fs)
{
	struct run_corpus *r = NULL;
	int rc = corpus_import_load(s, &r);

	if (rc != 0)
		return rc;
	run_corpus_free(fs->corpus);
	fs->corpus = r;
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
		r = fill_corpus(s, &fs);
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
