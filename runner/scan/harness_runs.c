/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness_runs.c - the run phase's per-harness fuzzing record
 * (harness_runs.json) and the rule that calls a harness's run short
 *
 * The rule is in docs/results.md, "Verdicts"; triage forgives a
 * short harness that proved a finding.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "runner/scan/harness_runs.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HARNESS_RUNS_MAX (4u << 20)
/* a harness that got this close to its due counts as fully fuzzed */
#define SLACK_S 2.0

void harness_runs_add(struct harness_runs *hr, const char *harness,
		      double wanted_s, double fuzzed_s, const char *reason)
{
	struct harness_run_record *e;

	ALLOC_GROW(hr->v, hr->nr + 1, hr->alloc);
	e = &hr->v[hr->nr++];
	e->harness = xstrdup(harness);
	e->wanted_s = wanted_s;
	e->fuzzed_s = fuzzed_s;
	e->reason = reason ? xstrdup(reason) : NULL;
}

void harness_runs_release(struct harness_runs *hr)
{
	for (size_t i = 0; i < hr->nr; i++) {
		free(hr->v[i].harness);
		free(hr->v[i].reason);
	}
	free(hr->v);
	memset(hr, 0, sizeof(*hr));
}

int harness_runs_save(const struct harness_runs *hr, const char *path)
{
	json_t *a = json_array();
	char *text;
	int r;

	for (size_t i = 0; i < hr->nr; i++) {
		const struct harness_run_record *e = &hr->v[i];

		json_array_append_new(a, json_pack("{s:s,s:f,s:f,s:o}",
			"harness", e->harness, "wanted_seconds", e->wanted_s,
			"fuzzed_seconds", e->fuzzed_s, "reason",
			e->reason ? json_string(e->reason) : json_null()));
	}
	text = json_dumps(a, JSON_INDENT(2));
	json_decref(a);
	if (!text)
		return crs_error_set(CRS_ERR, "%s: cannot serialise the "
				     "harness runs", path);
	r = fs_write_file_atomic(path, text, strlen(text));
	free(text);
	return r;
}

static int bad(const char *path, size_t i, const char *field)
{
	return crs_error_set(CRS_EINPUT, "%s: [%zu].%s: missing or of the "
			     "wrong type", path, i, field);
}

int harness_runs_load(struct harness_runs *hr, const char *path)
{
	struct buf b = BUF_INIT;
	json_error_t je;
	json_t *a = NULL, *e;
	size_t i;
	int r;

	if ((r = fs_read_file(&b, path, HARNESS_RUNS_MAX)) != 0)
		goto out;
	if (!(a = json_loadb(b.ptr, b.len, 0, &je)) || !json_is_array(a)) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, je.line,
				  je.column, a ? "expected an array" : je.text);
		goto out;
	}
	json_array_foreach(a, i, e) {
		json_t *h = json_object_get(e, "harness");
		json_t *w = json_object_get(e, "wanted_seconds");
		json_t *f = json_object_get(e, "fuzzed_seconds");
		json_t *why = json_object_get(e, "reason");

		if (!json_is_string(h)) {
			r = bad(path, i, "harness");
			break;
		}
		if (!json_is_number(w) || !json_is_number(f)) {
			r = bad(path, i, "wanted_seconds");
			break;
		}
		if (why && !json_is_null(why) && !json_is_string(why)) {
			r = bad(path, i, "reason");
			break;
		}
		harness_runs_add(hr, json_string_value(h), json_number_value(w),
				 json_number_value(f), json_is_string(why) ?
				 json_string_value(why) : NULL);
	}
out:
	json_decref(a);
	buf_release(&b);
	return r;
}

char *harness_run_shortfall(double wanted_s, double given_s, double ran_s,
			    size_t modules, int exited_early,
			    const char *failed)
{
	if (!modules)
		return xstrdup("no CRS module ran on it");
	if (exited_early && failed)
		return xasprintf("%s before its time was up", failed);
	/* exited 0 well before its time: the CRS decided it was done */
	if (exited_early && ran_s + SLACK_S < given_s)
		return NULL;
	/* it ran what it was given (or exited 0 at that limit) */
	if (given_s + SLACK_S < wanted_s)
		return xasprintf("the deadline left it %.0fs of the %.0fs it "
				 "was due", floor(given_s), wanted_s);
	if (!exited_early && ran_s + SLACK_S < wanted_s)
		return xstrdup("stopped at the scan's deadline");
	return NULL;
}
