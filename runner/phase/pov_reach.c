/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pov_reach.c - which changed lines each finding's PoVs executed, and
 * the change anchor chosen from them
 *
 * Diff mode, after triage: the changed lines the PoVs ran count in the
 * change coverage, and each finding gets its anchor.
 * Details: docs/results.md ("The change anchor").
 */
#include "runner/phase/phase.h"
#include "runner/exec/pov_coverage.h"
#include "runner/report/disclose.h"
#include "runner/scan/coverage.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/timings.h"
#include "diff/func_spans.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POV_REACH_MAX_S 120.0	/* the step's whole budget, at most */
#define POV_REACH_MIN_S 10.0	/* below this, anchors stay unmeasured */
#define POV_REACH_REPORT_S 10.0	/* kept for the report after it */
#define POV_REACH_PER_FINDING 4	/* PoVs replayed per finding, at most */
#define POV_REACH_SOURCE_MAX (16u << 20)	/* a source file read */

/* One PoV to replay: which finding, which file. */
struct pov_job {
	size_t finding;
	const char *harness, *path;
};

/* The changed lines one finding's PoVs executed, by file. */
struct reach_set {
	struct anchor_file *files;
	size_t nr, alloc;
	int measured;		/* at least one PoV was measured */
	char *failed;		/* why none was, or NULL */
};

static void reach_add(struct reach_set *r, const char *path, int line)
{
	struct anchor_file *f = NULL;
	size_t k;

	for (size_t i = 0; i < r->nr && !f; i++)
		if (!strcmp(r->files[i].path, path))
			f = &r->files[i];
	if (!f) {
		ALLOC_GROW(r->files, r->nr + 1, r->alloc);
		f = &r->files[r->nr++];
		memset(f, 0, sizeof(*f));
		f->path = xstrdup(path);
	}
	for (k = 0; k < f->nr && f->lines[k] < line; k++)
		;
	if (k < f->nr && f->lines[k] == line)
		return;
	f->lines = xrealloc(f->lines, (f->nr + 1) * sizeof(int));
	memmove(f->lines + k + 1, f->lines + k, (f->nr - k) * sizeof(int));
	f->lines[k] = line;
	f->nr++;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct anchor_file *)a)->path,
		      ((const struct anchor_file *)b)->path);
}

static void reach_release(struct reach_set *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->files[i].path);
		free(r->files[i].lines);
	}
	free(r->files);
	free(r->failed);
}

/* --- functions around lines, from the head source ------------------------ */

struct span_cache {
	int rootfd;
	char **paths;
	struct diff_func_spans **spans;	/* NULL: none (unreadable, no C) */
	size_t nr;
};

static const struct diff_func_spans *spans_of(struct span_cache *c,
					      const char *path)
{
	struct diff_func_spans *sp = NULL;
	struct buf b = BUF_INIT;
	const char *leaf = NULL;
	int parent = -1;

	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->paths[i], path))
			return c->spans[i];
	if (c->rootfd >= 0 && diff_lang_of_path(path) != DIFF_LANG_NONE &&
	    fs_walk_beneath(&parent, &leaf, c->rootfd, path, 0, path) == 0 &&
	    fs_read_regular_at(&b, parent, leaf, path, POV_REACH_SOURCE_MAX,
			       NULL) == 0)
		sp = diff_func_spans_scan(b.ptr, b.len,
					  diff_lang_of_path(path));
	crs_error_clear();	/* no source: no function is known */
	if (parent >= 0)
		close(parent);
	buf_release(&b);
	c->paths = xrealloc(c->paths, (c->nr + 1) * sizeof(char *));
	c->spans = xrealloc(c->spans, (c->nr + 1) * sizeof(*c->spans));
	c->paths[c->nr] = xstrdup(path);
	c->spans[c->nr++] = sp;
	return sp;
}

static int span_at(void *ctx, const char *file, int line, int *start,
		   int *end, const char **name)
{
	const struct diff_func_span *sp =
		diff_func_span_at(spans_of(ctx, file), line);

	if (!sp)
		return 0;
	*start = sp->start;
	*end = sp->end;
	*name = sp->name;
	return 1;
}

static void span_cache_release(struct span_cache *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->paths[i]);
		diff_func_spans_free(c->spans[i]);
	}
	free(c->paths);
	free(c->spans);
	if (c->rootfd >= 0)
		close(c->rootfd);
}

/* --- the replays --------------------------------------------------------- */

