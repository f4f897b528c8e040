/* SPDX-License-Identifier: Apache-2.0 */
/*
 * html.c - report.html from a finding set, with libxml2's HTML tree API
 *
 * Every string is hostile and only ever placed in text nodes and
 * attribute values, which libxml2 escapes; the page has no script.
 *
 * Details: docs/internals.md.
 */
#include "runner/report/html.h"
#include "runner/report/disclose.h"
#include "runner/report/change_lines.h"
#include "runner/report/html_timeline.h"
#include "runner/report/junit.h"
#include "runner/report/out_file.h"
#include "runner/report/pov_preview.h"
#include "sarif/run_corpus.h"
#include "sarif/run_cut.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HTML_TEXT_MAX (64u << 10)	/* per text node */
#define HTML_ATTR_MAX 256		/* per attribute value */
#define HTML_STACK_MAX 64		/* frames shown per finding */
#define HTML_FAILURE_MAX (4u << 10)	/* rejected patch's failure text */
#define HTML_SPEND_MAX (1u << 20)	/* llm-spend.json size limit */
#define HTML_LINES_MAX (4u << 20)	/* change-lines.json size limit */
#define HTML_RANGES_MAX 200		/* not-reached ranges listed */
#define HTML_SNIPPETS_MAX 4		/* changed-line excerpts per finding */
#define HTML_SNIPPET_LINES 15		/* lines per excerpt, at most */
#define HTML_PROOFS_MAX 3		/* proofs at the top of the page */

static const char html_css[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1f2328}"
	"h1{font-size:1.5em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;"
	"vertical-align:top}th{background:#f6f8fa}"
	".verdict{font-size:1.3em;font-weight:bold;padding:.5em 1em;"
	"border-radius:6px;display:inline-block}"
	".pass{background:#dafbe1;color:#116329}"
	".fail{background:#ffebe9;color:#a40e26}"
	"pre{background:#f6f8fa;padding:.6em;overflow:auto;"
	"white-space:pre-wrap;word-break:break-all}"
	"code{font-family:ui-monospace,monospace}"
	"ol.stack{font-family:ui-monospace,monospace;font-size:.9em}"
	".frame{color:#6e7781}.in-project{color:#1f2328;font-weight:bold}"
	".in-change{background:#fff8c5}"
	".add{background:#e6ffec}.del{background:#ffebe9}"
	".hunk{color:#0550ae}.meta{font-weight:bold}"
	".finding{border:1px solid #d0d7de;border-radius:6px;padding:0 1em;"
	"margin:1em 0}"
	"pre.snippet .changed{background:#e6ffec}"
	"pre.snippet .crash{background:#ffebe9;font-weight:bold}"
	"pre.snippet .anchor{background:#ccffd8;font-weight:bold}"
	".lineno{color:#6e7781}"
	"svg.timeline{max-width:100%;height:auto;font-family:system-ui,"
	"sans-serif}"
	".proof{border:2px solid #a40e26;border-radius:6px;padding:0 1em;"
	"margin:1em 0}.proof h2{border:0;margin-top:.6em}"
	"pre.hex{font-size:.85em;white-space:pre;word-break:normal}"
	".quiet{color:#6e7781}";

