/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_html.c - the coverage page: totals, trend picture, per-file table
 */
#include "runner/report/coverage_html.h"
#include "runner/report/svg_node.h"
#include "sarif/project_cov.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <libxml/HTMLtree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 720.0
#define SVG_H 220.0
#define PAD_L 48.0
#define PAD_R 16.0
#define PAD_T 16.0
#define PAD_B 40.0

static const char css[] =
	"body{font-family:sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse}td,th{padding:2px 8px;"
	"border-bottom:1px solid #ddd;text-align:left}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".bar{display:inline-block;height:10px;background:#4a8}"
	".bg{display:inline-block;width:100px;height:10px;background:#eee;"
	"text-align:left;vertical-align:middle}"
	"svg text{font-size:11px;fill:#555}";

static double pct(size_t hit, size_t lines)
{
	return lines ? 100.0 * (double)hit / (double)lines : 0;
}

/* The line coverage of each history point, 0 to 100 %, as a polyline. */
static void trend(xmlNodePtr body, const struct project_cov *c)
{
	double w = SVG_W - PAD_L - PAD_R, h = SVG_H - PAD_T - PAD_B;
	size_t n = c->history_nr;
	xmlNodePtr svg, line;
	char *pts;
	size_t len = 0, cap = 64 + n * 32;

	svg_node_el(body, "h2", "Coverage over the last runs");
	if (!n) {
		svg_node_el(body, "p", "No run recorded yet.");
		return;
	}
	svg = svg_node_el(body, "svg", NULL);
	svg_node_attr(svg, "xmlns", "http://www.w3.org/2000/svg");
	svg_node_attr(svg, "class", "trend");
	svg_node_attrf(svg, "width", SVG_W);
	svg_node_attrf(svg, "height", SVG_H);
	for (int g = 0; g <= 100; g += 25) {	/* the grid and its labels */
		xmlNodePtr l = svg_node_el(svg, "line", NULL), t;
		double y = PAD_T + h - h * g / 100.0;
		char label[8];

		svg_node_attrf(l, "x1", PAD_L);
		svg_node_attrf(l, "x2", PAD_L + w);
		svg_node_attrf(l, "y1", y);
		svg_node_attrf(l, "y2", y);
		svg_node_attr(l, "stroke", "#ddd");
		snprintf(label, sizeof(label), "%d%%", g);
		t = svg_node_el(svg, "text", label);
		svg_node_attrf(t, "x", 4);
		svg_node_attrf(t, "y", y + 4);
	}
	pts = xmalloc(cap);
	pts[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct project_cov_point *p = &c->history[i];
		double x = PAD_L + (n == 1 ? w / 2 : w * (double)i /
				    (double)(n - 1));
		double y = PAD_T + h - h * pct(p->hit, p->lines) / 100.0;
		xmlNodePtr dot = svg_node_el(svg, "circle", NULL), tip;
		char *title = xasprintf("%s %.12s: %zu of %zu lines (%.1f%%), "
					"%zu inputs", p->at, p->commit, p->hit,
					p->lines, pct(p->hit, p->lines),
					p->inputs);

		len += (size_t)snprintf(pts + len, cap - len, "%s%.1f,%.1f",
					i ? " " : "", x, y);
		svg_node_attrf(dot, "cx", x);
		svg_node_attrf(dot, "cy", y);
		svg_node_attrf(dot, "r", 3);
		svg_node_attr(dot, "fill", "#2a6");
		tip = svg_node_el(dot, "title", title);
		(void)tip;
		free(title);
		if (i == 0 || i == n - 1) {	/* the first and last dates */
			char day[11];
			xmlNodePtr t;

			snprintf(day, sizeof(day), "%.10s", p->at);
			t = svg_node_el(svg, "text", day);
			svg_node_attrf(t, "x", x);
			svg_node_attrf(t, "y", SVG_H - PAD_B + 16);
			svg_node_attr(t, "text-anchor", n == 1 ? "middle" :
			     i ? "end" : "start");
		}
	}
	line = svg_node_el(svg, "polyline", NULL);
	svg_node_attr(line, "points", pts);
	svg_node_attr(line, "fill", "none");
	svg_node_attr(line, "stroke", "#2a6");
	svg_node_attrf(line, "stroke-width", 2);
	free(pts);
}

static void files_table(xmlNodePtr body, const struct project_cov *c)
{
	xmlNodePtr t, tr;

	svg_node_el(body, "h2", "Files");
	t = svg_node_el(body, "table", NULL);
	tr = svg_node_el(t, "tr", NULL);
	svg_node_el(tr, "th", "file");
	svg_node_el(tr, "th", "lines run");
	svg_node_el(tr, "th", "lines instrumented");
	svg_node_el(tr, "th", "coverage");
	for (size_t i = 0; i < c->nr; i++) {
		const struct project_cov_file *f = &c->files[i];
		char num[64];
		xmlNodePtr td, bg, bar;

		tr = svg_node_el(t, "tr", NULL);
		svg_node_el(tr, "td", f->path);
		snprintf(num, sizeof(num), "%zu", f->hit);
		svg_node_attr(svg_node_el(tr, "td", num), "class", "n");
		snprintf(num, sizeof(num), "%zu", f->lines);
		svg_node_attr(svg_node_el(tr, "td", num), "class", "n");
		snprintf(num, sizeof(num), "%.1f%% ", pct(f->hit, f->lines));
		td = svg_node_el(tr, "td", num);
		svg_node_attr(td, "class", "n");
		bg = svg_node_el(td, "span", NULL);
		svg_node_attr(bg, "class", "bg");
		bar = svg_node_el(bg, "span", NULL);
		svg_node_attr(bar, "class", "bar");
		snprintf(num, sizeof(num), "width:%.0fpx",
			 pct(f->hit, f->lines));
		svg_node_attr(bar, "style", num);
	}
}

int coverage_html_write(const struct project_cov *c, const char *project,
			const char *path)
{
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	xmlNodePtr html = xmlNewNode(NULL, BAD_CAST "html"), head, body, meta;
	xmlChar *mem = NULL;
	char *line;
	int len = 0, r;

	xmlCreateIntSubset(doc, BAD_CAST "html", NULL, NULL);
	xmlDocSetRootElement(doc, html);
	svg_node_attr(html, "lang", "en");
	head = svg_node_el(html, "head", NULL);
	meta = svg_node_el(head, "meta", NULL);
	svg_node_attr(meta, "charset", "utf-8");
	line = xasprintf("crs-ci coverage: %s", project ? project : "project");
	svg_node_el(head, "title", line);
	xmlNewChild(head, NULL, BAD_CAST "style", BAD_CAST css);
	body = svg_node_el(html, "body", NULL);
	svg_node_el(body, "h1", line);
	free(line);
	line = xasprintf("%zu of %zu instrumented lines run by the corpus "
			 "(%.1f%%), in %zu file(s)", c->hit, c->lines,
			 pct(c->hit, c->lines), c->nr);
	svg_node_el(body, "p", line);
	free(line);
	trend(body, c);
	files_table(body, c);
	htmlDocDumpMemoryFormat(doc, &mem, &len, 1);
	if (!mem || len <= 0)
		r = crs_error_set(CRS_ERR, "%s: cannot serialise the coverage "
				  "page", path);
	else
		r = fs_write_file_atomic(path, mem, (size_t)len);
	xmlFree(mem);
	xmlFreeDoc(doc);
	return r;
}
