/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_write.c - SARIF 2.1.0 for GitHub code scanning from a finding set
 *
 * Rules, results, code flows, fingerprints (line_hash.c) and fixes;
 * source files are read only to hash lines, never copied into the log.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "sarif/sarif_write.h"
#include "sarif/line_hash.h"
#include "sarif/sarif_json.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/cwe.h"
#include "sarif/finding.h"
#include "common/safe_io.h"
#include "common/utf8.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <git2.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LIBFUZZER_DOC_URI "https://llvm.org/docs/LibFuzzer.html"

/* --- reading sources, confined to the source root ---------------------- */

struct src_cache {
	char *root;		/* realpath of the source root, or NULL */
	char *rel;		/* the file held in `data` */
	struct buf data;
	int ok;
};

static const struct buf *source_get(struct src_cache *c, const char *rel)
{
	char *path = NULL, *real = NULL;
	struct stat st;
	size_t n;

	if (!c->root || !rel)
		return NULL;
	if (c->rel && !strcmp(c->rel, rel))
		return c->ok ? &c->data : NULL;
	free(c->rel);
	c->rel = xstrdup(rel);
	buf_reset(&c->data);
	c->ok = 0;
	if (!safe_relpath_ok(rel))
		return NULL;
	path = xasprintf("%s/%s", c->root, rel);
	real = realpath(path, NULL);
	n = strlen(c->root);
	if (real && !strncmp(real, c->root, n) && real[n] == '/' &&
	    stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	    fs_read_file(&c->data, real, SARIF_SOURCE_MAX) == 0)
		c->ok = 1;
	else
		crs_error_clear();	/* no hash is not an error */
	free(real);
	free(path);
	return c->ok ? &c->data : NULL;
}

static void count_unit(void *ctx, uint32_t unit)
{
	(void)unit;
	(*(int *)ctx)++;
}

/*
 * The UTF-16 column of byte column `col` (1-based, as sanitizers print
 * it) on line `line`; `col` itself when the line is not in the file.
 */
static int utf16_column(const struct buf *src, int line, int col)
{
	const char *p = src->ptr, *end = src->ptr + src->len;
	int units = 0;

	for (int l = 1; l < line && p < end; p++) {
		if (*p == '\n' || (*p == '\r' && (p + 1 == end ||
						  p[1] != '\n')))
			l++;
	}
	if (p >= end || (size_t)(end - p) < (size_t)col - 1)
		return col;
	if (memchr(p, '\n', (size_t)col - 1))
		return col;
	utf8_to_utf16(p, (size_t)col - 1, count_unit, &units);
	return units + 1;
}

/* --- building blocks --------------------------------------------------- */

/* Where a location points: a repo-relative or an absolute file. */
struct where {
	const char *file;
	int relative;		/* under %SRCROOT% */
	int line, column;
	const char *function;
};

static json_t *physical_location(const struct where *w,
				 struct src_cache *src)
{
	char *esc = sarif_uri_escape(w->file);
	char *uri = w->relative || w->file[0] != '/' ? esc :
		xasprintf("file://%s", esc);
	json_t *art = json_pack("{s:s}", "uri", uri);
	json_t *pl = json_object();

	if (uri != esc)
		free(uri);
	free(esc);
	if (w->relative)
		json_object_set_new(art, "uriBaseId", json_string("%SRCROOT%"));
	json_object_set_new(pl, "artifactLocation", art);
	if (w->line > 0) {
		json_t *region = json_pack("{s:i}", "startLine", w->line);
		const struct buf *text = w->relative ?
			source_get(src, w->file) : NULL;

		if (w->column > 0)
			json_object_set_new(region, "startColumn",
				json_integer(text ? utf16_column(text, w->line,
					w->column) : w->column));
		json_object_set_new(region, "endLine", json_integer(w->line));
		json_object_set_new(pl, "region", region);
	}
	return pl;
}

