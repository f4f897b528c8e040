/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_write.c - SARIF 2.1.0 for GitHub code scanning from a finding set
 *
 * Rules, results, code flows, fingerprints and fixes; source files
 * are read only to hash lines, never copied into the log.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "sarif/sarif_write.h"
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

#define LINE_HASH_BLOCK 100	/* codeql-action's BLOCK_SIZE */
#define LINE_HASH_MOD 37
#define LINE_HASH_EOF 65535
#define LIBFUZZER_DOC_URI "https://llvm.org/docs/LibFuzzer.html"

/* --- UTF-8 to UTF-16, as Node's TextDecoder does it ------------------- */

typedef void (*utf16_fn)(void *ctx, uint32_t unit);

static void emit_cp(utf16_fn fn, void *ctx, uint32_t cp)
{
	if (cp > 0xffff) {
		cp -= 0x10000;
		fn(ctx, 0xd800 + (cp >> 10));
		fn(ctx, 0xdc00 + (cp & 0x3ff));
	} else {
		fn(ctx, cp);
	}
}

/*
 * Decode like the WHATWG UTF-8 decoder (what Node uses): one U+FFFD per
 * maximal invalid subpart, then emit UTF-16 code units.
 */
static void utf8_to_utf16(const char *data, size_t n, utf16_fn fn, void *ctx)
{
	const unsigned char *s = (const unsigned char *)data;
	unsigned lo = 0x80, hi = 0xbf;
	uint32_t cp = 0;
	int need = 0, seen = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned b = s[i];

		if (!need) {
			if (b < 0x80) {
				fn(ctx, b);
			} else if (b >= 0xc2 && b <= 0xdf) {
				need = 1;
				cp = b & 0x1f;
			} else if (b >= 0xe0 && b <= 0xef) {
				if (b == 0xe0)
					lo = 0xa0;
				if (b == 0xed)
					hi = 0x9f;
				need = 2;
				cp = b & 0x0f;
			} else if (b >= 0xf0 && b <= 0xf4) {
				if (b == 0xf0)
					lo = 0x90;
				if (b == 0xf4)
					hi = 0x8f;
				need = 3;
				cp = b & 0x07;
			} else {
				fn(ctx, 0xfffd);
			}
			continue;
		}
		if (b < lo || b > hi) {
			cp = 0;
			need = seen = 0;
			lo = 0x80;
			hi = 0xbf;
			fn(ctx, 0xfffd);
			i--;	/* reprocess the byte; need > 0: i > 0 */
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		cp = (cp << 6) | (b & 0x3f);
		if (++seen == need) {
			emit_cp(fn, ctx, cp);
			cp = 0;
			need = seen = 0;
		}
	}
	if (need)
		fn(ctx, 0xfffd);
}

/* --- GitHub's primaryLocationLineHash ---------------------------------- */

struct line_hasher {
	uint64_t hash, first_mod;
	uint32_t window[LINE_HASH_BLOCK];
	long lines[LINE_HASH_BLOCK];	/* line starting here, or -1 */
	int index;
	long line_no;
	int line_start, prev_cr;
	long want;
	uint64_t *seen;			/* hashes output before `want` */
	size_t seen_nr, seen_alloc;
	int found;
	uint64_t found_hash;
	size_t found_count;
};

static void lh_output(struct line_hasher *h)
{
	uint64_t v = h->hash;

	if (!h->found) {
		if (h->lines[h->index] == h->want) {
			size_t n = 1;

			for (size_t i = 0; i < h->seen_nr; i++)
				n += h->seen[i] == v;
			h->found = 1;
			h->found_hash = v;
			h->found_count = n;
		} else {
			ALLOC_GROW(h->seen, h->seen_nr + 1, h->seen_alloc);
			h->seen[h->seen_nr++] = v;
		}
	}
	h->lines[h->index] = -1;
}

static void lh_update(struct line_hasher *h, uint32_t cur)
{
	uint32_t begin = h->window[h->index];

	h->window[h->index] = cur;
	h->hash = LINE_HASH_MOD * h->hash + cur - h->first_mod * begin;
	h->index = (h->index + 1) % LINE_HASH_BLOCK;
}