static const char *html_str(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static void html_class(xmlNodePtr n, const char *cls)
{
	if (cls)
		xmlNewProp(n, BAD_CAST "class", BAD_CAST cls);
}

static void html_attr(xmlNodePtr n, const char *name, const char *value)
{
	char *v = junit_text_clean(value, HTML_ATTR_MAX);

	xmlNewProp(n, BAD_CAST name, BAD_CAST v);
	free(v);
}

/* <tag class=cls>text</tag> under parent; text NULL: an empty element. */
static xmlNodePtr html_el(xmlNodePtr parent, const char *tag,
			  const char *cls, const char *text)
{
	char *t = text ? junit_text_clean(text, HTML_TEXT_MAX) : NULL;
	/* xmlNewTextChild escapes <, > and & in the content */
	xmlNodePtr n = xmlNewTextChild(parent, NULL, BAD_CAST tag,
				       t ? BAD_CAST t : NULL);

	html_class(n, cls);
	free(t);
	return n;
}

/* The same with the text taken over (freed here). */
static xmlNodePtr html_el_own(xmlNodePtr parent, const char *tag,
			      const char *cls, char *text)
{
	xmlNodePtr n = html_el(parent, tag, cls, text);

	free(text);
	return n;
}

/* Append text to an element. */
static void html_text(xmlNodePtr parent, const char *text)
{
	char *t = junit_text_clean(text, HTML_TEXT_MAX);

	xmlAddChild(parent, xmlNewText(BAD_CAST t));
	free(t);
}

/* A <tr> of a two-column key/value table. */
static void html_kv(xmlNodePtr table, const char *key, const char *value)
{
	xmlNodePtr tr = html_el(table, "tr", NULL, NULL);

	html_el(tr, "th", NULL, key);
	html_el(tr, "td", NULL, html_str(value, "-"));
}

static void html_kv_own(xmlNodePtr table, const char *key, char *value)
{
	html_kv(table, key, value);
	free(value);
}

/*
 * A JSON file of the output folder (at most `max` bytes), or NULL when
 * missing, too long or malformed.
 */
static json_t *html_json_load(const char *out_dir, const char *name,
			      size_t max)
{
	struct buf b = BUF_INIT;
	json_t *j = NULL;
	int truncated = 0;

	if (out_file_head(&b, out_dir, name, max, &truncated, NULL) == 0 &&
	    !truncated)
		j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	buf_release(&b);
	if (j && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* A non-negative number member of o, or -1. */
static double html_jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */

	return json_is_number(v) && json_number_value(v) >= 0 ?
		json_number_value(v) : -1;
}

static size_t html_failing(const struct finding_set *fs, const char *policy)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->nr; i++)
		n += finding_fails_policy(&fs->items[i], policy) != 0;
	return n;
}

static const char *html_label(const struct finding *f)
{
	return f->novelty ? f->novelty :
		(f->in_change ? "in-change" : "unknown");
}

static char *html_loc(const char *file, int line)
{
	return line > 0 ? xasprintf("%s:%d", html_str(file, "?"), line) :
		xstrdup(html_str(file, "?"));
}

/* The first finding that fails the policy, or NULL. */
static const struct finding *html_first_failing(const struct finding_set *fs,
						const char *policy)
{
	for (size_t i = 0; i < fs->nr; i++)
		if (finding_fails_policy(&fs->items[i], policy))
			return &fs->items[i];
	return NULL;
}

/*
 * The verdict, naming the first failing finding's crash; then the
 * harnesses --after-finding cut after the proof as one quiet line (the
 * policy working, not a failure of its own), and every other harness
 * fuzzed short as a banner.
 */
static void html_verdict(xmlNodePtr body, const struct finding_set *fs,
			 const char *policy)
{
	size_t failing = html_failing(fs, policy);
	enum finding_verdict v = finding_set_verdict(fs, policy, NULL);
	const struct finding *f = html_first_failing(fs, policy);
	struct buf cut = BUF_INIT;
	char *t;

	if (f) {
		char *loc = html_loc(f->file, f->line);

		t = xasprintf("%s: %s in %s at %s%s; %zu finding(s) fail "
			      "--fail-on %s", finding_verdict_name(v),
			      html_str(f->crash_type, "crash"),
			      html_str(f->function, "?"), loc,
			      f->in_change ? " (a line this change added)" : "",
			      failing, policy);
		free(loc);
	} else
		t = xasprintf("%s: %zu finding(s), %zu failing --fail-on %s",
			      finding_verdict_name(v), fs->nr, failing,
			      policy);
	html_el_own(body, "p", v == VERDICT_PASS ? "verdict pass" :
		    "verdict fail", t);
	for (size_t i = 0; i < fs->summary.incomplete_nr; i++) {
		const struct finding_incomplete *e = &fs->summary.incomplete[i];

		if (f && run_cut_is_reason(e->reason)) {
			buf_printf(&cut, "%s%s (%.0fs of %.0fs)",
				   cut.len ? ", " : "", e->harness,
				   e->fuzzed_s, e->wanted_s);
			continue;
		}
		t = xasprintf("incomplete: harness %s fuzzed %.0fs of %.0fs: %s",
			      e->harness, e->fuzzed_s, e->wanted_s, e->reason);
		html_el_own(body, "p", "verdict fail", t);
	}
	if (cut.len)
		html_el_own(body, "p", "quiet", xasprintf("Fuzzed short after "
			    "the proof, as --after-finding %s intends: %s.",
			    fs->run_cut && fs->run_cut->policy ?
			    fs->run_cut->policy : "default", cut.ptr));
	buf_release(&cut);
}