static json_t *location(const struct where *w, struct src_cache *src,
			const char *message)
{
	json_t *loc = json_object();

	if (w->file)
		json_object_set_new(loc, "physicalLocation",
				    physical_location(w, src));
	if (w->function)
		json_object_set_new(loc, "logicalLocations",
			json_pack("[{s:o,s:s}]", "name", sarif_jstr(w->function),
				  "kind", "function"));
	if (message)
		json_object_set_new(loc, "message", sarif_jmsg(message));
	return loc;
}

static struct where frame_where(const struct finding_frame *fr)
{
	struct where w = { 0 };

	w.file = fr->file;
	w.relative = fr->in_project && fr->file && fr->file[0] != '/';
	if (w.file && !w.relative && w.file[0] != '/')
		w.file = NULL;	/* "csu/../libc-start.c" names no file */
	w.line = fr->line;
	w.column = fr->column;
	w.function = fr->func;
	return w;
}

static char *frame_text(const struct finding_frame *fr)
{
	const char *fn = fr->func ? fr->func : "??";

	if (fr->file && fr->line > 0)
		return xasprintf("%s (%s:%d)", fn, fr->file, fr->line);
	if (fr->file)
		return xasprintf("%s (%s)", fn, fr->file);
	return xstrdup(fn);
}

/*
 * The primary location: the finding's own (its top in-project frame),
 * else the harness's frame, else any in-project frame, else the first
 * frame whose relative file exists under the source root (UBSan prints
 * "parse.c:41:11" relative to the build directory), else the first frame
 * with an absolute file. 0 when there is none: GitHub rejects a whole
 * upload when one result has no location, so such findings are left out.
 */
static int primary_where(struct where *w, const struct finding *f,
			 struct src_cache *src)
{
	const struct finding_frame *pick = NULL;
	size_t i;

	memset(w, 0, sizeof(*w));
	if (f->file) {
		w->file = f->file;
		w->relative = f->file[0] != '/';
		w->line = f->line;
		w->column = f->column;
		w->function = f->function;
		return 1;
	}
	for (i = 0; !pick && i < f->stack_nr; i++)
		if (f->stack[i].in_project && f->stack[i].file &&
		    f->stack[i].func &&
		    !strcmp(f->stack[i].func, "LLVMFuzzerTestOneInput"))
			pick = &f->stack[i];
	for (i = 0; !pick && i < f->stack_nr; i++)
		if (f->stack[i].in_project && f->stack[i].file)
			pick = &f->stack[i];
	if (pick) {
		*w = frame_where(pick);
		w->relative = pick->file[0] != '/';
		return 1;
	}
	for (i = 0; i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];

		if (fr->file && fr->file[0] != '/' &&
		    source_get(src, fr->file)) {
			*w = frame_where(fr);
			w->file = fr->file;
			w->relative = 1;
			return 1;
		}
	}
	for (i = 0; i < f->stack_nr; i++) {
		if (f->stack[i].file && f->stack[i].file[0] == '/') {
			*w = frame_where(&f->stack[i]);
			return 1;
		}
	}
	return 0;
}

/* --- rules -------------------------------------------------------------- */

struct rule_list {
	const struct cwe_rule **v;
	size_t nr, alloc;
};

static size_t rule_index(struct rule_list *l, const struct cwe_rule *rule)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i] == rule)
			return i;
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr] = rule;
	return l->nr++;
}

