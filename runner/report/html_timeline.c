/* SPDX-License-Identifier: Apache-2.0 */
/*
 * html_timeline.c - results.json's "timings" drawn as an inline SVG
 *
 * Knows the timeline's geometry and nothing about how the spans were
 * measured (runner/scan/timings.c). Every string from the document is
 * cleaned (junit_text_clean) and placed only in text nodes and attribute
 * values, which libxml2 escapes; numbers are checked before they become
 * coordinates, so a hostile name or a bogus time cannot add markup or
 * stretch the page.
 */
#include "runner/report/html_timeline.h"
#include "runner/report/svg_node.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "runner/report/junit.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_WIDTH 960
#define TL_LABEL_W 110		/* left column: row names */
#define TL_RIGHT 20
#define TL_ROW_H 22
#define TL_GAP 6
#define TL_TOP 8
#define TL_CHAR_W 6.5		/* px per character at font-size 11 */
#define TL_NAME_MAX 200		/* bytes of a name kept */

struct tl_span {
	const char *kind, *name;	/* borrowed from the document */
	double start, end;
	int lane;			/* -1: the phase band */
};

static const struct {
	const char *kind, *fill;
} tl_colors[] = {
	{ "phase", "#8c959f" }, { "image", "#54aeff" },
	{ "compile", "#4ac26b" }, { "crs-build", "#d4a72c" },
	{ "fuzz", "#cf222e" }, { "replay", "#8250df" },
	{ "triage", "#fb8f44" }, { "validate", "#1a7f37" },
	{ "report", "#6e7781" },
};

static const char *tl_fill(const char *kind)
{
	for (size_t i = 0; i < sizeof(tl_colors) / sizeof(tl_colors[0]); i++)
		if (!strcmp(kind, tl_colors[i].kind))
			return tl_colors[i].fill;
	return "#afb8c1";
}

static void tl_text(xmlNodePtr svg, double x, double y, const char *anchor,
		    const char *text)
{
	xmlNodePtr t = svg_node_el(svg, "text", text);

	svg_node_attrf(t, "x", x);
	svg_node_attrf(t, "y", y);
	svg_node_attr(t, "font-size", "11");
	if (anchor)
		svg_node_attr(t, "text-anchor", anchor);
}

/* A finite, non-negative number member, or -1. */
static double tl_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */
	double d;

	if (!json_is_number(v))
		return -1;
	d = json_number_value(v);
	return isfinite(d) && d >= 0 && d < 1e7 ? d : -1;
}

/* The spans worth drawing, in document order; *dropped counts the rest. */
static struct tl_span *tl_spans(const json_t *timings, size_t *nr,
				size_t *dropped, int *lanes, double *max_end)
{
	const json_t *a = json_object_get(timings, "spans");	/* borrowed */
	struct tl_span *v = NULL;
	size_t i, alloc = 0;
	json_t *o;

	*nr = *dropped = 0;
	*lanes = 0;
	*max_end = 0;
	json_array_foreach(a, i, o) {
		/* borrowed */
		const char *kind = json_string_value(json_object_get(o,
								     "kind"));
		const char *name = json_string_value(json_object_get(o,
								     "name"));
		const json_t *lane = json_object_get(o, "lane");	/* b. */
		double s = tl_num(o, "start_s"), e = tl_num(o, "end_s");
		int is_phase = kind && !strcmp(kind, "phase");
		json_int_t l = json_is_integer(lane) ?
			json_integer_value(lane) : (is_phase ? 0 : -1);

		if (!kind || !name || s < 0 || e < s || l < 0 ||
		    l >= HTML_TIMELINE_LANES_MAX ||
		    *nr >= HTML_TIMELINE_SPANS_MAX) {
			(*dropped)++;
			continue;
		}
		ALLOC_GROW(v, *nr + 1, alloc);
		v[*nr].kind = kind;
		v[*nr].name = name;
		v[*nr].start = s;
		v[*nr].end = e;
		v[*nr].lane = is_phase ? -1 : (int)l;
		if (!is_phase && (int)l + 1 > *lanes)
			*lanes = (int)l + 1;
		if (e > *max_end)
			*max_end = e;
		(*nr)++;
	}
	return v;
}

