/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_saturation.c - when harnesses stopped because the change was saturated
 *
 * results.json's "saturation" object, read field by field: the run
 * phase's record is crs-ci's own, results.json may come from a cache or
 * another job, so both are checked the same way.
 */
#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdlib.h>

#define COUNT_MAX 100000000.0

json_t *run_saturation_to_json(const struct run_saturation *r)
{
	return json_pack("{s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:b,s:b}",
			 "window_seconds", r->window_s,
			 "fuzzed_seconds", r->fuzzed_s,
			 "share_seconds", r->share_s,
			 "harnesses", (json_int_t)r->harnesses,
			 "harnesses_saturated", (json_int_t)r->saturated,
			 "lines_reached", (json_int_t)r->lines_reached,
			 "lines_total", (json_int_t)r->lines_total,
			 "lines_around_removals", r->around_removals != 0,
			 "guard_weakened", r->guard_weakened != 0);
}

/* An optional boolean `key` of `o` into *out (0 when missing). */
static int get_flag(int *out, const json_t *o, const char *key,
		    const char *src)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */

	if (v && !json_is_boolean(v))
		return crs_error_set(CRS_EINPUT, "%s: saturation.%s: expected "
				     "true or false", src, key);
	*out = json_is_true(v);
	return 0;
}

/* A finite number in [0, COUNT_MAX]; an integer when `whole`. */
static int get_num(double *out, const json_t *o, const char *key, int whole,
		   const char *src)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */
	double d = json_is_number(v) ? json_number_value(v) : -1;

	if (!json_is_number(v) || (whole && !json_is_integer(v)) ||
	    !isfinite(d) || d < 0 || d > COUNT_MAX)
		return crs_error_set(CRS_EINPUT, "%s: saturation.%s: %s", src,
				     key, v ? (whole ? "expected a count" :
					       "expected a number of seconds")
				     : "missing");
	*out = d;
	return 0;
}

int run_saturation_from_json(struct run_saturation **out, const json_t *j,
			     const char *source)
{
	const char *src = source ? source : "results.json";
	struct run_saturation r = { 0 };
	double h = 0, sat = 0, reached = 0, total = 0;

	*out = NULL;
	if (!json_is_object(j))
		return crs_error_set(CRS_EINPUT, "%s: saturation: expected an "
				     "object", src);
	if (get_num(&r.window_s, j, "window_seconds", 0, src) != 0 ||
	    get_num(&r.fuzzed_s, j, "fuzzed_seconds", 0, src) != 0 ||
	    get_num(&h, j, "harnesses", 1, src) != 0 ||
	    get_num(&sat, j, "harnesses_saturated", 1, src) != 0 ||
	    get_num(&reached, j, "lines_reached", 1, src) != 0 ||
	    get_num(&total, j, "lines_total", 1, src) != 0)
		return CRS_EINPUT;
	if (json_object_get(j, "share_seconds") &&
	    get_num(&r.share_s, j, "share_seconds", 0, src) != 0)
		return CRS_EINPUT;
	if (get_flag(&r.around_removals, j, "lines_around_removals",
		     src) != 0 ||
	    get_flag(&r.guard_weakened, j, "guard_weakened", src) != 0)
		return CRS_EINPUT;
	if (sat > h || reached > total)
		return crs_error_set(CRS_EINPUT, "%s: saturation: more "
				     "harnesses saturated or lines reached "
				     "than there are", src);
	r.harnesses = (size_t)h;
	r.saturated = (size_t)sat;
	r.lines_reached = (size_t)reached;
	r.lines_total = (size_t)total;
	*out = xmalloc(sizeof(**out));
	**out = r;
	return 0;
}

void run_saturation_line(struct buf *b, const struct run_saturation *r)
{
	if (!r || !r->saturated)
		return;
	if (r->saturated == r->harnesses)
		buf_printf(b, "change saturated after %.0fs", r->fuzzed_s);
	else
		buf_printf(b, "change saturated for %zu of %zu harness(es) "
			   "after %.0fs", r->saturated, r->harnesses,
			   r->fuzzed_s);
	if (r->share_s > r->fuzzed_s)
		buf_printf(b, " of %.0fs", r->share_s);
	buf_printf(b, " of fuzzing: %zu of %zu %s reached, no new line or "
		   "branch of the touched code, nor inputs running it far "
		   "more, for %.0fs, "
		   "not before %s of the time of a harness reaching it%s "
		   "(--saturation)",
		   r->lines_reached, r->lines_total, r->around_removals ?
		   "lines around the removals" : "changed lines", r->window_s,
		   r->guard_weakened ? "half" : "a third", r->guard_weakened ?
		   " (the change removes or weakens a guard)" : "");
}