static json_t *rule_json(const struct cwe_rule *c)
{
	json_t *tags = json_array(), *props, *rule;
	struct buf text = BUF_INIT, md = BUF_INIT;

	/* only memory-safety classes are security alerts on GitHub */
	if (c->is_security)
		json_array_append_new(tags, json_string("security"));
	else
		json_array_append_new(tags, json_string("reliability"));
	if (c->cwe)
		json_array_append_new(tags, json_sprintf("external/cwe/cwe-%d",
							 c->cwe));
	if (c->cwe_extra)
		json_array_append_new(tags, json_sprintf("external/cwe/cwe-%d",
							 c->cwe_extra));
	json_array_append_new(tags, json_string("fuzzing"));
	props = json_pack("{s:o,s:s}", "tags", tags, "precision", "very-high");
	if (c->is_security)
		json_object_set_new(props, "security-severity",
				    json_string(c->severity));
	else
		json_object_set_new(props, "problem.severity",
				    json_string("error"));

	buf_printf(&text, "%s\n\ncrs-ci reports this only with proof: a "
		   "crash input (PoV) that reproduced this crash on the "
		   "changed code. Run the harness on the PoV to reproduce "
		   "it, fix the code, and run it again.", c->description);
	buf_printf(&md, "%s\n\ncrs-ci reports this only with proof: a crash "
		   "input (PoV) that reproduced this crash on the changed "
		   "code. Run the harness on the PoV to reproduce it, fix the "
		   "code, and run it again.", c->description);
	if (c->cwe) {
		buf_printf(&text, "\n\nCWE-%d: https://cwe.mitre.org/data/"
			   "definitions/%d.html", c->cwe, c->cwe);
		buf_printf(&md, "\n\nSee [CWE-%d](https://cwe.mitre.org/data/"
			   "definitions/%d.html)", c->cwe, c->cwe);
		if (c->cwe_extra)
			buf_printf(&md, " and [CWE-%d](https://cwe.mitre.org/"
				   "data/definitions/%d.html)", c->cwe_extra,
				   c->cwe_extra);
		buf_addch(&md, '.');
	}
	rule = json_pack("{s:s,s:s,s:{s:s},s:{s:s},s:{s:s,s:s},s:{s:s},s:o}",
			 "id", c->rule_id, "name", c->name,
			 "shortDescription", "text", c->title,
			 "fullDescription", "text", c->description,
			 "help", "text", text.ptr, "markdown", md.ptr,
			 "defaultConfiguration", "level", "error",
			 "properties", props);
	if (c->cwe)
		json_object_set_new(rule, "helpUri", json_sprintf(
			"https://cwe.mitre.org/data/definitions/%d.html",
			c->cwe));
	else
		json_object_set_new(rule, "helpUri",
				    json_string(LIBFUZZER_DOC_URI));
	buf_release(&text);
	buf_release(&md);
	return rule;
}

/* --- results ------------------------------------------------------------ */

static const char *baseline_state(const char *novelty)
{
	if (!novelty)
		return NULL;
	if (!strcmp(novelty, "new"))
		return "new";
	if (!strcmp(novelty, "pre-existing"))
		return "unchanged";
	if (!strcmp(novelty, "changed"))
		return "updated";
	if (!strcmp(novelty, "fixed-by-change"))
		return "absent";
	return NULL;
}

/*
 * error: a proved bug that is new or whose novelty is unknown; warning:
 * pre-existing, or flaky (it did not crash on every run: reported with its
 * rate, never dropped); note: a bug the change fixed.
 */
static const char *result_level(const struct finding *f)
{
	if (f->novelty && !strcmp(f->novelty, "fixed-by-change"))
		return "note";
	if (f->attempts > 0 && f->reproduced < f->attempts)
		return "warning";
	if (f->novelty && !strcmp(f->novelty, "pre-existing"))
		return "warning";
	return "error";
}

