/* SPDX-License-Identifier: Apache-2.0 */
/*
 * early_jobs.c - later phases' work started as soon as its inputs exist
 *
 * Two background jobs (bg_job.h), started from the run phase and joined
 * by triage and the coverage phase, or by the end of the scan's proving
 * phases on every path. The first PoV's job also tells the run phase,
 * through an atomic flag, the moment its finding is proved and fails the
 * policy (--after-finding), and prints it then as the report will.
 */
#include "runner/phase/early_jobs.h"
#include "runner/phase/phase.h"
#include "runner/config/config.h"
#include "runner/exec/bg_job.h"
#include "runner/exec/build_group.h"
#include "runner/exec/reproduce_pov.h"
#include "runner/scan/scan.h"
#include "runner/scan/timings.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/ctx.h"
#include "runner/report/disclose.h"
#include "runner/report/github.h"
#include "runner/report/terminal.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct early_triage {
	struct bg_job *job;	/* NULL: not started, or joined */
	int started;
	char *harness;		/* set by the first PoV, started or not */
	char sha[65];
	char *testcase;		/* <work>/triage/pov-<sha> */
	int span;
	int r, on_base;		/* reproduce_pov's */
	struct compose_resources res;	/* every core's share */
	int all_cores;
	char *crs;		/* its finder */
	/* set by the job before `proved` (release), read after it */
	double proved_at;	/* scan seconds */
	char id[17];		/* the finding's */
	int announced;		/* its annotation went to the CI log */
	atomic_int proved;
};

struct early_coverage {
	struct bg_job *job;	/* NULL: not started, or joined */
	int started;
	struct change_cov *cc;
	struct compose_resources res;
	int has_res;
};

struct early_jobs {
	struct early_triage t;
	struct early_coverage c;
};

void early_jobs_enable(struct scan *s)
{
	if (!s->early)
		s->early = xcalloc(1, sizeof(*s->early));
}

static int in_github_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");

	return v && !strcmp(v, "true");
}

/*
 * The PoV's reproductions are made: when they prove a finding that fails
 * the policy (and no option hides), print it as the report will (its
 * terminal lines, and its annotation in GitHub Actions, which the report
 * then does not repeat) and tell the run phase.
 */
static void judge(struct scan *s, struct early_triage *e)
{
	struct finding_set fs;
	const struct finding *f;

	finding_set_init(&fs);
	fs.summary.fail_on = xstrdup(s->opts->fail_on);
	phase_triage_preview(s, e->harness, e->sha, e->crs, e->on_base, &fs);
	finding_set_suppress(&fs, s->opts->hide_timeouts, s->opts->hide_ooms);
	f = fs.nr ? &fs.items[0] : NULL;
	if (f && !f->suppressed &&
	    finding_fails_policy(f, s->opts->fail_on)) {
		e->proved_at = scan_elapsed(s);
		snprintf(e->id, sizeof(e->id), "%s", f->id);
		if (disclose_hides(s->opts->disclose, f)) {
			log_info("triage: a finding proved %.1fs into the scan "
				 "fails --fail-on %s; its details are kept "
				 "private (--disclose)", e->proved_at,
				 s->opts->fail_on);
		} else {
			log_info("triage: finding %s proved %.1fs into the "
				 "scan; it fails --fail-on %s:", f->id,
				 e->proved_at, s->opts->fail_on);
			terminal_finding(stderr, f, NULL, s->out_dir);
		}
		if (in_github_actions() && s->ctx && s->ctx->out &&
		    !disclose_hides(s->opts->disclose, f)) {
			github_annotations(s->ctx->out, &fs, s->out_dir);
			fflush(s->ctx->out);
			e->announced = 1;
		}
		atomic_store_explicit(&e->proved, 1, memory_order_release);
	}
	finding_set_release(&fs);
}

static int triage_job(struct scan *s, void *arg)
{
	struct early_triage *e = arg;
	int r = reproduce_pov(s, e->harness, e->sha, e->testcase,
			      &e->on_base);

	timing_end(s, e->span);
	if (r == 0 && !scan_interrupted(s))
		judge(s, e);
	return r;
}