/* A tick step giving at most 10 ticks over `total` seconds. */
static double tl_step(double total)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300,
					600, 900, 1800, 3600, 7200, 14400 };
	size_t i = 0;

	while (i + 1 < sizeof(steps) / sizeof(steps[0]) &&
	       total / steps[i] > 10)
		i++;
	return steps[i];
}

/* One bar: a rect with a <title> tooltip and, when it fits, its name. */
static void tl_bar(xmlNodePtr svg, const struct tl_span *sp, double x,
		   double w, double y)
{
	xmlNodePtr r = svg_node_el(svg, "rect", NULL);
	char *tip = xasprintf("%s %s: %.1fs to %.1fs (%.1fs)", sp->kind,
			      sp->name, sp->start, sp->end,
			      sp->end - sp->start);
	size_t fits = w > 6 ? (size_t)((w - 6) / TL_CHAR_W) : 0;

	svg_node_attrf(r, "x", x);
	svg_node_attrf(r, "y", y);
	svg_node_attrf(r, "width", w < 1 ? 1 : w);
	svg_node_attrf(r, "height", TL_ROW_H);
	svg_node_attr(r, "fill", tl_fill(sp->kind));
	svg_node_attr(r, "rx", "3");
	svg_node_el(r, "title", tip);
	free(tip);
	if (fits >= 3) {
		char *label = junit_text_clean(sp->name, fits < TL_NAME_MAX ?
					       fits : TL_NAME_MAX);

		tl_text(svg, x + 3, y + 15, NULL, label);
		free(label);
	}
}

/* A dashed vertical line at `t` seconds across the lanes, with a tip. */
static void tl_marker(xmlNodePtr svg, double x, double bottom,
		      const char *colour, const char *tip)
{
	xmlNodePtr m = svg_node_el(svg, "line", NULL);

	svg_node_attrf(m, "x1", x);
	svg_node_attrf(m, "x2", x);
	svg_node_attrf(m, "y1", TL_TOP);
	svg_node_attrf(m, "y2", bottom);
	svg_node_attr(m, "stroke", colour);
	svg_node_attr(m, "stroke-width", "2");
	svg_node_attr(m, "stroke-dasharray", "4 3");
	svg_node_attr(m, "class", "timeline-marker");
	svg_node_el(m, "title", tip);
}