static void message_text(struct buf *b, const struct finding *f,
			 const struct where *w, int has_related)
{
	const char *type = f->crash_type ? f->crash_type : "Crash";

	if (w->file && w->function && w->line > 0)
		buf_printf(b, "%s in %s (%s:%d)", type, w->function, w->file,
			   w->line);
	else if (w->file && w->line > 0)
		buf_printf(b, "%s at %s:%d", type, w->file, w->line);
	else if (f->harness)
		buf_printf(b, "%s in harness %s", type, f->harness);
	else
		buf_adds(b, type);
	if (f->attempts > 0 && f->reproduced < f->attempts)
		buf_printf(b, ", by a PoV that reproduced only %d/%d times "
			   "(flaky).", f->reproduced, f->attempts);
	else if (f->attempts > 0)
		buf_printf(b, ", proved by a PoV that reproduced %d/%d times.",
			   f->reproduced, f->attempts);
	else
		buf_adds(b, ", proved by a PoV.");
	if (!f->novelty && f->in_change)
		buf_adds(b, " It crashes on a line this change modified.");
	else if (f->novelty && !strcmp(f->novelty, "new"))
		buf_adds(b, " New in this change: the base version does not "
			 "crash on the PoV.");
	else if (f->novelty && !strcmp(f->novelty, "pre-existing"))
		buf_adds(b, " Pre-existing: the base version crashes the same "
			 "way.");
	else if (f->novelty && !strcmp(f->novelty, "changed"))
		buf_adds(b, " Changed by this change: the base version crashes "
			 "differently.");
	else if (f->novelty && !strcmp(f->novelty, "fixed-by-change"))
		buf_adds(b, " Fixed by this change: the head no longer "
			 "crashes on the PoV.");
	if (has_related)
		buf_adds(b, " The stack passes through [a line this change "
			 "modified](1).");
	if (f->found_by && f->harness)
		buf_printf(b, " Found by %s with harness %s.", f->found_by,
			   f->harness);
	else if (f->harness && w->file)
		buf_printf(b, " Harness: %s.", f->harness);
}

/* "<sarif file>#<index>: <ruleId>" of each --sarif candidate f confirms. */
static json_t *confirmed_candidates(const struct finding *f,
				    const struct finding_set *s)
{
	json_t *a = json_array();

	for (size_t i = 0; f->id && i < s->candidates_nr; i++) {
		const struct finding_candidate *k = &s->candidates[i];
		char *text;

		if (!k->status || strcmp(k->status, "confirmed") ||
		    !k->finding_id || strcmp(k->finding_id, f->id))
			continue;
		text = k->rule_id ? xasprintf("%s#%zu: %s", k->source ?
					      k->source : "?", k->index,
					      k->rule_id) :
			xasprintf("%s#%zu", k->source ? k->source : "?",
				  k->index);
		json_array_append_new(a, sarif_jstr(text));
		free(text);
	}
	return a;
}

static json_t *result_properties(const struct finding *f,
				 const struct finding_set *s)
{
	json_t *p = json_object(), *cands = confirmed_candidates(f, s);

	if (f->novelty)
		json_object_set_new(p, "novelty", sarif_jstr(f->novelty));
	if (f->pov_sha256)
		json_object_set_new(p, "povSha256", sarif_jstr(f->pov_sha256));
	if (f->pov_path)
		json_object_set_new(p, "povPath", sarif_jstr(f->pov_path));
	json_object_set_new(p, "reproduceRate", json_sprintf("%d/%d",
			    f->reproduced, f->attempts));
	if (f->harness)
		json_object_set_new(p, "harness", sarif_jstr(f->harness));
	if (f->harnesses_nr) {
		json_t *a = json_array();

		for (size_t i = 0; i < f->harnesses_nr; i++)
			json_array_append_new(a, sarif_jstr(f->harnesses[i]));
		json_object_set_new(p, "harnesses", a);
	}
	if (f->povs_nr)
		json_object_set_new(p, "povs", finding_povs_to_json(f));
	if (f->crash_type)
		json_object_set_new(p, "crashType", sarif_jstr(f->crash_type));
	if (f->kind)
		json_object_set_new(p, "kind", sarif_jstr(f->kind));
	if (f->sanitizer)
		json_object_set_new(p, "sanitizer", sarif_jstr(f->sanitizer));
	if (f->found_by)
		json_object_set_new(p, "foundBy", sarif_jstr(f->found_by));
	if (f->found_after_s >= 0)
		json_object_set_new(p, "foundAfterSeconds",
				    json_real(f->found_after_s));
	json_object_set_new(p, "duplicates", json_integer(
		f->duplicates > INT_MAX ? INT_MAX : (json_int_t)f->duplicates));
	json_object_set_new(p, "inChange", json_boolean(f->in_change));
	json_object_set_new(p, "isSecurity", json_boolean(f->is_security));
	if (f->signature)
		json_object_set_new(p, "crashSignature", sarif_jstr(f->signature));
	if (f->report_path)
		json_object_set_new(p, "reportPath", sarif_jstr(f->report_path));
	if (json_array_size(cands))
		json_object_set_new(p, "confirmsCandidates", cands);
	else
		json_decref(cands);
	return p;
}

