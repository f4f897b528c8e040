/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_coverage.c - which of the change's lines fuzzing executed
 *
 * Diff mode only: the final corpus replayed on the coverage build and
 * intersected with the change's lines (results.json "change_coverage").
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/coverage_replay.h"
#include "runner/report/change_lines.h"
#include "runner/report/html.h"
#include "runner/scan/coverage.h"
#include "runner/scan/harness_runs.h"
#include "runner/scan/scan.h"
#include "runner/scan/select_file.h"
#include "runner/scan/timings.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHANGE_COV_MAX_S 180.0	/* the step's whole budget, at most */
#define CHANGE_COV_MIN_S 15.0	/* below this, coverage stays unknown */
#define CHANGE_COV_BUILD_S 30.0	/* at least this, to compile it first */
#define CHANGE_COV_REPORT_S 10.0	/* kept for the report after it */
#define CHANGE_COV_RESERVE_S 30.0	/* what the run phase keeps for it */
#define CHANGE_COV_BUILD_RESERVE_S 120.0	/* and for a coverage build */


/*
 * The harnesses the run phase fuzzed (its harness_runs.json), else the
 * selection in scan.json.
 */
static void fuzzed_harnesses(struct scan *s, struct strvec *out)
{
	struct harness_runs rec = HARNESS_RUNS_INIT;
	char *path = scan_work_path(s, "runs/%s/harness_runs.json",
				    s->state.run_id);

	if (harness_runs_load(&rec, path) == 0) {
		for (size_t i = 0; i < rec.nr; i++)
			strvec_push(out, rec.v[i].harness);
	} else {
		crs_error_clear();
		for (size_t i = 0; i < s->state.harnesses_nr; i++)
			strvec_push(out, s->state.harnesses[i]);
	}
	harness_runs_release(&rec);
	free(path);
}

/* Seconds this step may spend from now. */
static double budget(const struct scan *s)
{
	double b = scan_remaining(s) - CHANGE_COV_REPORT_S;

	return b > CHANGE_COV_MAX_S ? CHANGE_COV_MAX_S : b;
}

/* The head's coverage build is there (select made it), with `harness`. */
static int coverage_built(const struct scan *s, const char *harness)
{
	char *bin = scan_work_path(s, "builds/coverage/head/out/%s", harness);
	int yes = fs_exists(bin);

	free(bin);
	return yes;
}

/* What the run phase keeps: replays, and a compile when select did not. */
double phase_change_coverage_reserve(const struct scan *s)
{
	double left = scan_remaining(s), r = left * 0.1, b = left * 0.15;
	char *out = scan_work_path(s, "builds/coverage/head/out");

	if (r > CHANGE_COV_RESERVE_S)
		r = CHANGE_COV_RESERVE_S;
	if (b > CHANGE_COV_BUILD_RESERVE_S)
		b = CHANGE_COV_BUILD_RESERVE_S;
	if (fs_exists(out) || !s->state.harnesses_nr)
		b = 0;
	free(out);
	return s->change ? r + b : 0;
}

void phase_change_coverage_add(struct change_cov *cc, const char *harness,
			       const struct coverage_reach *reach,
			       const struct coverage_targets *t)
{
	for (size_t f = 0; f < t->nr; f++)
		for (size_t k = 0; k < t->files[f].lines_nr; k++) {
			unsigned char st = reach->state[f][k];

			change_cov_add(cc, t->files[f].path,
				       t->files[f].lines[k],
				       st == COVERAGE_LINE_HIT ? CHANGE_COV_HIT :
				       st == COVERAGE_LINE_MAPPED ?
				       CHANGE_COV_MISSED : CHANGE_COV_NONE);
		}
	change_cov_add_harness(cc, harness, reach->hit_nr);
}

/* select.json says the change holds no line a harness runs (its modes
 * "no-code" and "empty"). */
static int select_found_no_code(struct scan *s)
{
	json_t *j = select_file_load(s);
	const char *mode = json_string_value(json_object_get(j, "mode"));
	int none = mode && (!strcmp(mode, "no-code") || !strcmp(mode, "empty"));

	json_decref(j);
	return none;
}

/*
 * Measure into cc; a reason to call it unknown goes to *unknown_out
 * (the caller's). The only error is CRS_EINTR: a failed build or
 * replay, even the engine's, leaves the coverage unknown, since the
 * findings are proved already.
 */
