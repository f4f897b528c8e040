/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timings.c - a scan's spans, recorded into its timings record
 *
 * The scan side of timings_record.c: each call finds the scan's record
 * (s->timings, opened by scan_open) and passes on, so a phase adds a
 * span in one line and knows nothing of the file.
 */
#include "runner/scan/timings.h"
#include "runner/scan/timings_record.h"
#include "runner/scan/scan.h"
#include "sarif/finding.h"

#include <stddef.h>

static struct timings *rec(const struct scan *s)
{
	return s ? s->timings : NULL;
}

int timing_begin(struct scan *s, const char *kind, const char *name)
{
	return timings_begin(rec(s), kind, name, NULL);
}

int timing_begin_harness(struct scan *s, const char *kind, const char *name,
			 const char *harness)
{
	return timings_begin(rec(s), kind, name, harness);
}

void timing_end(struct scan *s, int id)
{
	timings_end(rec(s), id);
}

void timing_phase(struct scan *s, const char *name)
{
	timings_phase(rec(s), name);
}

void timing_restart(struct scan *s)
{
	timings_restart(rec(s));
}

void timing_first_pov(struct scan *s)
{
	timings_first_pov(rec(s));
}

void timings_into(struct scan *s, struct finding_set *fs)
{
	json_t *o = NULL;

	/* the report phase alone: crs-ci report on results of a scan
	 * whose work folder is elsewhere, or of crs-ci merge */
	if (!timings_beyond_report(rec(s)) || !(o = timings_json(rec(s))))
		return;
	json_decref(fs->timings);
	fs->timings = o;
}
