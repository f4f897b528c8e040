/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation_watch.c - the run phase's replays of a harness's corpus
 *
 * One background replay at a time per harness (saturation_watch.h). The
 * corpus is the exchange's seeds/ folder, crs-ci's own copies of what
 * the CRSs submitted, bound read-only into the replay container
 * (coverage_replay.h); nothing in a container-writable folder is opened.
 */
#include "runner/phase/saturation_watch.h"
#include "runner/phase/phase.h"
#include "runner/exec/bg_job.h"
#include "runner/exec/coverage_replay.h"
#include "runner/scan/coverage.h"
#include "runner/scan/saturation.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "diff/changeset.h"
#include "diff/guards.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_MAX_S 60.0	/* one replay, at most */
#define RECORD_MAX (64u << 10)

struct saturation_tally {
	struct coverage_targets *t;	/* the change's added lines; when it
					 * only removed lines, the head lines
					 * around the removals */
	struct coverage_targets *fn;	/* the touched functions' lines, or
					 * NULL: the changed files' count */
	struct change_cov *cc;		/* every replay's reach, folded */
	struct run_saturation rec;
};

/* One replay in flight: what its job fills. */
struct replay {
	const struct coverage_targets *t;	/* borrowed */
	const struct coverage_targets *fn;	/* borrowed, or NULL */
	char *harness;
	double corpus_at;	/* scan seconds it began */
	atomic_int done;
	struct coverage_reach reach;
	size_t lines;		/* lines of the touched code that ran */
	size_t branches;	/* branches out of them that ran */
	unsigned long long runs; /* executions of its lines */
	long inputs;		/* inputs replayed; -1: unknown */
	char *failed;		/* why nothing was measured, or NULL */
};

struct saturation_watch {
	struct saturation_tally *tally;	/* borrowed */
	struct saturation sat;
	char *harness;
	struct bg_job *job;	/* NULL: no replay running */
	struct replay *rp;	/* the running replay's */
	double next_at;		/* scan seconds the next replay may start */
	int off;		/* a replay failed: no more */
};

/* The touched functions' lines, or NULL when none is known (a --diff
 * change without its head commit, no C, C++ or Java function). */
static struct coverage_targets *touched_lines(struct scan *s)
{
	struct diff_touched *d = NULL;
	struct coverage_targets *t = NULL;

	if (!s->change->head_commit || !s->source_dir ||
	    diff_changeset_touched_functions(&d, s->change, s->source_dir,
					     NULL, NULL) != 0) {
		crs_error_clear();
		return NULL;
	}
	coverage_targets_functions(&t, d);
	diff_touched_free(d);
	if (!t->lines_total) {
		coverage_targets_free(t);
		return NULL;
	}
	return t;
}

/* 1 when the change removes or weakens a guard (logged with the line),
 * else 0. */
static int weakened_guard(struct scan *s)
{
	struct diff_guard g = DIFF_GUARD_INIT;
	int r = diff_changeset_weakened_guard(&g, s->change);

	if (r < 0) {
		log_warn("run: cannot tell whether the change weakens a guard "
			 "(%s)", crs_error_last());
		crs_error_clear();
		return 0;
	}
	if (r > 0)
		log_info("run: the change removes or weakens %zu guard(s), "
			 "first %s:%d `%s`", g.nr, g.path, g.line, g.text);
	diff_guard_release(&g);
	return r > 0;
}

struct saturation_tally *saturation_tally_new(struct scan *s)
{
	struct saturation_tally *t;
	char *out;
	int built;

