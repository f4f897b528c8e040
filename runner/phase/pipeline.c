/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline.c - the phases of one scan, in order
 *
 * prepare -> build-target -> select -> shard -> run -> triage ->
 * change coverage -> validate -> report, between restoring and saving
 * the image cache. The run phase keeps a reserve of the deadline for
 * triage, change coverage and the report, so what was proved before the
 * deadline is still reported.
 */
#include "runner/phase/phase.h"
#include "runner/scan/cache.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/shard.h"
#include "runner/scan/timings.h"

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

int phase_scan_prove(struct scan *s)
{
	int r;

	if ((r = phase_select(s)) != 0 || (r = phase_shard(s)) != 0 ||
	    (r = phase_run(s)) != 0 || (r = phase_triage(s)) != 0 ||
	    (r = phase_change_coverage(s)) != 0)
		return r;
	return phase_validate(s);
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