static int measure(struct scan *s, struct change_cov *cc,
		   const struct coverage_targets *t, char **unknown_out)
{
	struct strvec hs = STRVEC_INIT;
	double start = scan_elapsed(s);
	int r = 0, ok = 0;

	*unknown_out = NULL;
	fuzzed_harnesses(s, &hs);
	for (size_t f = 0; f < t->nr; f++)
		for (size_t k = 0; k < t->files[f].lines_nr; k++)
			change_cov_add(cc, t->files[f].path,
				       t->files[f].lines[k], CHANGE_COV_NONE);
	if (!hs.nr) {
		/* the select phase found no changed line a harness runs:
		 * the change's coverage is known, there is none to reach */
		if (!select_found_no_code(s))
			*unknown_out = xstrdup("no harness was fuzzed");
		goto out;
	}
	if (budget(s) < CHANGE_COV_MIN_S) {
		*unknown_out = xstrdup("no time left before the deadline to "
				       "replay the corpus");
		goto out;
	}
	if (!coverage_built(s, hs.v[0]) && budget(s) < CHANGE_COV_BUILD_S) {
		*unknown_out = xstrdup("no time left before the deadline to "
				       "build the head with coverage");
		goto out;
	}
	if ((r = coverage_replay_build(s, &ok)) != 0 && r != CRS_EINTR) {
		/* the engine or the image failed us: a warning, not an end */
		*unknown_out = xasprintf("no coverage build: %s",
					 crs_error_last());
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	if (!ok) {
		*unknown_out = xstrdup("the head does not build with "
				       "SANITIZER=coverage");
		goto out;
	}
	for (size_t i = 0; i < hs.nr && !*unknown_out; i++) {
		struct coverage_replay rp = COVERAGE_REPLAY_INIT;
		struct coverage_reach reach = COVERAGE_REACH_INIT;
		char *dir = scan_work_path(s, "change-coverage/%s", hs.v[i]);
		char *seeds = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/seeds",
					     s->state.run_id, hs.v[i]);
		const char *corpora[] = { seeds, NULL };
		double left = budget(s) / (double)(hs.nr - i);

		if (scan_interrupted(s))
			r = crs_error_set(CRS_EINTR, "interrupted");
		else if (left < CHANGE_COV_MIN_S / 2)
			*unknown_out = xasprintf("no time left to replay the "
						 "corpus of %s", hs.v[i]);
		else {
			int span = timing_begin_harness(s, "replay", hs.v[i],
							hs.v[i]);

			r = coverage_replay_run(&rp, &s->exec, hs.v[i], dir, corpora,
						left);
			timing_end(s, span);
		}
		if (r != 0 && r != CRS_EINTR) {
			*unknown_out = xasprintf("the replay of %s's corpus "
						 "failed: %s", hs.v[i],
						 crs_error_last());
			crs_error_clear();
			r = 0;
		} else if (r == 0 && !*unknown_out && rp.failed)
			*unknown_out = xasprintf("the replay of %s's corpus "
						 "failed: %s", hs.v[i],
						 rp.failed);
		else if (r == 0 && !*unknown_out && rp.cov) {
			coverage_reach(&reach, rp.cov, t, s->state.repo_path);
			phase_change_coverage_add(cc, hs.v[i], &reach, t);
			log_info("change coverage: %s: %ld input(s) executed "
				 "%zu of the change's %zu instrumented "
				 "line(s)", hs.v[i], rp.inputs, reach.hit_nr,
				 reach.mapped_nr);
		}
		coverage_reach_release(&reach);
		coverage_replay_release(&rp);
		free(dir);
		free(seeds);
		if (r != 0)
			goto out;
	}
	log_info("change coverage: replayed %zu harness(es) in %.1fs", hs.nr,
		 scan_elapsed(s) - start);
out:
	strvec_release(&hs);
	return r;
}

/*
 * <out>/change-lines.json: a few head lines around each finding's frames
 * on changed lines, for report.html. Nothing to do in
 * full mode or without findings. 0, or an I/O error writing the file
 * (change_coverage.c).
 */
static int phase_change_lines(struct scan *s, const struct finding_set *fs)
{
	char *root = scan_work_path(s, "source/%s/src", s->state.head_commit);
	char *path = xasprintf("%s/%s", s->out_dir, HTML_CHANGE_LINES_NAME);
	json_t *doc = NULL;
	int rootfd = -1, r = 0;

	if (!s->change || !fs->nr || fs_open_dir(&rootfd, root) != 0) {
		crs_error_clear();	/* no change, finding or source */
		goto out;
	}
	doc = change_lines_build(rootfd, s->change, fs);
	r = finding_json_save(doc, path, "changed lines");
out:
	if (rootfd >= 0)
		close(rootfd);
	json_decref(doc);
	free(root);
	free(path);
	return r;
}

int phase_change_coverage_measure(struct scan *s, struct change_cov **out)
{
	struct coverage_targets *t = NULL;
	struct change_cov *cc;
	char *unknown = NULL;
	int r = 0;

	*out = NULL;
	if (!s->change)
		return 0;	/* full mode: no change to cover */
	cc = change_cov_new();
	coverage_targets_change_lines(&t, s->change, &cc->around_removals);
	if (t->lines_total && (r = measure(s, cc, t, &unknown)) != 0) {
		change_cov_free(cc);
		goto out;
	}
	if (unknown) {
		log_warn("change coverage: unknown: %s", unknown);
		change_cov_set_unknown(cc, unknown);
	}
	change_cov_finish(cc);
	*out = cc;
out:
	coverage_targets_free(t);
	free(unknown);
	return r;
}

int phase_change_coverage_record(struct scan *s, struct change_cov *cc)
{
	struct finding_set fs;
	struct buf line = BUF_INIT;
	char *results = xasprintf("%s/results.json", s->out_dir);
	char q[2048];
	int r;

	finding_set_init(&fs);
	if (!s->change) {
		r = 0;	/* full mode: no change to cover */
		goto out;
	}
	timing_phase(s, "coverage");
	if ((r = finding_set_load(&fs, results)) != 0 ||
	    (r = phase_pov_reach(s, &fs, cc)) != 0 ||
	    (r = phase_change_lines(s, &fs)) != 0)
		goto out;
	change_cov_line(&line, cc);
	log_quote(q, sizeof(q), line.ptr, line.len);
	log_info("change coverage: %s", q);
	change_cov_free(fs.change_coverage);
	fs.change_coverage = cc;
	cc = NULL; /* transferred */
	r = finding_set_save(&fs, results);
out:
	buf_release(&line);
	change_cov_free(cc);
	finding_set_release(&fs);
	free(results);
	return r;
}