	if (!s->change || s->opts->saturation_s <= 0 ||
	    !s->state.harnesses_nr)
		return NULL;
	out = scan_work_path(s, "builds/coverage/head/out");
	built = fs_exists(out);
	free(out);
	if (!built) {
		log_info("run: no coverage build of the head: every harness "
			 "fuzzes its whole share (--saturation needs one)");
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	/* only removals: watch where the removed code ran */
	coverage_targets_change_lines(&t->t, s->change,
				      &t->rec.around_removals);
	t->fn = touched_lines(s);
	t->cc = change_cov_new();
	t->rec.window_s = (double)s->opts->saturation_s;
	t->rec.guard_weakened = weakened_guard(s);
	log_info("run: a harness stops once its corpus has reached no new "
		 "line or branch of the %s, and no new inputs have run them "
		 "twice as often as the corpus did, for %lds; once it reaches "
		 "them, not before %s of its time (--saturation)",
		 t->fn ? "touched functions" : "changed files",
		 s->opts->saturation_s, t->rec.guard_weakened ? "a half" :
		 "a third");
	return t;
}

const struct run_saturation *saturation_tally_record(
	struct saturation_tally *t, double fuzzed_s)
{
	if (!t)
		return NULL;
	change_cov_finish(t->cc);
	t->rec.fuzzed_s = fuzzed_s;
	t->rec.lines_total = t->cc->lines_total;
	t->rec.lines_reached = t->cc->lines_executed;
	return &t->rec;
}

void saturation_tally_free(struct saturation_tally *t)
{
	if (!t)
		return;
	coverage_targets_free(t->t);
	coverage_targets_free(t->fn);
	change_cov_free(t->cc);
	free(t);
}

struct saturation_watch *saturation_watch_start(struct scan *s,
						struct saturation_tally *t,
						const char *harness,
						double share_s)
{
	struct saturation_watch *w;
	char *bin;
	int built;

	if (!t)
		return NULL;
	bin = scan_work_path(s, "builds/coverage/head/out/%s", harness);
	built = fs_exists(bin);
	free(bin);
	if (!built) {
		log_info("run %s: not in the coverage build: it fuzzes its "
			 "whole share", harness);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->tally = t;
	w->harness = xstrdup(harness);
	saturation_begin(&w->sat, t->rec.window_s,
			 saturation_floor(share_s, t->rec.guard_weakened),
			 (double)s->opts->min_harness_seconds,
			 scan_elapsed(s));
	w->next_at = scan_elapsed(s) + saturation_probe_every(&w->sat);
	return w;
}

static void replay_free(struct replay *rp)
{
	if (!rp)
		return;
	coverage_reach_release(&rp->reach);
	free(rp->harness);
	free(rp->failed);
	free(rp);
}

/* The background job: the corpus as it is now, on the coverage build. */
static int replay_job(struct scan *s, void *arg)
{
	struct replay *rp = arg;
	struct coverage_replay out = COVERAGE_REPLAY_INIT;
	char *dir = scan_work_path(s, "saturation/%s", rp->harness);
	char *seeds = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/seeds",
				     s->state.run_id, rp->harness);
	const char *corpora[] = { seeds, NULL };
	int r = coverage_replay_run(&out, &s->exec, rp->harness, dir, corpora,
				    REPLAY_MAX_S);

	if (r != 0)
		rp->failed = xstrdup(crs_error_last());
	else if (out.failed || !out.cov)
		rp->failed = xstrdup(out.failed ? out.failed : "no coverage");
	else {
		coverage_reach(&rp->reach, out.cov, rp->t,
			       s->state.repo_path);
		rp->lines = rp->reach.file_hit_nr;
		rp->branches = rp->reach.file_branch_nr;
		rp->runs = rp->reach.runs_nr;
		rp->inputs = out.inputs;
	}
	if (!rp->failed && rp->fn) {
		struct coverage_reach fr = COVERAGE_REACH_INIT;

		coverage_reach(&fr, out.cov, rp->fn, s->state.repo_path);
		rp->lines = fr.hit_nr;
		rp->branches = fr.branch_hit_nr;
		rp->runs = fr.runs_nr;
		coverage_reach_release(&fr);
	}
	coverage_replay_release(&out);
	free(dir);
	free(seeds);
	atomic_store(&rp->done, 1);
	return r;
}

/* Fold the finished replay in. */
static void replay_take(struct saturation_watch *w, struct scan *s)
{
	struct replay *rp = w->rp;
	struct saturation_probe probe;
	enum saturation_gain gain;
	static const char *const said[] = {
		[SATURATION_NO_GAIN] = "nothing new",
		[SATURATION_GAIN_COVERAGE] = "new ones",
		[SATURATION_GAIN_INPUTS] = "none new, but heavier inputs",
	};

	if (bg_job_join(w->job) != 0)
		crs_error_clear();	/* rp->failed has it */
	w->job = NULL;
	w->rp = NULL;
	if (rp->failed) {
		log_warn("run %s: the replay of its corpus failed (%s): it "
			 "fuzzes its whole share", w->harness, rp->failed);
		w->off = 1;
		replay_free(rp);
		return;
	}
	/* a gain: more lines and branches together, or new inputs that
	 * ran them far more than the corpus did */
	probe.reached = rp->lines + rp->branches;
	probe.runs = rp->runs;
	probe.inputs = rp->inputs;
	gain = saturation_observe(&w->sat, rp->corpus_at, &probe);
	phase_change_coverage_add(w->tally->cc, w->harness, &rp->reach,
				  w->tally->t);
	log_info("run %s: its corpus (%ld input(s)) reaches %zu line(s) and "
		 "%zu branch(es) of the %s (%llu line run(s)), %zu of the %zu "
		 "%s; %s", w->harness, rp->inputs, rp->lines, rp->branches,
		 w->tally->fn ? "touched functions" : "changed files",
		 rp->runs, rp->reach.hit_nr,
		 rp->reach.mapped_nr, w->tally->rec.around_removals ?
		 "line(s) around the removals" : "changed line(s)",
		 said[gain]);
	w->next_at = scan_elapsed(s) + saturation_probe_every(&w->sat);
	replay_free(rp);
}

int saturation_watch_tick(struct saturation_watch *w, struct scan *s)
{
	if (!w || w->off)
		return 0;
	if (w->job && atomic_load(&w->rp->done))
		replay_take(w, s);
	if (w->off)
		return 0;
	if (!w->job && scan_elapsed(s) >= w->next_at) {
		struct replay *rp = xcalloc(1, sizeof(*rp));

		rp->t = w->tally->t;
		rp->fn = w->tally->fn;
		rp->harness = xstrdup(w->harness);
		rp->corpus_at = scan_elapsed(s);
		rp->inputs = -1;
		w->job = bg_job_start(s, "saturation replay", replay_job, rp,
				      NULL);
		if (!w->job) {
			replay_free(rp);
			w->off = 1;
			return 0;
		}
		w->rp = rp;
	}
	return saturation_reached(&w->sat, scan_elapsed(s));
}

double saturation_watch_plateau(const struct saturation_watch *w)
{
	return w ? saturation_plateau_s(&w->sat) : 0;
}

void saturation_watch_end(struct saturation_tally *t,
			  struct saturation_watch *w, int saturated,
			  double share_s)
{
	if (t) {
		t->rec.harnesses++;
		t->rec.saturated += saturated != 0;
		t->rec.share_s += share_s;
	}
	if (!w)
		return;
	bg_job_discard(w->job);
	replay_free(w->rp);
	free(w->harness);
	free(w);
}

/* runs/<run-id>/saturation.json of the scan's run; caller frees. */
static char *record_path(struct scan *s)
{
	return scan_work_path(s, "runs/%s/saturation.json", s->state.run_id);
}

int saturation_record_save(struct scan *s, const struct run_saturation *r)
{
	json_t *j = run_saturation_to_json(r);
	char *path = record_path(s);
	int rc = finding_json_save(j, path, "record");

	free(path);
	json_decref(j);
	return rc;
}

int saturation_record_load(struct scan *s, struct run_saturation **out)
{
	char *path = record_path(s);
	json_t *j;
	int r;

	*out = NULL;
	if ((r = finding_json_load(&j, path, RECORD_MAX)) == 0)
		r = run_saturation_from_json(out, j, path);
	json_decref(j);
	free(path);
	return r;
}