static char *html_join(char *const *v, size_t nr)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < nr; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", html_str(v[i], "?"));
	return buf_detach(&b, NULL);
}

static void html_summary(xmlNodePtr body, const struct finding_set *fs,
			 const json_t *spend)
{
	const struct scan_summary *sm = &fs->summary;
	xmlNodePtr t;
	const json_t *crs = json_object_get(spend, "crs");	/* borrowed */
	const json_t *tot = json_object_get(spend, "totals");	/* borrowed */

	html_el(body, "h2", NULL, "Scan");
	t = html_el(body, "table", "summary", NULL);
	html_kv(t, "project", sm->project);
	if (sm->base || sm->head)
		html_kv_own(t, "change", xasprintf("%s..%s",
			    html_str(sm->base, "?"), html_str(sm->head, "?")));
	html_kv(t, "mode", sm->mode);
	html_kv_own(t, "duration", xasprintf("%.0fs%s", sm->duration_s,
		    sm->timed_out ? " (hit the deadline)" : ""));
	html_kv(t, "started", sm->started_at);
	html_kv(t, "finished", sm->finished_at);
	html_kv_own(t, "harnesses", html_join(sm->harnesses,
					       sm->harnesses_nr));
	html_kv_own(t, "PoVs", xasprintf("%zu submitted, %zu not reproduced",
		    sm->povs_submitted, sm->povs_not_reproduced));
	if (sm->private_findings) {
		struct buf line = BUF_INIT;

		disclose_public_line(&line, sm->private_findings);
		html_kv(t, "private findings", line.ptr);
		buf_release(&line);
	}
	if (fs->corpus) {
		struct buf line = BUF_INIT;

		run_corpus_line(&line, fs->corpus);
		if (line.len)
			html_kv(t, "corpus", line.ptr + strlen("corpus: "));
		buf_release(&line);
	}
	html_kv(t, "tool version", sm->tool_version);
	if (json_is_object(tot)) {
		double d = html_jnum(tot, "dollars");
		double n = html_jnum(tot, "requests");

		html_kv_own(t, "LLM spend", d < 0 ? xstrdup("-") :
			    xasprintf("$%.4f in %.0f request(s)", d,
				      n < 0 ? 0 : n));
	}
	if (!sm->crs_nr)
		return;
	html_el(body, "h2", NULL, "CRSs");
	t = html_el(body, "table", "crs", NULL);
	{
		xmlNodePtr tr = html_el(t, "tr", NULL, NULL);

		html_el(tr, "th", NULL, "CRS");
		html_el(tr, "th", NULL, "PoVs");
		html_el(tr, "th", NULL, "first PoV after");
		if (json_is_object(crs))
			html_el(tr, "th", NULL, "LLM spend");
	}
	for (size_t i = 0; i < sm->crs_nr; i++) {
		xmlNodePtr tr = html_el(t, "tr", NULL, NULL);

		html_el(tr, "td", NULL, html_str(sm->crs[i], "?"));
		html_el_own(tr, "td", NULL, sm->crs_povs ?
			    xasprintf("%zu", sm->crs_povs[i]) : xstrdup("-"));
		html_el_own(tr, "td", NULL, sm->crs_first_pov_s &&
			    sm->crs_first_pov_s[i] >= 0 ?
			    xasprintf("%.1fs", sm->crs_first_pov_s[i]) :
			    xstrdup("-"));
		if (json_is_object(crs)) {
			/* borrowed */
			const json_t *c = sm->crs[i] ?
				json_object_get(crs, sm->crs[i]) : NULL;
			double d = html_jnum(c, "dollars");
			double b = html_jnum(c, "budget_dollars");

			html_el_own(tr, "td", NULL, d < 0 ? xstrdup("-") :
				    b < 0 ? xasprintf("$%.4f", d) :
				    xasprintf("$%.4f of $%.2f", d, b));
		}
	}
}