/* The stack as a thread flow, outermost first; NULL when none is usable. */
static json_t *code_flows(const struct finding *f, struct src_cache *src)
{
	json_t *locs = json_array();
	size_t top = f->stack_nr;
	int order = 0;

	for (size_t i = 0; top == f->stack_nr && i < f->stack_nr; i++)
		if (frame_where(&f->stack[i]).relative)
			top = i;
	for (size_t i = f->stack_nr; i-- > 0; ) {
		const struct finding_frame *fr = &f->stack[i];
		struct where w = frame_where(fr);
		char *text, *where;
		json_t *tfl;

		if (!fr->in_project || !w.relative)
			continue;
		where = frame_text(fr);
		if (i == top)
			text = xasprintf("%s in %s", f->crash_type ?
					 f->crash_type : "Crash", where);
		else
			text = xasprintf("in %s", where);
		free(where);
		tfl = json_pack("{s:o,s:i,s:i}", "location",
				location(&w, src, text), "nestingLevel", order,
				"executionOrder", order + 1);
		free(text);
		json_array_append_new(locs, tfl);
		order++;
	}
	if (!order) {
		json_decref(locs);
		return NULL;
	}
	return json_pack("[{s:o,s:[{s:o}]}]", "message",
			 sarif_jmsg("Crashing stack, outermost call first"),
			 "threadFlows", "locations", locs);
}

static json_t *stacks(const struct finding *f, struct src_cache *src)
{
	json_t *frames = json_array();

	for (size_t i = 0; i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];
		struct where w = frame_where(fr);
		char *text = frame_text(fr);

		if (!w.relative)
			w.file = NULL;	/* outside the repository */
		json_array_append_new(frames, json_pack("{s:o}", "location",
					location(&w, src, text)));
		free(text);
	}
	return json_pack("[{s:o,s:o}]", "message",
			 sarif_jmsg("Crashing stack, innermost frame first"),
			 "frames", frames);
}

static json_t *related_locations(const struct finding *f,
				 struct src_cache *src)
{
	json_t *a = json_array();
	int id = 1;

	for (size_t i = 0; i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];
		struct where w = frame_where(fr);
		char *text;
		json_t *loc;

		if (!fr->in_change || !fr->in_project || !w.relative)
			continue;
		text = xasprintf("Line modified by this change, in %s",
				 fr->func ? fr->func : "??");
		loc = location(&w, src, text);
		json_object_set_new(loc, "id", json_integer(id++));
		json_array_append_new(a, loc);
		free(text);
	}
	return a;
}

/*
 * A moved change anchor (sarif/change_anchor.h) as the primary location:
 * one line, the changed line the PoV executed nearest the crash. GitHub
 * shows an alert on a pull request only when every line of the primary
 * region is a changed line.
 */
static json_t *anchor_location(const struct change_anchor *a,
			       struct src_cache *src)
{
	struct where w = { a->file, 1, a->line, 0, a->function };

	return location(&w, src, change_anchor_how_text(a));
}

/*
 * The message's first sentence for a moved anchor, and the crash site
 * as a related location it links to; the fingerprints stay on the crash
 * site, so a re-run that picks another anchor is the same alert.
 */
static void anchor_lead(struct buf *msg, const struct finding *f,
			const struct where *crash, json_t *related,
			struct src_cache *src)
{
	int id = (int)json_array_size(related) + 1;
	json_t *loc;

	loc = location(crash, src, "Crash site");
	json_object_set_new(loc, "id", json_integer(id));
	json_array_append_new(related, loc);
	change_anchor_lead_text(msg, f, 1);
	buf_printf(msg, " ([crash site](%d)). ", id);
}