static void lh_char(void *ctx, uint32_t cur)
{
	struct line_hasher *h = ctx;

	if (cur == ' ' || cur == '\t' || (h->prev_cr && cur == '\n')) {
		h->prev_cr = 0;
		return;
	}
	if (cur == '\r') {
		cur = '\n';
		h->prev_cr = 1;
	} else {
		h->prev_cr = 0;
	}
	if (h->lines[h->index] != -1)
		lh_output(h);
	if (h->line_start) {
		h->line_start = 0;
		h->lines[h->index] = ++h->line_no;
	}
	if (cur == '\n')
		h->line_start = 1;
	lh_update(h, cur);
}

CRS_TESTABLE int sarif_line_hash(char out[40], const char *data, size_t len, int line)
{
	struct line_hasher *h = xcalloc(1, sizeof(*h));
	int r = CRS_ENOTFOUND;

	out[0] = '\0';
	h->first_mod = 1;
	for (int i = 0; i < LINE_HASH_BLOCK; i++) {
		h->first_mod *= LINE_HASH_MOD;
		h->lines[i] = -1;
	}
	h->line_start = 1;
	h->want = line;
	utf8_to_utf16(data, len, lh_char, h);
	lh_char(h, LINE_HASH_EOF);
	for (int i = 0; i < LINE_HASH_BLOCK; i++) {
		if (h->lines[h->index] != -1)
			lh_output(h);
		lh_update(h, 0);
	}
	if (h->found) {
		snprintf(out, 40, "%" PRIx64 ":%zu", h->found_hash,
			 h->found_count);
		r = 0;
	}
	free(h->seen);
	free(h);
	return r;
}

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

/* A JSON string from untrusted text: repaired to UTF-8, never NULL. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *c;

	if (j)
		return j;
	c = utf8_clean(s, strlen(s), strlen(s));
	j = json_string(c);
	free(c);
	return j;
}

static json_t *jmsg(const char *text)
{
	return json_pack("{s:o}", "text", jstr(text));
}

/* Percent-encode a path for a URI reference (RFC 3986 pchar and '/'). */
static char *uri_escape(const char *path)
{
	static const char ok[] = "-._~!$&'()*+,;=:@/";
	struct buf b = BUF_INIT;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || (*p && strchr(ok, *p)))
			buf_addch(&b, (char)*p);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_detach(&b, NULL);
}

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
	char *esc = uri_escape(w->file);
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
			json_pack("[{s:o,s:s}]", "name", jstr(w->function),
				  "kind", "function"));
	if (message)
		json_object_set_new(loc, "message", jmsg(message));
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
		json_array_append_new(a, jstr(text));
		free(text);
	}
	return a;
}