static char *html_found_by(const struct finding *f)
{
	if (f->found_after_s >= 0)
		return xasprintf("%s after %.0fs", html_str(f->found_by, "?"),
				 f->found_after_s);
	return xstrdup(html_str(f->found_by, "?"));
}

static void html_findings_table(xmlNodePtr body, const struct finding_set *fs)
{
	static const char *const cols[] = { "novelty", "crash type",
		"function", "location", "reproduced", "found by", "harness" };
	xmlNodePtr t, tr;

	html_el(body, "h2", NULL, "Findings");
	if (!fs->nr) {
		html_el(body, "p", NULL, "No crash reproduced.");
		return;
	}
	t = html_el(body, "table", "findings", NULL);
	tr = html_el(t, "tr", NULL, NULL);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		html_el(tr, "th", NULL, cols[i]);
	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		char anchor[32];
		xmlNodePtr td, a;

		tr = html_el(t, "tr", NULL, NULL);
		html_el(tr, "td", NULL, html_label(f));
		td = html_el(tr, "td", NULL, NULL);
		a = html_el(td, "a", NULL, html_str(f->crash_type, "crash"));
		snprintf(anchor, sizeof(anchor), "#finding-%zu", i + 1);
		html_attr(a, "href", anchor);
		html_el(tr, "td", NULL, html_str(f->function, "?"));
		html_el_own(tr, "td", f->in_change ? "in-change" : NULL,
			    html_loc(f->file, f->line));
		html_el_own(tr, "td", NULL, xasprintf("%d/%d%s", f->reproduced,
			    f->attempts, f->reproduced < f->attempts ?
			    " (flaky)" : ""));
		html_el_own(tr, "td", NULL, html_found_by(f));
		html_el(tr, "td", NULL, html_str(f->harness, "?"));
	}
}

static void html_stack(xmlNodePtr parent, const struct finding *f)
{
	xmlNodePtr ol;
	size_t shown = 0;

	if (!f->stack_nr)
		return;
	html_el(parent, "h4", NULL, "Stack (innermost first)");
	ol = html_el(parent, "ol", "stack", NULL);
	html_attr(ol, "start", "0");
	for (size_t i = 0; i < f->stack_nr && shown < HTML_STACK_MAX;
	     i++, shown++) {
		const struct finding_frame *fr = &f->stack[i];
		const char *cls = fr->in_change ?
			(fr->in_project ? "frame in-project in-change" :
			 "frame in-change") :
			(fr->in_project ? "frame in-project" : "frame");
		xmlNodePtr li = html_el(ol, "li", cls, NULL);

		html_el(li, "code", NULL, html_str(fr->func, "??"));
		if (fr->file) {
			char *loc = html_loc(fr->file, fr->line);

			html_text(li, " ");
			html_el_own(li, "span", "file", loc);
		}
		if (fr->in_change)
			html_text(li, " (a line this change touched)");
	}
	if (f->stack_nr > shown)
		html_el_own(parent, "p", NULL, xasprintf("... %zu more "
			    "frame(s)", f->stack_nr - shown));
}

static void html_excerpt(xmlNodePtr parent, const struct finding *f,
			 const char *out_dir)
{
	struct buf b = BUF_INIT;
	int truncated = 0;

	if (!f->report_path)
		return;
	html_el_own(parent, "h4", NULL, xasprintf("Sanitizer report (%s)",
		    f->report_path));
	if (out_file_head(&b, out_dir, f->report_path, HTML_EXCERPT_MAX,
			  &truncated, NULL) != 0) {
		html_el(parent, "p", NULL, "(not readable)");
		goto out;
	}
	if (truncated)
		buf_printf(&b, "\n[... truncated at %u bytes]\n",
			   HTML_EXCERPT_MAX);
	html_el(parent, "pre", "report", b.ptr);
out:
	buf_release(&b);
}