void html_timeline(xmlNodePtr parent, const json_t *timings,
		   const struct run_cut *cut, const struct run_saturation *sat)
{
	struct tl_span *v;
	size_t nr, dropped;
	int lanes;
	double max_end, total, scale, step, axis_y, height;
	double cores = tl_num(timings, "cores");
	double fuzz = tl_num(timings, "fuzz_s");
	double first = tl_num(timings, "first_pov_s");
	struct buf b = BUF_INIT;
	xmlNodePtr svg, p;

	if (!json_is_object(timings))
		return;
	v = tl_spans(timings, &nr, &dropped, &lanes, &max_end);
	total = tl_num(timings, "total_s");
	if (total < max_end)
		total = max_end;
	if (!nr || total <= 0) {
		free(v);
		return;
	}
	xmlNewTextChild(parent, NULL, BAD_CAST "h2", BAD_CAST "Timeline");
	buf_printf(&b, "%.1f s in all", total);
	if (cores > 0)
		buf_printf(&b, " on %.0f core(s)", cores);
	if (fuzz >= 0)
		buf_printf(&b, "; %.1f s of fuzzing", fuzz);
	if (first >= 0)
		buf_printf(&b, "; first PoV %.1f s after fuzzing began",
			   first);
	if (dropped)
		buf_printf(&b, "; %zu span(s) not drawn", dropped);
	if (cut && cut->proved_at_s >= 0) {
		buf_adds(&b, "; ");
		run_cut_line(&b, cut);
	}
	if (sat && sat->saturated) {
		buf_adds(&b, "; ");
		run_saturation_line(&b, sat);
	}
	p = svg_node_el(parent, "p", b.ptr);
	svg_node_attr(p, "class", "timeline-totals");
	buf_release(&b);

	scale = (TL_WIDTH - TL_LABEL_W - TL_RIGHT) / total;
	axis_y = TL_TOP + (TL_ROW_H + TL_GAP) * (lanes + 1) + 4;
	height = axis_y + 22;
	svg = svg_node_el(parent, "svg", NULL);
	svg_node_attr(svg, "xmlns", "http://www.w3.org/2000/svg");
	svg_node_attr(svg, "class", "timeline");
	svg_node_attrf(svg, "width", TL_WIDTH);
	svg_node_attrf(svg, "height", height);
	{
		char *vb = xasprintf("0 0 %d %.0f", TL_WIDTH, height);

		svg_node_attr(svg, "viewBox", vb);
		free(vb);
	}
	svg_node_attr(svg, "role", "img");
	svg_node_el(svg, "title", "where the scan's time went");
	tl_text(svg, 4, TL_TOP + 15, NULL, "phases");
	for (int l = 0; l < lanes; l++) {
		char name[32];

		snprintf(name, sizeof(name), "slot %d", l + 1);
		tl_text(svg, 4, TL_TOP + (TL_ROW_H + TL_GAP) * (l + 1) + 15,
			NULL, name);
	}
	for (size_t i = 0; i < nr; i++) {
		const struct tl_span *sp = &v[i];
		double y = TL_TOP + (TL_ROW_H + TL_GAP) * (sp->lane + 1);

		tl_bar(svg, sp, TL_LABEL_W + sp->start * scale,
		       (sp->end - sp->start) * scale, y);
	}
	if (cut && cut->proved_at_s >= 0 && cut->proved_at_s <= total) {
		char *tip = xasprintf("finding proved at %.1fs",
				      cut->proved_at_s);

		tl_marker(svg, TL_LABEL_W + cut->proved_at_s * scale, axis_y,
			  "#cf222e", tip);
		free(tip);
	}
	if (cut && cut->cut_at_s >= 0 && cut->cut_at_s <= total) {
		char *tip = xasprintf("run ended at %.1fs (--after-finding "
				      "%s)", cut->cut_at_s,
				      cut->policy ? cut->policy : "?");

		tl_marker(svg, TL_LABEL_W + cut->cut_at_s * scale, axis_y,
			  "#57606a", tip);
		free(tip);
	}
	/* the seconds axis */
	{
		xmlNodePtr line = svg_node_el(svg, "line", NULL);

		svg_node_attrf(line, "x1", TL_LABEL_W);
		svg_node_attrf(line, "x2", TL_LABEL_W + total * scale);
		svg_node_attrf(line, "y1", axis_y);
		svg_node_attrf(line, "y2", axis_y);
		svg_node_attr(line, "stroke", "#57606a");
	}
	step = tl_step(total);
	for (double t = 0; t <= total + 1e-9; t += step) {
		xmlNodePtr tick = svg_node_el(svg, "line", NULL);
		char label[32];
		double x = TL_LABEL_W + t * scale;

		svg_node_attrf(tick, "x1", x);
		svg_node_attrf(tick, "x2", x);
		svg_node_attrf(tick, "y1", axis_y);
		svg_node_attrf(tick, "y2", axis_y + 4);
		svg_node_attr(tick, "stroke", "#57606a");
		snprintf(label, sizeof(label), "%.0fs", t);
		tl_text(svg, x, axis_y + 16, "middle", label);
	}
	free(v);
}
