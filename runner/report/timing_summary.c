/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timing_summary.c - results.json's "timings" as a few lines for people
 *
 * Reads only the "timings" object (docs/results.md) as results.json has
 * it, which may come from an older or hand-edited file: a member of the
 * wrong type is skipped, never trusted. Knows no sink: the terminal and
 * the job summary pass their prefix and escaper.
 */
#include "runner/report/timing_summary.h"
#include "common/buf.h"

#include <string.h>

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key); /* borrowed */

	return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key); /* borrowed */

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A span's kind, name and seconds; 0 when it is not one. */
static int span_of(const json_t *e, const char **kind, const char **name,
		   double *secs)
{
	double a = num(e, "start_s"), z = num(e, "end_s");

	*kind = str(e, "kind");
	*name = str(e, "name");
	if (!*kind || !*name || a < 0 || z < a)
		return 0;
	*secs = z - a;
	return 1;
}

/* Start the next item of a "label: a, b, c" line; *n counts them. */
static void item(struct buf *b, size_t *n, const char *prefix,
		 const char *label)
{
	if ((*n)++) {
		buf_adds(b, ", ");
		return;
	}
	buf_adds(b, prefix);
	buf_adds(b, label);
}

static int is_build(const char *kind)
{
	return !strcmp(kind, "image") || !strcmp(kind, "compile") ||
		!strcmp(kind, "crs-build");
}

static void line_phases(struct buf *b, const json_t *spans,
			const char *prefix, timing_escape_fn esc)
{
	const json_t *e;
	size_t i, n = 0;

	json_array_foreach(spans, i, e) {
		const char *kind, *name;
		double secs;

		if (!span_of(e, &kind, &name, &secs) || strcmp(kind, "phase"))
			continue;
		item(b, &n, prefix, "phases: ");
		esc(b, name);
		buf_printf(b, " %.1f s", secs);
	}
	if (n)
		buf_addch(b, '\n');
}

static void line_builds(struct buf *b, const json_t *spans,
			const char *prefix, timing_escape_fn esc)
{
	const json_t *e;
	size_t i, n = 0, more = 0;
	double sum = 0, more_s = 0;

	json_array_foreach(spans, i, e) {
		const char *kind, *name;
		double secs;

		if (!span_of(e, &kind, &name, &secs) || !is_build(kind))
			continue;
		sum += secs;
		if (n >= TIMING_SUMMARY_BUILDS_MAX) {
			more++;
			more_s += secs;
			continue;
		}
		item(b, &n, prefix, "builds: ");
		buf_adds(b, kind);
		buf_addch(b, ' ');
		esc(b, name);
		buf_printf(b, " %.1f s", secs);
	}
	if (more)
		buf_printf(b, " and %zu more (%.1f s)", more, more_s);
	if (n)
		buf_printf(b, "; %.1f s in all\n", sum);
}

static void line_fuzzing(struct buf *b, const json_t *spans,
			 const char *prefix, timing_escape_fn esc)
{
	const json_t *e, *f;
	size_t i, k, n = 0;

	json_array_foreach(spans, i, e) {
		const char *kind, *name, *h = str(e, "harness");
		double secs, total = 0;
		int seen = 0;

		if (!span_of(e, &kind, &name, &secs) || strcmp(kind, "fuzz"))
			continue;
		h = h ? h : name;
		/* once per harness, at its first span, with all its seconds */
		json_array_foreach(spans, k, f) {
			const char *fk, *fn, *fh = str(f, "harness");
			double fs;

			if (!span_of(f, &fk, &fn, &fs) || strcmp(fk, "fuzz") ||
			    strcmp(fh ? fh : fn, h))
				continue;
			if (k < i)
				seen = 1;
			total += fs;
		}
		if (seen)
			continue;
		item(b, &n, prefix, "fuzzing: ");
		esc(b, h);
		buf_printf(b, " %.1f s", total);
	}
	if (n)
		buf_addch(b, '\n');
}

void timing_summary(struct buf *b, const json_t *timings, const char *prefix,
		    timing_escape_fn esc)
{
	const json_t *spans = json_object_get(timings, "spans"); /* borrowed */
	double total = num(timings, "total_s"), fuzz = num(timings, "fuzz_s");
	double deadline = num(timings, "deadline_s");
	double pov = num(timings, "first_pov_s");
	double cores = num(timings, "cores");

	if (!json_is_object(timings) || !json_array_size(spans))
		return;
	buf_printf(b, "%stimings: %.1f s", prefix, total < 0 ? 0 : total);
	if (cores > 0)
		buf_printf(b, " on %.0f core(s)", cores);
	if (fuzz >= 0 && deadline > 0)
		buf_printf(b, "; fuzzed %.1f s of the %.0f s deadline "
			   "(%.0f %%)", fuzz, deadline, 100.0 * fuzz /
			   deadline);
	else if (fuzz >= 0)
		buf_printf(b, "; fuzzed %.1f s", fuzz);
	if (pov >= 0)
		buf_printf(b, "; first PoV %.1f s after the run began", pov);
	else
		buf_adds(b, "; no PoV");
	buf_addch(b, '\n');
	line_phases(b, spans, prefix, esc);
	line_builds(b, spans, prefix, esc);
	line_fuzzing(b, spans, prefix, esc);
}