/* Every finding's PoVs (at most POV_REACH_PER_FINDING each), by harness. */
static void list_jobs(const struct finding_set *fs, struct pov_job **out,
		      size_t *nr_out)
{
	struct pov_job *v = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		size_t n = 0;

		for (size_t k = 0; k < f->povs_nr && n < POV_REACH_PER_FINDING;
		     k++, n++) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = (struct pov_job){ i, f->povs[k].harness,
						    f->povs[k].path };
		}
		if (!n && f->pov_path && f->harness) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = (struct pov_job){ i, f->harness,
						    f->pov_path };
		}
	}
	*out = v;
	*nr_out = nr;
}

/* Seconds this step may spend from now. */
static double budget(const struct scan *s)
{
	double b = scan_remaining(s) - POV_REACH_REPORT_S;

	return b > POV_REACH_MAX_S ? POV_REACH_MAX_S : b;
}

static void set_failed(struct reach_set *r, const char *why)
{
	if (!r->failed)
		r->failed = xstrdup(why);
}

/*
 * Fold PoV k of `p` (job `j`) into its finding's reach and cc: how many
 * changed lines it was the first input to execute.
 */
static size_t fold_pov(struct reach_set *reach, struct change_cov *cc,
		       const struct pov_coverage *p, size_t k,
		       const struct pov_job *j,
		       const struct coverage_targets *t, const struct scan *s)
{
	struct coverage_reach cr = COVERAGE_REACH_INIT;
	struct reach_set *r = &reach[j->finding];
	size_t first = 0;

	if (!p->cov[k]) {
		set_failed(r, p->failed[k] ? p->failed[k] : "no profile");
		return 0;
	}
	coverage_reach(&cr, p->cov[k], t, s->state.repo_path);
	r->measured = 1;
	for (size_t f = 0; f < t->nr; f++)
		for (size_t l = 0; l < t->files[f].lines_nr; l++) {
			if (cr.state[f][l] != COVERAGE_LINE_HIT)
				continue;
			reach_add(r, t->files[f].path, t->files[f].lines[l]);
			if (cc)
				first += (size_t)change_cov_add(cc,
					t->files[f].path, t->files[f].lines[l],
					CHANGE_COV_HIT);
		}
	coverage_reach_release(&cr);
	return first;
}

/* by_harness: the corpus's count plus the lines only its PoVs ran. */
static void add_harness_lines(struct change_cov *cc, const char *harness,
			      size_t more)
{
	size_t cur = 0;

	for (size_t i = 0; i < cc->by_harness_nr; i++)
		if (!strcmp(cc->by_harness[i].name, harness))
			cur = cc->by_harness[i].lines;
	if (more)
		change_cov_add_harness(cc, harness, cur + more);
}

/* Replay the jobs of one harness; 0 or CRS_EINTR. */
static int replay_harness(struct scan *s, const char *harness,
			  const struct pov_job *jobs, size_t nr,
			  struct reach_set *reach, struct change_cov *cc,
			  const struct coverage_targets *t, double left)
{
	struct pov_coverage p = POV_COVERAGE_INIT;
	const char **paths = xcalloc(nr + 1, sizeof(char *));
	size_t *idx = xcalloc(nr + 1, sizeof(size_t)), n = 0;
	char *dir = scan_work_path(s, "change-coverage/povs/%s", harness);
	char *label;
	int r, span;

	for (size_t i = 0; i < nr && n < POV_COVERAGE_MAX; i++)
		if (!strcmp(jobs[i].harness, harness)) {
			idx[n] = i;
			paths[n++] = jobs[i].path;
		}
	label = xasprintf("%s PoVs", harness);
	span = timing_begin_harness(s, "replay", label, harness);
	free(label);
	r = pov_coverage_run(&p, &s->exec, harness, dir, paths, n, left);
	timing_end(s, span);
	if (r != 0 && r != CRS_EINTR) {
		char *why = xasprintf("the PoV replay failed: %s",
				      crs_error_last());

		crs_error_clear();
		for (size_t k = 0; k < n; k++)
			set_failed(&reach[jobs[idx[k]].finding], why);
		free(why);
		r = 0;
	} else if (r == 0) {
		size_t first = 0;

		for (size_t k = 0; k < n; k++) {
			if (p.all_failed)
				set_failed(&reach[jobs[idx[k]].finding],
					   p.all_failed);
			else
				first += fold_pov(reach, cc, &p, k,
						  &jobs[idx[k]], t, s);
		}
		if (cc)
			add_harness_lines(cc, harness, first);
	}
	pov_coverage_release(&p);
	free(paths);
	free(idx);
	free(dir);
	return r;
}