/* The result for a finding, or NULL when it has no location at all. */
static json_t *result_json(const struct finding *f, struct rule_list *rules,
			   struct src_cache *src, const struct finding_set *s)
{
	json_t *fixes;
	const struct cwe_rule *rule = cwe_rule_for(f->crash_type);
	json_t *res, *fp, *related, *flows;
	struct buf msg = BUF_INIT;
	struct where w;
	const char *bs;
	size_t rule_idx;
	int changed_frames;

	if (!primary_where(&w, f, src))
		return NULL;
	rule_idx = rule_index(rules, rule);
	related = related_locations(f, src);
	changed_frames = json_array_size(related) > 0;
	if (change_anchor_moved(f->anchor))
		anchor_lead(&msg, f, &w, related, src);
	message_text(&msg, f, &w, changed_frames);
	res = json_pack("{s:s,s:i,s:s,s:o}", "ruleId", rule->rule_id,
			"ruleIndex", (int)rule_idx, "level", result_level(f),
			"message", sarif_jmsg(msg.ptr));
	json_object_set_new(res, "locations", json_pack("[o]",
			    change_anchor_moved(f->anchor) ?
			    anchor_location(f->anchor, src) :
			    location(&w, src, NULL)));
	fp = json_object();
	if (f->id)
		json_object_set_new(fp, "crsCiSignature/v1", sarif_jstr(f->id));
	if (w.relative && w.line > 0) {
		const struct buf *text = source_get(src, w.file);
		char hash[40];

		if (text && sarif_line_hash(hash, text->ptr, text->len,
					    w.line) == 0)
			json_object_set_new(fp, "primaryLocationLineHash",
					    json_string(hash));
	}
	json_object_set_new(res, "partialFingerprints", fp);
	if ((flows = code_flows(f, src)))
		json_object_set_new(res, "codeFlows", flows);
	if (f->stack_nr)
		json_object_set_new(res, "stacks", stacks(f, src));
	if (json_array_size(related))
		json_object_set_new(res, "relatedLocations", related);
	else
		json_decref(related);
	if ((bs = baseline_state(f->novelty)))
		json_object_set_new(res, "baselineState", json_string(bs));
	json_object_set_new(res, "properties", result_properties(f, s));
	if ((fixes = sarif_fixes_json(f, s)))
		json_object_set_new(res, "fixes", fixes);
	buf_release(&msg);
	return res;
}

/* --- the run ------------------------------------------------------------ */

static json_t *invocation(const struct scan_summary *m, size_t unlocated)
{
	/* a deadline is by design, not a failure: it is a notification */
	json_t *inv = json_pack("{s:b}", "executionSuccessful", 1);
	json_t *notes = json_array();

	if (m->started_at)
		json_object_set_new(inv, "startTimeUtc", sarif_jstr(m->started_at));
	if (m->finished_at)
		json_object_set_new(inv, "endTimeUtc", sarif_jstr(m->finished_at));
	if (m->timed_out)
		json_array_append_new(notes, json_pack("{s:o,s:s}", "message",
			sarif_jmsg("The scan reached its deadline; the results hold "
			     "what was proved by then."), "level", "warning"));
	for (size_t i = 0; i < m->incomplete_nr; i++) {
		char *text = xasprintf("Incomplete: harness %s was fuzzed "
				       "%.0fs of the %.0fs it was due (%s); "
				       "no finding is not a clean pass.",
				       m->incomplete[i].harness,
				       m->incomplete[i].fuzzed_s,
				       m->incomplete[i].wanted_s,
				       m->incomplete[i].reason);

		json_array_append_new(notes, json_pack("{s:o,s:s}", "message",
				      sarif_jmsg(text), "level", "warning"));
		free(text);
	}
	if (unlocated) {
		char *text = xasprintf("%zu finding(s) have no source "
				       "location (no symbolized frame) and "
				       "are only in results.json.", unlocated);

		json_array_append_new(notes, json_pack("{s:o,s:s}", "message",
				      sarif_jmsg(text), "level", "warning"));
		free(text);
	}
	if (json_array_size(notes))
		json_object_set_new(inv, "toolExecutionNotifications", notes);
	else
		json_decref(notes);
	return inv;
}

