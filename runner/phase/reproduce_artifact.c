/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce_artifact.c - rerun a CI scan's PoVs on a machine of one's own
 *
 * The artifact a CI job uploads holds results.json and povs/, not the
 * build. Its results.json names the head commit, the sanitizer and each
 * finding's harness and PoV: the head is built here as the scan built it,
 * and each PoV runs --reproduce-runs times, as triage ran it.
 */
#include "runner/phase/phase.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/ctx.h"
#include "sarif/crash.h"
#include "sarif/finding.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How one PoV ran: 1 the recorded crash, 0 another or none. */
static int reproduce_one(struct scan *s, const char *dir,
			 const struct finding *f, int *err)
{
	struct repro_verdict v = { 0 };
	char *from = xasprintf("%s/%s", dir, f->pov_path);
	char *tdir = scan_work_path(s, "reproduce/%.16s", f->id);
	/* bound from our own folder: a link or a FIFO in DIR is refused */
	char *pov = xasprintf("%s/pov", tdir);
	char id[17] = "";
	int same = 0;

	*err = fs_remove_tree(tdir);
	if (*err == 0)
		*err = fs_mkdir_p(tdir);
	if (*err == 0 && fs_copy_file(from, pov) != 0) {
		log_warn("reproduce: finding %s: %s", f->id, crs_error_last());
		crs_error_clear();
		goto out;
	}
	if (*err == 0)
		*err = reproduce_run(s, f->harness, pov, "head", tdir);
	if (*err != 0)
		goto out;
	reproduce_read_runs(&v, tdir, s->opts->reproduce_runs, f->harness);
	if (v.signature)
		crash_signature_id(id, v.signature);
	same = v.signature && f->id && !strcmp(id, f->id);
	if (same)
		log_info("reproduce: finding %s (%s in %s): the same crash, "
			 "%d of %d run(s) on %.12s; the sanitizer's report: %s",
			 f->id, f->crash_type ? f->crash_type : "crash",
			 f->function ? f->function : "?", v.reproduced,
			 v.attempts, s->state.head_commit, v.log_path);
	else if (v.signature)
		log_warn("reproduce: finding %s: another crash, %s in %s "
			 "(%d of %d run(s)); the sanitizer's report: %s", f->id,
			 v.report && v.report->crash_type ?
			 v.report->crash_type : "crash",
			 v.report && v.report->frames_nr &&
			 v.report->frames[0].func ?
			 v.report->frames[0].func : "?", v.reproduced,
			 v.attempts, v.log_path);
	else
		log_warn("reproduce: finding %s (%s): no crash in %d run(s) "
			 "on %.12s", f->id, f->crash_type ? f->crash_type :
			 "crash", v.attempts, s->state.head_commit);
out:
	repro_verdict_release(&v);
	free(from);
	free(pov);
	free(tdir);
	return same;
}

int phase_reproduce_artifact(struct scan *s, const char *dir,
			     int *exit_code)
{
	char *results = xasprintf("%s/results.json", dir);
	struct finding_set fs;
	size_t tried = 0, same = 0;
	int r;

	*exit_code = EXIT_OK;
	finding_set_init(&fs);
	if ((r = finding_set_load(&fs, results)) != 0) {
		if (r == CRS_ENOTFOUND)
			r = crs_error_set(CRS_EINPUT, "%s: no results.json: give "
					  "the folder of a scan's output (the "
					  "artifact crs-ci-results, unzipped)",
					  dir);
		goto out;
	}
	if (!fs.summary.head) {
		r = crs_error_set(CRS_EINPUT, "%s: summary.head: no head "
				  "commit recorded", results);
		goto out;
	}
	if (!fs.nr) {
		log_info("reproduce: %s holds no finding", dir);
		goto out;
	}
	if ((r = phase_build_head(s, fs.summary.head,
				  fs.summary.sanitizer)) != 0)
		goto out;
	for (size_t i = 0; i < fs.nr && r == 0; i++) {
		const struct finding *f = &fs.items[i];

		if (!f->pov_path || !f->harness || !f->id ||
		    !safe_relpath_ok(f->pov_path)) {
			log_warn("reproduce: finding %s: no PoV in %s to run",
				 f->id ? f->id : "?", dir);
			continue;
		}
		tried++;
		same += reproduce_one(s, dir, f, &r);
		if (scan_interrupted(s) && r == 0)
			r = crs_error_set(CRS_EINTR, "interrupted");
	}
	if (r == 0)
		log_info("reproduce: %zu of %zu finding(s) crashed as recorded",
			 same, tried);
	if (r == 0 && same < tried)
		*exit_code = EXIT_FINDINGS;
out:
	finding_set_release(&fs);
	free(results);
	return r;
}