/* Every harness the jobs name, once. */
static void job_harnesses(const struct pov_job *jobs, size_t nr,
			  struct strvec *out)
{
	for (size_t i = 0; i < nr; i++) {
		size_t k;

		for (k = 0; k < out->nr; k++)
			if (!strcmp(out->v[k], jobs[i].harness))
				break;
		if (k == out->nr)
			strvec_push(out, jobs[i].harness);
	}
}

/* Every job of `harness` (all when NULL) cannot be measured: `why`. */
static void fail_jobs(struct reach_set *reach, const struct pov_job *jobs,
		      size_t nr, const char *harness, const char *why)
{
	for (size_t k = 0; k < nr; k++)
		if (!harness || !strcmp(jobs[k].harness, harness))
			set_failed(&reach[jobs[k].finding], why);
}

static int replay_all(struct scan *s, const struct pov_job *jobs, size_t nr,
		      struct reach_set *reach, struct change_cov *cc,
		      const struct coverage_targets *t)
{
	struct strvec hs = STRVEC_INIT;
	int r = 0;

	job_harnesses(jobs, nr, &hs);
	for (size_t i = 0; i < hs.nr && r == 0; i++) {
		char *bin = scan_work_path(s, "builds/coverage/head/out/%s",
					   hs.v[i]);
		double left = budget(s) / (double)(hs.nr - i);

		if (scan_interrupted(s))
			r = crs_error_set(CRS_EINTR, "interrupted");
		else if (!fs_exists(bin))
			fail_jobs(reach, jobs, nr, hs.v[i], "no coverage build "
				  "of its harness");
		else if (left < POV_REACH_MIN_S / 2)
			fail_jobs(reach, jobs, nr, hs.v[i], "no time left "
				  "before the deadline");
		else
			r = replay_harness(s, hs.v[i], jobs, nr, reach, cc, t,
					   left);
		free(bin);
	}
	strvec_release(&hs);
	return r;
}

/* One log line per finding: where its anchor is and why (a private
 * finding's is not for the public log: --disclose). */
static void log_anchor(const struct scan *s, const struct finding *f)
{
	const struct change_anchor *a = f->anchor;
	const char *why = a->reason ? a->reason : change_anchor_how_text(a);
	char file[512], text[512];

	if (disclose_hides(s->opts->disclose, f))
		return;
	log_quote(file, sizeof(file), a->file ? a->file : "?",
		  strlen(a->file ? a->file : "?"));
	log_quote(text, sizeof(text), why, strlen(why));
	log_info("change anchor of %s: %s at %s:%d: %s", f->id, a->how, file,
		 a->line, text);
}

int phase_pov_reach(struct scan *s, struct finding_set *fs,
		    struct change_cov *cc)
{
	struct coverage_targets *t = NULL;
	struct span_cache spans = { -1, NULL, NULL, 0 };
	struct reach_set *reach;
	struct pov_job *jobs = NULL;
	size_t jobs_nr = 0;
	char *root;
	int r = 0, around_removals;

	if (!s->change || !fs->nr)
		return 0;
	reach = xcalloc(fs->nr, sizeof(*reach));
	/* a change that only removes lines: the head lines around each
	 * removal stand for it, as in change coverage and saturation */
	coverage_targets_change_lines(&t, s->change, &around_removals);
	list_jobs(fs, &jobs, &jobs_nr);
	/* with no changed line that could run, every anchor: not-executed */
	if (t->lines_total && budget(s) < POV_REACH_MIN_S)
		fail_jobs(reach, jobs, jobs_nr, NULL, "no time left before the "
			  "deadline");
	else if (t->lines_total &&
		 (r = replay_all(s, jobs, jobs_nr, reach, cc, t)) != 0)
		goto out;
	root = scan_work_path(s, "source/%s/src", s->state.head_commit);
	if (fs_open_dir(&spans.rootfd, root) != 0)
		crs_error_clear();	/* no source: no function is known */
	free(root);
	for (size_t i = 0; i < fs->nr; i++) {
		struct finding *f = &fs->items[i];

		if (reach[i].nr > 1)
			qsort(reach[i].files, reach[i].nr,
			      sizeof(*reach[i].files), cmp_file);
		change_anchor_free(f->anchor);
		if (!reach[i].measured && t->lines_total && !f->in_change)
			f->anchor = change_anchor_unmeasured(f, reach[i].failed);
		else
			f->anchor = change_anchor_pick(f, reach[i].files,
						       reach[i].nr, span_at,
						       &spans);
		log_anchor(s, f);
	}
	if (cc)
		change_cov_finish(cc);
out:
	for (size_t i = 0; i < fs->nr; i++)
		reach_release(&reach[i]);
	free(reach);
	free(jobs);
	span_cache_release(&spans);
	coverage_targets_free(t);
	return r;
}