/* "Coverage of the change": the summary line and every range not
 * reached. Nothing in full mode. */
static void html_change_cov(xmlNodePtr body, const struct change_cov *c)
{
	struct buf b = BUF_INIT;
	xmlNodePtr ul;
	size_t n;

	if (!c)
		return;
	html_el(body, "h2", NULL, "Coverage of the change");
	change_cov_line(&b, c);
	html_el(body, "p", "change-coverage", b.ptr);
	buf_release(&b);
	if (c->unknown || !c->not_reached_nr)
		return;
	html_el(body, "p", NULL, "Changed lines no fuzzing input executed:");
	ul = html_el(body, "ul", "not-reached", NULL);
	n = c->not_reached_nr < HTML_RANGES_MAX ? c->not_reached_nr :
		HTML_RANGES_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct change_cov_range *r = &c->not_reached[i];

		html_el_own(html_el(ul, "li", NULL, NULL), "code", NULL,
			    r->start == r->end ?
			    xasprintf("%s:%d", r->file, r->start) :
			    xasprintf("%s:%d-%d", r->file, r->start, r->end));
	}
	if (c->not_reached_nr > n)
		html_el_own(body, "p", NULL, xasprintf("... and %zu more "
			    "range(s) in results.json", c->not_reached_nr - n));
}

/*
 * One excerpt of change-lines.json: {"file", "line", "first", "lines":
 * [text...], "changed": [line numbers]}, as numbered lines, the changed
 * ones marked "+", the crash line ">". A malformed excerpt is skipped.
 */
static void html_excerpt_lines(xmlNodePtr parent, const json_t *e)
{
	/* borrowed */
	const char *file = json_string_value(json_object_get(e, "file"));
	const json_t *text = json_object_get(e, "lines");
	json_int_t line = json_integer_value(json_object_get(e, "line"));
	json_int_t first = json_integer_value(json_object_get(e, "first"));
	const char *role = json_string_value(json_object_get(e, "role"));
	int is_anchor = role && !strcmp(role, "anchor");
	xmlNodePtr pre;
	size_t n = json_array_size(text);

	if (!file || !json_is_array(text) || !n || first < 1 || line < 1 ||
	    first > INT32_MAX - HTML_SNIPPET_LINES)
		return;
	if (n > HTML_SNIPPET_LINES)
		n = HTML_SNIPPET_LINES;
	html_el_own(parent, "p", NULL, xasprintf("%s:%lld%s", file,
		    (long long)line, is_anchor ? ": the changed line the PoV "
		    "executed nearest the crash ('*')" : role &&
		    !strcmp(role, "crash") ? ": the crash" : ""));
	pre = html_el(parent, "pre", "snippet", NULL);
	for (size_t i = 0; i < n; i++) {
		json_int_t no = first + (json_int_t)i;
		const char *t = json_string_value(json_array_get(text, i));
		char mark = change_lines_mark(e, no);

		html_el_own(pre, "span", mark == '>' ? "crash" :
			    mark == '*' ? "anchor" : mark == '+' ? "changed" :
			    NULL, xasprintf("%c%5lld  %s", mark, (long long)no,
			    t ? t : ""));
		html_text(pre, "\n");
	}
}

/* The changed lines around the finding's in-change frames. */
static void html_change_lines(xmlNodePtr parent, const struct finding *f,
			      const json_t *excerpts, size_t max)
{
	/* borrowed */
	const json_t *a = f->id ? json_object_get(excerpts, f->id) : NULL;
	size_t i;
	json_t *e;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	html_el(parent, "h4", NULL, "Changed lines around the crash ('>' "
		"the crash or the frame's line, '+' lines this change added)");
	json_array_foreach(a, i, e) {
		if (i == max)
			break;
		html_excerpt_lines(parent, e);
	}
}

/*
 * The proof of finding i at the top of the page: the crash and where the
 * change led to it, the changed lines, the PoV's first bytes and the one
 * command that reproduces it; the details stay in its section below.
 */