static json_t *result_properties(const struct finding *f,
				 const struct finding_set *s)
{
	json_t *p = json_object(), *cands = confirmed_candidates(f, s);

	if (f->novelty)
		json_object_set_new(p, "novelty", jstr(f->novelty));
	if (f->pov_sha256)
		json_object_set_new(p, "povSha256", jstr(f->pov_sha256));
	if (f->pov_path)
		json_object_set_new(p, "povPath", jstr(f->pov_path));
	json_object_set_new(p, "reproduceRate", json_sprintf("%d/%d",
			    f->reproduced, f->attempts));
	if (f->harness)
		json_object_set_new(p, "harness", jstr(f->harness));
	if (f->harnesses_nr) {
		json_t *a = json_array();

		for (size_t i = 0; i < f->harnesses_nr; i++)
			json_array_append_new(a, jstr(f->harnesses[i]));
		json_object_set_new(p, "harnesses", a);
	}
	if (f->povs_nr)
		json_object_set_new(p, "povs", finding_povs_to_json(f));
	if (f->crash_type)
		json_object_set_new(p, "crashType", jstr(f->crash_type));
	if (f->kind)
		json_object_set_new(p, "kind", jstr(f->kind));
	if (f->sanitizer)
		json_object_set_new(p, "sanitizer", jstr(f->sanitizer));
	if (f->found_by)
		json_object_set_new(p, "foundBy", jstr(f->found_by));
	if (f->found_after_s >= 0)
		json_object_set_new(p, "foundAfterSeconds",
				    json_real(f->found_after_s));
	json_object_set_new(p, "duplicates", json_integer(
		f->duplicates > INT_MAX ? INT_MAX : (json_int_t)f->duplicates));
	json_object_set_new(p, "inChange", json_boolean(f->in_change));
	json_object_set_new(p, "isSecurity", json_boolean(f->is_security));
	if (f->signature)
		json_object_set_new(p, "crashSignature", jstr(f->signature));
	if (f->report_path)
		json_object_set_new(p, "reportPath", jstr(f->report_path));
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
			 jmsg("Crashing stack, outermost call first"),
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
			 jmsg("Crashing stack, innermost frame first"),
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

/* --- fixes: validated patches as replacements --------------------------- */

/* One run of deleted and inserted lines within a hunk. */
struct repl_run {
	int start;		/* first old line it replaces (1-based) */
	int deleted;		/* old lines it deletes */
	struct buf inserted;	/* the new lines' text */
	int open;
};

/*
 * The old lines [start, start + deleted) as a region of whole lines
 * (startColumn 1 up to column 1 of the line after), so inserting the new
 * lines' text keeps every line ending; an empty region inserts.
 */
static void repl_flush(struct repl_run *r, json_t *repls)
{
	json_t *o;

	if (!r->open)
		return;
	o = json_pack("{s:{s:i,s:i,s:i,s:i}}", "deletedRegion",
		      "startLine", r->start, "startColumn", 1,
		      "endLine", r->start + r->deleted, "endColumn", 1);
	if (r->inserted.len)
		json_object_set_new(o, "insertedContent",
				    jmsg(r->inserted.ptr));
	json_array_append_new(repls, o);
	buf_release(&r->inserted);
	r->inserted = (struct buf)BUF_INIT;
	r->open = 0;
	r->deleted = 0;
}

/* The replacements of one file of the patch. */
static json_t *file_replacements(git_patch *gp)
{
	json_t *repls = json_array();
	struct repl_run run = { 0 };

	run.inserted = (struct buf)BUF_INIT;
	for (size_t h = 0; h < git_patch_num_hunks(gp); h++) {
		const git_diff_hunk *hunk;
		size_t lines;
		int next_old;

		if (git_patch_get_hunk(&hunk, &lines, gp, h) != 0)
			continue;
		/* "-N,0" inserts after line N */
		next_old = hunk->old_lines ? hunk->old_start :
			hunk->old_start + 1;
		for (size_t k = 0; k < lines; k++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, gp, h, k) != 0)
				continue;
			if (l->origin == GIT_DIFF_LINE_CONTEXT) {
				repl_flush(&run, repls);
				next_old = l->old_lineno + 1;
			} else if (l->origin == GIT_DIFF_LINE_DELETION) {
				if (!run.open) {
					run.open = 1;
					run.start = l->old_lineno;
				}
				run.deleted++;
				next_old = l->old_lineno + 1;
			} else if (l->origin == GIT_DIFF_LINE_ADDITION) {
				if (!run.open) {
					run.open = 1;
					run.start = next_old;
				}
				buf_add(&run.inserted, l->content,
					l->content_len);
			}
		}
		repl_flush(&run, repls);
	}
	buf_release(&run.inserted);
	return repls;
}

