/* SPDX-License-Identifier: Apache-2.0 */
/*
 * after_finding.c - what the run does once a finding is proved new
 *
 * The policy of --after-finding and the run phase's record of its cut.
 * The record lives in runs/<run-id>/, crs-ci's own (no container writes
 * there); it is still read bounded and checked field by field.
 */
#include "runner/scan/after_finding.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "sarif/finding.h"
#include "sarif/run_cut.h"
#include "common/buf.h"
#include "common/duration.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_MAX (64u << 10)

_Static_assert(AFTER_FINDING_DEFAULT == -2,
	       "SCAN_OPTS_INIT spells AFTER_FINDING_DEFAULT as -2");

int after_finding_parse(const char *arg, long *out)
{
	long v = 0;

	if (!strcmp(arg, "stop")) {
		*out = 0;
		return 0;
	}
	if (!strcmp(arg, "continue")) {
		*out = AFTER_FINDING_CONTINUE;
		return 0;
	}
	if (parse_duration(arg, &v) != 0 || v < 1) {
		crs_error_clear();
		return crs_error_set(CRS_EINPUT, "--after-finding: '%s' is not "
				     "stop, continue or a duration (30s, 2m)",
				     arg);
	}
	*out = v;
	return 0;
}

double after_finding_window(long policy_s, double left_s)
{
	double w;

	if (policy_s == AFTER_FINDING_CONTINUE)
		return -1;
	if (policy_s >= 0)
		return (double)policy_s;
	w = AFTER_FINDING_SHARE * (left_s > 0 ? left_s : 0);
	if (w < AFTER_FINDING_MIN_S)
		w = AFTER_FINDING_MIN_S;
	return w > AFTER_FINDING_MAX_S ? AFTER_FINDING_MAX_S : w;
}

char *after_finding_policy_name(long policy_s)
{
	if (policy_s == AFTER_FINDING_CONTINUE)
		return xstrdup("continue");
	if (policy_s == 0)
		return xstrdup("stop");
	if (policy_s > 0)
		return xasprintf("%lds", policy_s);
	return xstrdup("default");
}

/* runs/<run-id>/after_finding.json of the scan's run; caller frees. */
static char *after_finding_record_path(struct scan *s)
{
	return scan_work_path(s, "runs/%s/after_finding.json",
			      s->state.run_id);
}

int after_finding_save(struct scan *s, const struct run_cut *c)
{
	json_t *j = run_cut_to_json(c);
	char *path = after_finding_record_path(s);
	int r = finding_json_save(j, path, "record");

	free(path);
	json_decref(j);
	return r;
}

int after_finding_load(struct scan *s, struct run_cut **out)
{
	char *path = after_finding_record_path(s);
	json_t *j;
	int r;

	*out = NULL;
	if ((r = finding_json_load(&j, path, RECORD_MAX)) == 0)
		r = run_cut_from_json(out, j, path);
	json_decref(j);
	free(path);
	return r;
}