/* The coverage of the change, in the run's properties (camelCase). */
static json_t *change_cov_properties(const struct change_cov *c)
{
	json_t *p = json_object(), *a, *h;
	struct buf line = BUF_INIT;

	change_cov_line(&line, c);
	json_object_set_new(p, "status", json_string(c->unknown ? "unknown" :
						     "measured"));
	json_object_set_new(p, "summary", sarif_jstr(line.ptr));
	buf_release(&line);
	if (c->unknown)
		return p;
	json_object_set_new(p, "linesTotal",
			    json_integer((json_int_t)c->lines_total));
	json_object_set_new(p, "linesExecuted",
			    json_integer((json_int_t)c->lines_executed));
	a = json_array();
	for (size_t i = 0; i < c->not_reached_nr; i++)
		json_array_append_new(a, json_pack("{s:o,s:i,s:i}", "file",
			sarif_jstr(c->not_reached[i].file), "startLine",
			c->not_reached[i].start, "endLine",
			c->not_reached[i].end));
	json_object_set_new(p, "notReached", a);
	h = json_object();
	for (size_t i = 0; i < c->by_harness_nr; i++)
		if (utf8_is_clean(c->by_harness[i].name))
			json_object_set_new(h, c->by_harness[i].name,
				json_integer((json_int_t)
					     c->by_harness[i].lines));
	json_object_set_new(p, "byHarness", h);
	return p;
}

static json_t *run_properties(const struct finding_set *s,
			      size_t truncated, size_t unlocated,
			      size_t suppressed)
{
	const struct scan_summary *m = &s->summary;
	json_t *p = json_object(), *a;

	if (m->project)
		json_object_set_new(p, "project", sarif_jstr(m->project));
	if (m->base)
		json_object_set_new(p, "base", sarif_jstr(m->base));
	if (m->head)
		json_object_set_new(p, "head", sarif_jstr(m->head));
	if (m->mode)
		json_object_set_new(p, "mode", sarif_jstr(m->mode));
	if (m->sanitizer)
		json_object_set_new(p, "sanitizer", sarif_jstr(m->sanitizer));
	a = json_array();
	for (size_t i = 0; i < m->harnesses_nr; i++)
		json_array_append_new(a, sarif_jstr(m->harnesses[i]));
	json_object_set_new(p, "harnesses", a);
	a = json_array();
	for (size_t i = 0; i < m->crs_nr; i++)
		json_array_append_new(a, sarif_jstr(m->crs[i]));
	json_object_set_new(p, "crs", a);
	json_object_set_new(p, "povsSubmitted", json_integer(
		(json_int_t)(m->povs_submitted > INT_MAX ? INT_MAX :
			     m->povs_submitted)));
	json_object_set_new(p, "povsNotReproduced", json_integer(
		(json_int_t)(m->povs_not_reproduced > INT_MAX ? INT_MAX :
			     m->povs_not_reproduced)));
	if (m->private_findings)	/* the disclosure policy's count */
		json_object_set_new(p, "privateFindings", json_integer(
			(json_int_t)(m->private_findings > INT_MAX ? INT_MAX :
				     m->private_findings)));
	json_object_set_new(p, "durationSeconds", json_real(m->duration_s));
	if (m->fail_on)
		json_object_set_new(p, "failOn", sarif_jstr(m->fail_on));
	json_object_set_new(p, "verdict", json_string(finding_verdict_name(
		finding_set_verdict(s, NULL, NULL))));
	/* harnesses fuzzed short: why the verdict is INCOMPLETE */
	a = json_array();
	for (size_t i = 0; i < m->incomplete_nr; i++) {
		const struct finding_incomplete *e = &m->incomplete[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:f,s:f}",
			"harness", sarif_jstr(e->harness), "reason", sarif_jstr(e->reason),
			"fuzzedSeconds", e->fuzzed_s,
			"wantedSeconds", e->wanted_s));
	}
	json_object_set_new(p, "incomplete", a);
	if (truncated)
		json_object_set_new(p, "resultsTruncated",
				    json_integer((json_int_t)truncated));
	if (unlocated)
		json_object_set_new(p, "resultsWithoutLocation",
				    json_integer((json_int_t)unlocated));
	if (suppressed)
		json_object_set_new(p, "resultsSuppressed",
				    json_integer((json_int_t)suppressed));
	if (s->change_coverage)
		json_object_set_new(p, "changeCoverage", change_cov_properties(
			s->change_coverage));
	return p;
}