static void html_proof(xmlNodePtr body, const struct finding_set *fs,
		       size_t i, const char *out_dir, const json_t *excerpts)
{
	const struct finding *f = &fs->items[i];
	xmlNodePtr div = html_el(body, "div", "proof", NULL), p;
	struct buf dump = BUF_INIT;
	size_t size = 0;
	char *cmd = pov_reproduce_cmd(&fs->summary, f, out_dir), *loc, *link;

	html_el_own(div, "h2", NULL, xasprintf("[%s] %s in %s",
		    html_label(f), html_str(f->crash_type, "crash"),
		    html_str(f->function, "?")));
	loc = html_loc(f->file, f->line);
	html_el_own(div, "p", NULL, f->anchor ? xasprintf("at %s: %s", loc,
		    change_anchor_moved(f->anchor) ? "the PoV ran a changed "
		    "line on the way (below)" :
		    change_anchor_how_text(f->anchor)) :
		    xasprintf("at %s", loc));
	free(loc);
	html_change_lines(div, f, excerpts, 1);
	if (f->pov_path && pov_preview(&dump, out_dir, f->pov_path,
				       POV_PREVIEW_BYTES, "", &size) == 0) {
		html_el_own(div, "h4", NULL, size > POV_PREVIEW_BYTES ?
			    xasprintf("The PoV: %zu bytes, the first %u shown "
				      "(%s)", size, POV_PREVIEW_BYTES,
				      f->pov_path) :
			    xasprintf("The PoV: %zu byte(s) (%s)", size,
				      f->pov_path));
		html_el(div, "pre", "hex", dump.ptr);
	}
	buf_release(&dump);
	if (cmd) {
		html_el(div, "h4", NULL, "Reproduce it on the head build");
		html_el_own(div, "pre", NULL, cmd);
	}
	p = html_el(div, "p", NULL, NULL);
	link = xasprintf("#finding-%zu", i + 1);
	html_attr(html_el(p, "a", NULL, "The stack, the sanitizer report "
			  "and the rest"), "href", link);
	free(link);
}

static void html_finding(xmlNodePtr body, const struct finding_set *fs,
			 size_t i, const char *out_dir,
			 const json_t *excerpts)
{
	const struct finding *f = &fs->items[i];
	const struct scan_summary *sm = &fs->summary;
	xmlNodePtr div = html_el(body, "div", "finding", NULL), t;
	char anchor[32], *cmd;

	snprintf(anchor, sizeof(anchor), "finding-%zu", i + 1);
	html_attr(div, "id", anchor);
	html_el_own(div, "h3", NULL, xasprintf("[%s] %s in %s",
		    html_label(f), html_str(f->crash_type, "crash"),
		    html_str(f->function, "?")));
	if (f->description)
		html_el(div, "p", NULL, f->description);
	t = html_el(div, "table", NULL, NULL);
	html_kv(t, "id", f->id);
	html_kv_own(t, "location", html_loc(f->file, f->line));
	if (f->anchor)
		html_kv_own(t, "change anchor", change_anchor_moved(f->anchor) ?
			    xasprintf("%s:%d: %s", f->anchor->file,
				      f->anchor->line,
				      change_anchor_how_text(f->anchor)) :
			    xstrdup(change_anchor_how_text(f->anchor)));
	html_kv(t, "harness", f->harness);
	html_kv(t, "sanitizer", f->sanitizer);
	html_kv_own(t, "reproduced", xasprintf("%d of %d run(s)",
		    f->reproduced, f->attempts));
	html_kv_own(t, "found by", html_found_by(f));
	html_kv(t, "PoV", f->pov_path);
	if (f->novelty && !strcmp(f->novelty, "fixed-by-change"))
		html_kv(t, "note", "it crashes the base build, not the head: "
			"fixed by this change");
	else if ((cmd = pov_reproduce_cmd(sm, f, out_dir)))
		html_kv_own(t, "reproduce", cmd);
	if (f->fixed_by_nr) {
		struct buf b = BUF_INIT;

		for (size_t k = 0; k < f->fixed_by_nr; k++)
			buf_printf(&b, "%s%.12s", k ? ", " : "",
				   html_str(f->fixed_by[k], "?"));
		html_kv(t, "fixed by patch(es)", b.ptr);
		buf_release(&b);
	}
	html_stack(div, f);
	html_change_lines(div, f, excerpts, HTML_SNIPPETS_MAX);
	html_excerpt(div, f, out_dir);
}

