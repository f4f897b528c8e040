/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_cut.c - when a proved finding ended the run, under which policy
 *
 * results.json's "after_finding" object, read field by field: the run
 * phase's record is crs-ci's own, results.json may come from a cache or
 * another job, so both are checked the same way.
 */
#include "sarif/run_cut.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct run_cut *run_cut_new(void)
{
	struct run_cut *c = xcalloc(1, sizeof(*c));

	c->window_s = -1;
	c->proved_at_s = -1;
	c->cut_at_s = -1;
	return c;
}

void run_cut_free(struct run_cut *c)
{
	if (!c)
		return;
	free(c->policy);
	free(c->finding);
	free(c);
}

static json_t *seconds_or_null(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

json_t *run_cut_to_json(const struct run_cut *c)
{
	return json_pack("{s:s?,s:o,s:o,s:o,s:s?,s:I,s:b}",
			 "policy", c->policy,
			 "window_seconds", seconds_or_null(c->window_s),
			 "proved_at_seconds", seconds_or_null(c->proved_at_s),
			 "cut_at_seconds", seconds_or_null(c->cut_at_s),
			 "finding", c->finding,
			 "harnesses_cut", (json_int_t)c->harnesses_cut,
			 "announced", c->announced);
}

static int bad(const char *src, const char *field, const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: after_finding.%s: %s", src,
			     field, what);
}

/* A number >= 0, or null for "none" (-1). */
static int get_seconds(double *out, const json_t *o, const char *key,
		       const char *src)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */

	*out = -1;
	if (!v)
		return bad(src, key, "missing");
	if (json_is_null(v))
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
	    json_number_value(v) < 0)
		return bad(src, key, "expected a number of seconds or null");
	*out = json_number_value(v);
	return 0;
}

/* A string of at most 64 bytes without NUL, or null when `nullable`. */
static int get_string(char **out, const json_t *o, const char *key,
		      int nullable, const char *src)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */

	*out = NULL;
	if (v && nullable && json_is_null(v))
		return 0;
	if (!json_is_string(v) || json_string_length(v) > 64 ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return bad(src, key, nullable ? "expected a short string or "
			   "null" : "expected a short string");
	*out = xstrdup(json_string_value(v));
	return 0;
}

int run_cut_from_json(struct run_cut **out, const json_t *j,
		      const char *source)
{
	const char *src = source ? source : "results.json";
	struct run_cut *c = run_cut_new();
	const json_t *n, *a;
	int r;

	*out = NULL;
	if (!json_is_object(j)) {
		r = crs_error_set(CRS_EINPUT, "%s: after_finding: expected an "
				  "object", src);
		goto out;
	}
	n = json_object_get(j, "harnesses_cut");	/* borrowed */
	a = json_object_get(j, "announced");		/* borrowed */
	if ((r = get_string(&c->policy, j, "policy", 0, src)) != 0 ||
	    (r = get_seconds(&c->window_s, j, "window_seconds", src)) != 0 ||
	    (r = get_seconds(&c->proved_at_s, j, "proved_at_seconds",
			     src)) != 0 ||
	    (r = get_seconds(&c->cut_at_s, j, "cut_at_seconds", src)) != 0 ||
	    (r = get_string(&c->finding, j, "finding", 1, src)) != 0)
		goto out;
	if (!json_is_integer(n) || json_integer_value(n) < 0 ||
	    json_integer_value(n) > 1000000) {
		r = bad(src, "harnesses_cut", "expected a count");
		goto out;
	}
	if (!json_is_boolean(a)) {
		r = bad(src, "announced", "expected true or false");
		goto out;
	}
	c->harnesses_cut = (size_t)json_integer_value(n);
	c->announced = json_is_true(a);
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	run_cut_free(c);
	return r;
}

void run_cut_line(struct buf *b, const struct run_cut *c)
{
	if (!c || c->proved_at_s < 0)
		return;
	if (c->cut_at_s >= 0) {
		buf_printf(b, "run ended %.0fs after a finding was proved "
			   "(--after-finding %s", c->cut_at_s - c->proved_at_s,
			   c->policy ? c->policy : "?");
		if (c->policy && !strcmp(c->policy, "default"))
			buf_printf(b, ": %.0fs", c->window_s);
		buf_printf(b, ")%s", c->harnesses_cut ? "; " : "");
		if (c->harnesses_cut)
			buf_printf(b, "%zu harness(es) fuzzed short or not at "
				   "all, the proved finding fails the verdict",
				   c->harnesses_cut);
		return;
	}
	buf_printf(b, "a finding was proved %.0fs into the scan; the run went "
		   "on (--after-finding %s)", c->proved_at_s,
		   c->policy ? c->policy : "?");
}

#define CUT_REASON_START "the run ended "
#define CUT_REASON_PROOF " was proved (--after-finding "

char *run_cut_reason(const struct run_cut *c)
{
	return xasprintf(CUT_REASON_START "%.0fs after finding %s"
			 CUT_REASON_PROOF "%s)", c->cut_at_s - c->proved_at_s,
			 c->finding ? c->finding : "?",
			 c->policy ? c->policy : "?");
}

int run_cut_is_reason(const char *reason)
{
	return reason && !strncmp(reason, CUT_REASON_START,
				  strlen(CUT_REASON_START)) &&
		strstr(reason, CUT_REASON_PROOF) != NULL;
}