/*
 * run.originalUriBaseIds: %SRCROOT% is the repository's root, wherever it
 * is checked out. Described, never given a "uri": the checkout's absolute
 * path is a host's, and would differ on every runner (SARIF 2.1.0
 * 3.14.14 lets an entry go without one; CodeQL's logs likewise base
 * locations on %SRCROOT% without naming the host's checkout).
 */
static json_t *src_root_base_ids(void)
{
	return json_pack("{s:{s:{s:s}}}", "%SRCROOT%", "description", "text",
			 "The root of the scanned repository: every "
			 "location based on it is a path in the repository.");
}

CRS_TESTABLE int sarif_from_findings(json_t **out, const struct finding_set *s,
			const char *source_root)
{
	const struct scan_summary *m = &s->summary;
	struct src_cache src = { 0 };
	struct rule_list rules = { 0 };
	json_t *results = json_array(), *rules_json = json_array();
	json_t *driver, *run, *log;
	size_t i, unlocated = 0, suppressed = 0;
	char *category;

	*out = NULL;
	src.data = (struct buf)BUF_INIT;
	if (source_root && *source_root)
		src.root = realpath(source_root, NULL);
	for (i = 0; i < s->nr && json_array_size(results) <
	     SARIF_RESULTS_MAX; i++) {
		json_t *res;

		if (s->items[i].suppressed) {	/* --report-timeouts/ooms no */
			suppressed++;
			continue;
		}
		res = result_json(&s->items[i], &rules, &src, s);
		if (res)
			json_array_append_new(results, res);
		else
			unlocated++;
	}
	for (size_t k = 0; k < rules.nr; k++)
		json_array_append_new(rules_json, rule_json(rules.v[k]));
	driver = json_pack("{s:s,s:s,s:s,s:o}", "name", "crs-ci",
			   "version", m->tool_version ? m->tool_version : "0",
			   "informationUri", SARIF_TOOL_URI,
			   "rules", rules_json);
	/* GitHub keeps one set of alerts per category: a matrix job names
	 * its own (--sarif-category), as upload-sarif's category does */
	if (m->sarif_category && *m->sarif_category)
		category = xasprintf("%s%s", m->sarif_category,
				     m->sarif_category[strlen(
					     m->sarif_category) - 1] == '/' ?
				     "" : "/");
	else
		category = xasprintf("crs-ci/%s/",
				     m->project ? m->project : "");
	run = json_pack("{s:{s:o},s:{s:o},s:s,s:[o],s:o,s:o}",
			"tool", "driver", driver,
			"automationDetails", "id", sarif_jstr(category),
			"columnKind", "utf16CodeUnits",
			"invocations", invocation(m, unlocated),
			"results", results,
			"properties", run_properties(s, s->nr - i,
						     unlocated, suppressed));
	if ((m->source_root && *m->source_root) ||
	    (source_root && *source_root))
		json_object_set_new(run, "originalUriBaseIds",
				    src_root_base_ids());
	log = json_pack("{s:s,s:s,s:[o]}", "$schema", SARIF_SCHEMA_URI,
			"version", "2.1.0", "runs", run);
	*out = log;
	free(category);
	free(rules.v);
	free(src.root);
	free(src.rel);
	buf_release(&src.data);
	return 0;
}

int sarif_write_file(const struct finding_set *s, const char *source_root,
		     const char *path)
{
	json_t *log = NULL;
	int r;

	if ((r = sarif_from_findings(&log, s, source_root)) == 0)
		r = finding_json_save(log, path, "SARIF log");
	json_decref(log);
	return r;
}