/* The diff, each line a span: add, del, hunk, meta or ctx. */
static void html_diff(xmlNodePtr parent, const char *diff)
{
	xmlNodePtr pre = html_el(parent, "pre", "diff", NULL);
	size_t len = strlen(diff), shown = len > HTML_DIFF_MAX ?
		HTML_DIFF_MAX : len, i = 0;

	while (i < shown) {
		size_t n = strcspn(diff + i, "\n");
		char *line;
		const char *cls = "ctx";

		if (i + n > shown)
			n = shown - i;
		line = xstrndup(diff + i, n);
		if (!strncmp(line, "+++", 3) || !strncmp(line, "---", 3) ||
		    !strncmp(line, "diff ", 5) || !strncmp(line, "index ", 6))
			cls = "meta";
		else if (line[0] == '+')
			cls = "add";
		else if (line[0] == '-')
			cls = "del";
		else if (!strncmp(line, "@@", 2))
			cls = "hunk";
		html_el_own(pre, "span", cls, line);
		html_text(pre, "\n");
		i += n + 1;
	}
	if (len > shown)
		html_el_own(pre, "span", "meta", xasprintf("[... %zu more "
			    "byte(s)]", len - shown));
}

static void html_patches(xmlNodePtr body, const struct finding_set *fs)
{
	size_t ok = 0;
	xmlNodePtr t = NULL;

	if (!fs->patches_nr)
		return;
	for (size_t i = 0; i < fs->patches_nr; i++)
		ok += fs->patches[i].validated != 0;
	html_el(body, "h2", NULL, "Patches");
	html_el_own(body, "p", NULL, xasprintf("%zu submitted, %zu validated "
		    "by crs-ci (policy, apply, build, every PoV, tests, "
		    "re-fuzz)", fs->patches_nr, ok));
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];
		struct buf b = BUF_INIT;
		xmlNodePtr div;

		if (!p->validated)
			continue;
		div = html_el(body, "div", "patch validated", NULL);
		html_el_own(div, "h3", NULL, xasprintf("%s from %s",
			    html_str(p->path, "?"), html_str(p->crs, "?")));
		for (size_t k = 0; k < p->fixes_nr; k++)
			buf_printf(&b, "%s%s", k ? ", " : "",
				   html_str(p->fixes[k], "?"));
		for (size_t k = 0; k < p->steps_nr; k++)
			buf_printf(&b, "%s%s: %s", k ? "; " : (b.len ?
				   " (" : "("), html_str(p->steps[k].name, "?"),
				   html_str(p->steps[k].verdict, "?"));
		if (p->steps_nr)
			buf_addch(&b, ')');
		html_el_own(div, "p", NULL, xasprintf("fixes %s", b.ptr));
		buf_release(&b);
		if (p->diff)
			html_diff(div, p->diff);
	}
	if (ok == fs->patches_nr)
		return;
	html_el(body, "h3", NULL, "Rejected patches");
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];
		const char *step = p->failed_step, *detail = NULL;
		xmlNodePtr tr;
		char *failure;

		if (p->validated)
			continue;
		if (!t) {
			t = html_el(body, "table", "rejected", NULL);
			tr = html_el(t, "tr", NULL, NULL);
			html_el(tr, "th", NULL, "patch");
			html_el(tr, "th", NULL, "CRS");
			html_el(tr, "th", NULL, "step");
			html_el(tr, "th", NULL, "why");
		}
		for (size_t k = 0; k < p->steps_nr; k++) {
			const struct finding_patch_step *st = &p->steps[k];

			if ((step && st->name && !strcmp(st->name, step)) ||
			    (!step && st->verdict &&
			     !strcmp(st->verdict, "skipped"))) {
				step = st->name;
				detail = st->detail;
				break;
			}
		}
		tr = html_el(t, "tr", NULL, NULL);
		html_el_own(tr, "td", NULL, xasprintf("%.12s",
			    html_str(p->sha256, "?")));
		html_el(tr, "td", NULL, html_str(p->crs, "?"));
		html_el_own(tr, "td", NULL, xasprintf("%s %s",
			    html_str(step, "?"), p->failed_step ? "failed" :
			    "skipped"));
		failure = junit_text_clean(p->failure ? p->failure : detail,
					   HTML_FAILURE_MAX);
		html_el(html_el(tr, "td", NULL, NULL), "pre", "failure",
			failure);
		free(failure);
	}
}