int early_triage_proved(const struct scan *s, double *at, char id[17],
			int *announced)
{
	struct early_triage *e = s->early ? &s->early->t : NULL;

	if (!e || !atomic_load_explicit(&e->proved, memory_order_acquire))
		return 0;
	*at = e->proved_at;
	memcpy(id, e->id, 17);
	*announced = e->announced;
	return 1;
}

void early_triage_start(struct scan *s, const char *harness,
			const char *crs, const void *data, size_t len,
			int all_cores)
{
	struct early_triage *e = s->early ? &s->early->t : NULL;
	char name[13], *dir;
	int r;

	if (!e || e->harness)
		return;		/* not enabled, or the first PoV was */
	sha256_hex(e->sha, data, len);
	e->harness = xstrdup(harness);
	e->crs = xstrdup(crs);
	e->testcase = scan_work_path(s, "triage/pov-%s", e->sha);
	dir = scan_work_path(s, "triage");
	r = fs_mkdir_p(dir);
	free(dir);
	if (r != 0 || fs_write_file_atomic(e->testcase, data, len) != 0) {
		log_warn("triage: PoV %.12s is left to triage: %s", e->sha,
			 crs_error_last());
		crs_error_clear();
		return;
	}
	/* a head and a base reproduction now, a coverage replay soon */
	if (all_cores && build_group_resources(&e->res, s->compose, 3) == 0)
		e->all_cores = 1;
	crs_error_clear();
	snprintf(name, sizeof(name), "%.12s", e->sha);
	log_info("triage: PoV %.12s on %s reproduced now, as the run goes on",
		 e->sha, harness);
	e->span = timing_begin_harness(s, "triage", name, harness);
	e->job = bg_job_start(s, "triage", triage_job, e,
			      e->all_cores ? &e->res : NULL);
	if (!e->job)
		timing_end(s, e->span);
	e->started = e->job != NULL;
}

int early_triage_covers(const struct scan *s, const char *harness,
			const char *sha)
{
	const struct early_triage *e = s->early ? &s->early->t : NULL;

	return e && e->started && !strcmp(e->harness, harness) &&
		!strcmp(e->sha, sha);
}

int early_triage_take(struct scan *s, const char *harness, const char *sha,
		      int *on_base)
{
	struct early_triage *e;

	if (!early_triage_covers(s, harness, sha))
		return -1;
	e = &s->early->t;
	if (e->job) {
		e->r = bg_job_join(e->job);
		e->job = NULL;
		if (e->r)
			return e->r;
	} else if (e->r) {
		return crs_error_set(e->r, "the early reproductions of PoV "
				     "%.12s failed", e->sha);
	}
	*on_base = e->on_base;
	return 0;
}

static int coverage_job(struct scan *s, void *arg)
{
	struct early_coverage *e = arg;

	return phase_change_coverage_measure(s, &e->cc);
}

void early_coverage_start(struct scan *s)
{
	struct early_coverage *e = s->early ? &s->early->c : NULL;

	if (!e || e->started || !s->change)
		return;
	/* no CRS runs: the replay beside triage's reproductions */
	e->has_res = build_group_resources(&e->res, s->compose, 3) == 0;
	crs_error_clear();
	e->job = bg_job_start(s, "change coverage", coverage_job, e,
			      e->has_res ? &e->res : NULL);
	e->started = e->job != NULL;
}

int early_coverage_take(struct scan *s, struct change_cov **out)
{
	struct early_coverage *e = s->early ? &s->early->c : NULL;
	int r;

	if (!e || !e->started)
		return -1;
	r = bg_job_join(e->job);
	e->job = NULL;
	e->started = 0;
	*out = e->cc;
	e->cc = NULL;
	return r;
}

void early_jobs_end(struct scan *s)
{
	struct early_jobs *e = s->early;

	if (!e)
		return;
	/* the scan's own error stands */
	bg_job_discard(e->t.job);
	bg_job_discard(e->c.job);
	if (e->t.all_cores)
		build_group_resources_release(&e->t.res);
	if (e->c.has_res)
		build_group_resources_release(&e->c.res);
	change_cov_free(e->c.cc);
	free(e->t.harness);
	free(e->t.crs);
	free(e->t.testcase);
	free(e);
	s->early = NULL;
}