/* A SARIF fix from a validated patch, or NULL when its diff does not parse. */
static json_t *patch_fix(const struct finding_patch *p)
{
	git_diff *diff = NULL;
	json_t *changes, *fix = NULL;
	struct buf d = BUF_INIT;

	git_libgit2_init();
	if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) != 0)
		goto out;
	changes = json_array();
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *dd = git_diff_get_delta(diff, i);
		const char *path = dd->status == GIT_DELTA_DELETED ?
			dd->old_file.path : dd->new_file.path;
		git_patch *gp = NULL;
		char *uri;

		if (!path || git_patch_from_diff(&gp, diff, i) != 0)
			continue;
		uri = uri_escape(path);
		json_array_append_new(changes, json_pack(
			"{s:{s:s,s:s},s:o}", "artifactLocation", "uri", uri,
			"uriBaseId", "%SRCROOT%", "replacements",
			file_replacements(gp)));
		free(uri);
		git_patch_free(gp);
	}
	buf_printf(&d, "Validated patch %.12s from %s (results.json "
		   "patches[]: built, every PoV stopped, tests: %s, re-fuzzed "
		   "without a crash)", p->sha256, p->crs ? p->crs : "a CRS",
		   p->steps_nr > 4 && p->steps[4].verdict ?
		   p->steps[4].verdict : "passed");
	fix = json_pack("{s:o,s:o}", "description", jmsg(d.ptr),
			"artifactChanges", changes);
out:
	git_diff_free(diff);
	git_libgit2_shutdown();
	buf_release(&d);
	return fix;
}

/* result.fixes: every validated patch that fixes f; NULL when none. */
static json_t *fixes_json(const struct finding *f,
			  const struct finding_set *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->fixed_by_nr; i++) {
		const struct finding_patch *p =
			finding_set_find_patch(s, f->fixed_by[i]);
		json_t *fix;

		if (!p || !p->validated || !p->diff || !(fix = patch_fix(p)))
			continue;
		json_array_append_new(a, fix);
	}
	if (!json_array_size(a)) {
		json_decref(a);
		return NULL;
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
			"message", jmsg(msg.ptr));
	json_object_set_new(res, "locations", json_pack("[o]",
			    change_anchor_moved(f->anchor) ?
			    anchor_location(f->anchor, src) :
			    location(&w, src, NULL)));
	fp = json_object();
	if (f->id)
		json_object_set_new(fp, "crsCiSignature/v1", jstr(f->id));
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
	if ((fixes = fixes_json(f, s)))
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
		json_object_set_new(inv, "startTimeUtc", jstr(m->started_at));
	if (m->finished_at)
		json_object_set_new(inv, "endTimeUtc", jstr(m->finished_at));
	if (m->timed_out)
		json_array_append_new(notes, json_pack("{s:o,s:s}", "message",
			jmsg("The scan reached its deadline; the results hold "
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
				      jmsg(text), "level", "warning"));
		free(text);
	}
	if (unlocated) {
		char *text = xasprintf("%zu finding(s) have no source "
				       "location (no symbolized frame) and "
				       "are only in results.json.", unlocated);

		json_array_append_new(notes, json_pack("{s:o,s:s}", "message",
				      jmsg(text), "level", "warning"));
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
	json_object_set_new(p, "summary", jstr(line.ptr));
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
			jstr(c->not_reached[i].file), "startLine",
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
		json_object_set_new(p, "project", jstr(m->project));
	if (m->base)
		json_object_set_new(p, "base", jstr(m->base));
	if (m->head)
		json_object_set_new(p, "head", jstr(m->head));
	if (m->mode)
		json_object_set_new(p, "mode", jstr(m->mode));
	if (m->sanitizer)
		json_object_set_new(p, "sanitizer", jstr(m->sanitizer));
	a = json_array();
	for (size_t i = 0; i < m->harnesses_nr; i++)
		json_array_append_new(a, jstr(m->harnesses[i]));
	json_object_set_new(p, "harnesses", a);
	a = json_array();
	for (size_t i = 0; i < m->crs_nr; i++)
		json_array_append_new(a, jstr(m->crs[i]));
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
		json_object_set_new(p, "failOn", jstr(m->fail_on));
	json_object_set_new(p, "verdict", json_string(finding_verdict_name(
		finding_set_verdict(s, NULL, NULL))));
	/* harnesses fuzzed short: why the verdict is INCOMPLETE */
	a = json_array();
	for (size_t i = 0; i < m->incomplete_nr; i++) {
		const struct finding_incomplete *e = &m->incomplete[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:f,s:f}",
			"harness", jstr(e->harness), "reason", jstr(e->reason),
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
			"automationDetails", "id", jstr(category),
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