/*
 * The page as a libxml2 HTML document (free with xmlFreeDoc). `out_dir`
 * (may be NULL) is where the sanitizer reports (report_path, relative;
 * only regular files, no symlink, no ".."), llm-spend.json,
 * change-lines.json and results.json's "timings" are read;
 * a missing or malformed file is left out. Every string is made valid
 * UTF-8 without control characters first. Cannot fail (out-of-memory
 * exits).
 */
static struct _xmlDoc *html_build(const struct finding_set *fs, const char *out_dir)
{
	const struct scan_summary *sm = &fs->summary;
	const char *policy = sm->fail_on ? sm->fail_on : "new";
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	xmlNodePtr html = xmlNewNode(NULL, BAD_CAST "html");
	xmlNodePtr head, body, meta;
	json_t *spend = html_json_load(out_dir, "llm-spend.json",
				       HTML_SPEND_MAX);
	json_t *results = html_json_load(out_dir, "results.json",
					 FINDING_RESULTS_MAX);
	json_t *lines = html_json_load(out_dir, HTML_CHANGE_LINES_NAME,
				       HTML_LINES_MAX);
	/* borrowed */
	const json_t *excerpts = json_object_get(lines, "findings");

	/* libxml2 returns NULL only when out of memory; its functions
	 * accept NULL nodes, and html_report_write() then fails cleanly */
	xmlCreateIntSubset(doc, BAD_CAST "html", NULL, NULL);
	xmlDocSetRootElement(doc, html);
	html_attr(html, "lang", "en");
	head = html_el(html, "head", NULL, NULL);
	meta = html_el(head, "meta", NULL, NULL);
	html_attr(meta, "charset", "utf-8");
	html_el_own(head, "title", NULL, xasprintf("crs-ci: %s",
		    html_str(sm->project, "scan")));
	/* constant CSS: <style> is raw text, so nothing variable goes here */
	xmlNewChild(head, NULL, BAD_CAST "style", BAD_CAST html_css);
	body = html_el(html, "body", NULL, NULL);
	html_el_own(body, "h1", NULL, xasprintf("crs-ci report: %s",
		    html_str(sm->project, "scan")));
	html_verdict(body, fs, policy);
	/* the proof first: every failing finding's, up to HTML_PROOFS_MAX */
	for (size_t i = 0, shown = 0; i < fs->nr && shown < HTML_PROOFS_MAX;
	     i++)
		if (finding_fails_policy(&fs->items[i], policy)) {
			html_proof(body, fs, i, out_dir, excerpts);
			shown++;
		}
	html_summary(body, fs, spend);
	html_change_cov(body, fs->change_coverage);
	/* borrowed */
	html_timeline(body, json_object_get(results, "timings"),
		      fs->run_cut, fs->saturation);
	html_findings_table(body, fs);
	for (size_t i = 0; i < fs->nr; i++)
		html_finding(body, fs, i, out_dir, excerpts);
	html_patches(body, fs);
	json_decref(spend);
	json_decref(results);
	json_decref(lines);
	return doc;
}

int html_report_write(const struct finding_set *fs, const char *out_dir)
{
	xmlDocPtr doc = html_build(fs, out_dir);
	char *path = xasprintf("%s/%s", out_dir, HTML_REPORT_NAME);
	xmlChar *mem = NULL;
	int len = 0, r = CRS_ERR;

	htmlDocDumpMemoryFormat(doc, &mem, &len, 1);
	if (!mem || len <= 0) {
		r = crs_error_set(CRS_ERR, "%s: cannot serialise the HTML "
				  "report", path);
		goto out;
	}
	r = fs_write_file_atomic(path, mem, (size_t)len);
out:
	xmlFree(mem);
	xmlFreeDoc(doc);
	free(path);
	return r;
}
