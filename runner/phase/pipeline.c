/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline.c - the phases of one scan, in order
 *
 * prepare -> build-target -> select -> shard -> run -> triage (beside
 * the replay for the change's coverage) -> change coverage -> validate
 * -> report, between restoring and saving the image cache. The run
 * phase keeps a reserve of the deadline for triage, change coverage and
 * the report, so what was proved before the deadline is still reported.
 */
#include "runner/phase/phase.h"
#include "runner/phase/early_jobs.h"
#include "runner/config/config.h"
#include "runner/exec/build_group.h"
#include "runner/exec/cache.h"
#include "runner/exec/corpus_import.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/shard.h"
#include "runner/scan/state_dirs.h"
#include "runner/scan/timings.h"
#include "sarif/change_cov.h"
#include "common/error.h"
#include "common/log.h"

int phase_scan_build(struct scan *s)
{
	int r, span = s->opts->cache_dir ?
		timing_begin(s, "image", "cache restore") : -1;

	r = cache_restore_images(s);
	timing_end(s, span);
	if (r != 0 || (r = phase_prepare(s)) != 0)
		return r;
	return phase_build_target(s);
}

/*
 * No CRS runs after the run phase: triage's reproductions and the
 * replay of the final corpus for the change's coverage (which reads
 * the corpus, not triage's findings) run side by side on every core
 * the compose owns, as the builds of build-target do. The replay began
 * as the run tore down (early_jobs.h), or begins now; the coverage is
 * written into results.json once triage has made it. A failed triage
 * leaves the replay to early_jobs_end(), which stops it.
 */
static int triage_and_coverage(struct scan *s)
{
	struct change_cov *cc = NULL;
	struct compose_resources res;
	int r;

	early_coverage_start(s);
	/* a head and a base reproduction, and a replay: three containers */
	if ((r = build_group_resources(&res, s->compose, 3)) != 0)
		return r;
	exec_set_shared_res(&res);
	r = phase_triage(s);
	exec_set_shared_res(NULL);
	build_group_resources_release(&res);
	if (r != 0)
		return r;
	r = early_coverage_take(s, &cc);
	if (r < 0)	/* no thread for it: measured now */
		r = phase_change_coverage_measure(s, &cc);
	if (r == 0)
		return phase_change_coverage_record(s, cc);
	change_cov_free(cc);
	return r;
}

/* --mode batch: what fuzzing grew goes to the store. A push that fails
 * is a warning: the findings still stand. */
static void store_push(struct scan *s)
{
	if (corpus_import_push(s) != 0) {
		log_warn("corpus: %s; the store keeps its corpus",
			 crs_error_last());
		crs_error_clear();
	}
}

int phase_scan_prove(struct scan *s)
{
	int r;

	/* what a scan writes there is this run's alone (state_dirs.h) */
	if ((r = state_dir_out_fresh(s->out_dir)) != 0)
		return r;
	early_jobs_enable(s);
	if ((r = corpus_import(s)) == 0 && (r = phase_select(s)) == 0 &&
	    (r = phase_shard(s)) == 0 &&
	    (r = phase_run(s)) == 0) {
		store_push(s);
		r = triage_and_coverage(s);
	}
	/* stopped and awaited on every path (this thread's error stands):
	 * no early job outlives the phases */
	early_jobs_end(s);
	return r ? r : phase_validate(s);
}

int phase_scan_all(struct scan *s, int *exit_code_out)
{
	int r;

	timing_restart(s);	/* a new scan, whatever the work dir held */
	if ((r = phase_scan_build(s)) != 0 || (r = phase_scan_prove(s)) != 0 ||
	    (r = phase_report(s, exit_code_out)) != 0)
		return r;
	return cache_save_images(s);
}
