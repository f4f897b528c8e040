/* SPDX-License-Identifier: Apache-2.0 */
/*
 * select.c - the select phase: fuzz only the harnesses that reach the change
 *
 * Keeps the harnesses whose corpus reaches the change (coverage
 * replay), gives each a weight and one line saying why.
 *
 * Details: docs/select.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/corpus_import.h"
#include "runner/exec/coverage_replay.h"
#include "runner/exec/elf_symbols.h"
#include "runner/scan/coverage.h"
#include "runner/exec/images.h"
#include "runner/exec/cache.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/select_file.h"
#include "runner/scan/time_shares.h"
#include "runner/exec/target_build.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPLAY_MIN_S 60.0
#define REPLAY_MAX_S 900.0
#define RANGES_SHOWN 16		/* line ranges per file, in a reason */
#define FILES_SHOWN 5
#define FUNCS_SHOWN 5		/* touched functions named, in a reason */
#define FUNCS_LOOKED_UP 4096	/* touched functions sought in a binary */
#define SYMBOLS_MAX_S 30.0	/* most seconds looking in one binary */

/* One harness's decision. */
struct harness_sel {
	char *name;
	int selected;
	const char *why;	/* short key, see docs/select.md */
	struct buf reason;
	long inputs;		/* inputs replayed; -1 unknown */
	int cached;		/* a cached corpus was replayed too */
	char *no_cov;		/* why its coverage is missing, or NULL */
	char *source;		/* the changed file that is its source */
	int is_new;		/* absent from the base build */
	struct coverage_reach reach;
	int replayed;		/* reach is valid */
	struct strvec held;	/* touched functions its binary defines */
	char *no_symbols;	/* why its symbols were not read, or NULL */
	enum time_share_basis basis;
	double weight;		/* its part of the fuzzing time */
};

struct selection {
	struct harness_sel *h;
	size_t nr;
	const char *mode;	/* option, full, coverage, no-coverage, ... */
	struct buf summary;
	struct coverage_targets *targets;
	size_t mapped_nr;	/* target lines instrumented in any harness */
	struct strvec touched;	/* C/C++ functions the change touched */
};

static void selection_release(struct selection *sel)
{
	for (size_t i = 0; i < sel->nr; i++) {
		free(sel->h[i].name);
		buf_release(&sel->h[i].reason);
		free(sel->h[i].no_cov);
		free(sel->h[i].source);
		coverage_reach_release(&sel->h[i].reach);
		strvec_release(&sel->h[i].held);
		free(sel->h[i].no_symbols);
	}
	strvec_release(&sel->touched);
	free(sel->h);
	buf_release(&sel->summary);
	coverage_targets_free(sel->targets);
	memset(sel, 0, sizeof(*sel));
}

static void sel_add(struct selection *sel, const char *name)
{
	struct harness_sel *h;

	sel->h = xrealloc(sel->h, st_mult(sel->nr + 1, sizeof(*sel->h)));
	h = &sel->h[sel->nr++];
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(name);
	h->inputs = -1;
	buf_init(&h->reason);
	h->weight = 1;
}

static int name_ok(const char *n)
{
	if (!*n)
		return 0;
	for (const char *p = n; *p; p++)
		if (!(*p == '_' || *p == '-' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

static int list_has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/*
 * The harnesses to choose from: the head build's list in scan.json, and,
 * when select ran before on this head commit (and so may have narrowed
 * scan.json), that run's candidates still present in the head build.
 */
static void load_candidates(struct scan *s, struct strvec *out)
{
	json_t *j = NULL, *v;
	size_t i;

	for (i = 0; i < s->state.harnesses_nr; i++)
		if (!list_has(out, s->state.harnesses[i]))
			strvec_push(out, s->state.harnesses[i]);
	if (!(j = select_file_load(s)))
		goto out;
	json_array_foreach(json_object_get(j, "candidates"), i, v) {
		const char *n = json_string_value(v);
		char *bin;

		if (!n || !name_ok(n) || list_has(out, n))
			continue;
		bin = scan_work_path(s, "builds/%s/head/out/%s",
				     s->state.sanitizer, n);
		if (fs_exists(bin))
			strvec_push(out, n);
		free(bin);
	}
out:
	crs_error_clear();
	strvec_sort(out->v, out->nr);
	json_decref(j);
}

/* The changed file whose name, less its extension, is the harness's. */
static char *source_by_name(const struct diff_changeset *cs, const char *h)
{
	for (size_t i = 0; i < cs->nr; i++) {
		const struct diff_file *f = &cs->files[i];
		const char *base = strrchr(f->path, '/');
		const char *dot;

		if (f->status == DIFF_DELETED)
			continue;
		base = base ? base + 1 : f->path;
		dot = strrchr(base, '.');
		if ((dot ? (size_t)(dot - base) : strlen(base)) == strlen(h) &&
		    !strncmp(base, h, strlen(h)))
			return xstrdup(f->path);
	}
	return NULL;
}

static int is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void set_no_cov(struct harness_sel *h, char *why)
{
	free(h->no_cov);
	h->no_cov = why;
}

static void set_no_symbols(struct harness_sel *h, char *why)
{
	free(h->no_symbols);
	h->no_symbols = why;
}

/*
 * Keep only which lines are instrumented: what libFuzzer's stand-in input
 * ran says nothing about a corpus.
 */
static void forget_hits(struct coverage_reach *r,
			const struct coverage_targets *t)
{
	for (size_t f = 0; f < t->nr; f++)
		for (size_t k = 0; k < t->files[f].lines_nr; k++)
			if (r->state[f][k] == COVERAGE_LINE_HIT)
				r->state[f][k] = COVERAGE_LINE_MAPPED;
	r->hit_nr = 0;
}

/* Replay one harness's corpus on the coverage build; fills h->reach. */
static int replay(struct scan *s, struct harness_sel *h, double timeout_s,
		  const struct coverage_targets *t)
{
	struct coverage_replay rp = COVERAGE_REPLAY_INIT;
	struct strvec corpora = STRVEC_INIT;
	char *dir = scan_work_path(s, "select/%s", h->name);
	char *corpus = scan_work_path(s, "corpus/%s", h->name);
	char *cached = NULL, *imported = corpus_import_dir(s, h->name);
	int r, span;

	if (imported) {
		strvec_push(&corpora, imported);
		h->cached = 1;
	}
	if (is_dir(corpus)) {
		strvec_push(&corpora, corpus);
		h->cached = 1;
	}
	/* a copy in the work folder: nothing below the cache is bound */
	if ((r = cache_corpus_stage(s, h->name, &cached)) != 0)
		goto out;
	if (cached) {
		strvec_push(&corpora, cached);
		h->cached = 1;
	}
	span = timing_begin_harness(s, "replay", h->name, h->name);
	r = coverage_replay_run(&rp, &s->exec, h->name, dir, strvec_list(&corpora),
				timeout_s);
	timing_end(s, span);
	if (r != 0)
		goto out;
	h->inputs = rp.inputs;
	if (rp.no_inputs)
		set_no_cov(h, xstrdup("it has no corpus to replay"));
	if (rp.failed) {
		set_no_cov(h, rp.failed);
		rp.failed = NULL; /* transferred */
	}
	if (!rp.cov)
		goto out;
	coverage_reach(&h->reach, rp.cov, t, s->state.repo_path);
	h->replayed = 1;
	if (rp.no_inputs)
		forget_hits(&h->reach, t);
out:
	coverage_replay_release(&rp);
	strvec_release(&corpora);
	free(dir);
	free(corpus);
	free(cached);
	free(imported);
	return r;
}

/*
 * "executes 9 changed line(s) in src/a.c (18-20, 39-43), src/b.c (7)":
 * runs of consecutive lines as ranges, a bounded number of them.
 */
static void describe_hits(struct buf *b, const struct harness_sel *h,
			  const struct coverage_targets *t)
{
	size_t files = 0;

	buf_printf(b, "executes %zu changed line(s) in ", h->reach.hit_nr);
	for (size_t f = 0; f < t->nr; f++) {
		const int *l = t->files[f].lines;
		const unsigned char *st = h->reach.state[f];
		size_t n = t->files[f].lines_nr, ranges = 0, k = 0;

		while (k < n && st[k] != COVERAGE_LINE_HIT)
			k++;
		if (k == n)
			continue;
		if (files == FILES_SHOWN) {
			buf_adds(b, ", ...");
			break;
		}
		buf_printf(b, "%s%s (", files++ ? ", " : "", t->files[f].path);
		while (k < n) {
			size_t e = k;

			if (ranges == RANGES_SHOWN) {
				buf_adds(b, ", ...");
				break;
			}
			while (e + 1 < n && st[e + 1] == COVERAGE_LINE_HIT &&
			       l[e + 1] == l[e] + 1)
				e++;
			buf_printf(b, "%s%d", ranges++ ? ", " : "", l[k]);
			if (e > k)
				buf_printf(b, "-%d", l[e]);
			k = e + 1;
			while (k < n && st[k] != COVERAGE_LINE_HIT)
				k++;
		}
		buf_addch(b, ')');
	}
}

static const char *corpus_words(const struct harness_sel *h)
{
	return h->cached ? "its seed and cached corpus" : "its seed corpus";
}

/* "rp_parse, parse_record": the touched functions its binary holds. */
static void describe_held(struct buf *b, const struct harness_sel *h)
{
	for (size_t i = 0; i < h->held.nr; i++) {
		if (i == FUNCS_SHOWN) {
			buf_printf(b, " and %zu more", h->held.nr - i);
			break;
		}
		buf_printf(b, "%s%s", i ? ", " : "", h->held.v[i]);
	}
}

/*
 * Its corpus executes no changed line: kept with a smaller weight when
 * its binary can still run the change (it defines a touched function, or
 * its build instruments changed lines), else skipped for that reason.
 */
static void decide_binary(struct selection *sel, struct harness_sel *h)
{
	struct buf *b = &h->reason;

	if (h->inputs >= 0)
		buf_printf(b, "%s (%ld input(s)) executes none of the %zu "
			   "changed line(s)", corpus_words(h), h->inputs,
			   sel->mapped_nr);
	else
		buf_printf(b, "%s executes none of the %zu changed line(s)",
			   corpus_words(h), sel->mapped_nr);
	if (h->held.nr || h->reach.mapped_nr) {
		h->selected = 1;
		h->why = "binary";
		h->basis = TIME_SHARE_BINARY;
		if (h->held.nr) {
			buf_adds(b, ", but its binary holds the changed "
				 "function(s) ");
			describe_held(b, h);
		} else {
			buf_printf(b, ", but its build instruments %zu of "
				   "them", h->reach.mapped_nr);
		}
		buf_adds(b, " (a smaller share)");
		return;
	}
	h->why = "unreached";
	buf_adds(b, "; its binary holds none of the changed functions");
	if (h->no_symbols)
		buf_printf(b, " (its build instruments none of the changed "
			   "lines; symbols not read: %s)", h->no_symbols);
}

/* Decide one harness from what was measured; fills reason and why. */
static void decide(struct selection *sel, struct harness_sel *h)
{
	struct buf *b = &h->reason;

	buf_reset(b);
	h->basis = TIME_SHARE_UNKNOWN;
	if (h->source) {
		h->selected = 1;
		h->why = "source";
		buf_printf(b, "its source changed (%s)", h->source);
	}
	if (h->is_new) {
		h->why = h->selected ? h->why : "new";
		buf_printf(b, "%sit is new (not in the base build)",
			   h->selected ? "; " : "");
		h->selected = 1;
	}
	if (h->replayed && h->reach.hit_nr) {
		h->why = h->selected ? h->why : "coverage";
		if (!h->selected)
			h->basis = TIME_SHARE_REACHED;
		if (h->selected)
			buf_adds(b, "; ");
		describe_hits(b, h, sel->targets);
		h->selected = 1;
	}
	if (h->selected)
		return;
	if (h->no_cov) {
		h->selected = 1;
		h->why = "no-coverage";
		buf_printf(b, "no coverage (%s)", h->no_cov);
		return;
	}
	h->why = "unreached";
	if (!sel->mapped_nr)
		buf_printf(b, "none of the change's %zu line(s) is code the "
			   "coverage build instruments",
			   sel->targets->lines_total);
	else
		decide_binary(sel, h);
}

/* Each harness's weight from its basis (runner/scan/time_shares.h). */
static void weigh(struct selection *sel)
{
	for (size_t i = 0; i < sel->nr; i++) {
		struct harness_sel *h = &sel->h[i];

		h->weight = time_share_held(
			time_share_weight(h->basis, h->reach.hit_nr,
					  h->reach.mapped_nr, sel->mapped_nr),
			h->held.nr, sel->touched.nr);
	}
}

/* Every harness kept for one reason. */
static void keep_all(struct selection *sel, const char *mode,
		     const char *why, const char *reason)
{
	sel->mode = mode;
	for (size_t i = 0; i < sel->nr; i++) {
		sel->h[i].selected = 1;
		sel->h[i].why = why;
		sel->h[i].basis = TIME_SHARE_EQUAL;
		buf_reset(&sel->h[i].reason);
		buf_adds(&sel->h[i].reason, reason);
	}
}

/* No harness is fuzzed: each skipped with the same reason. */
static void skip_all(struct selection *sel, const char *mode,
		     const char *why, const char *reason)
{
	sel->mode = mode;
	for (size_t i = 0; i < sel->nr; i++) {
		sel->h[i].selected = 0;
		sel->h[i].why = why;
		buf_reset(&sel->h[i].reason);
		buf_adds(&sel->h[i].reason, reason);
	}
	buf_adds(&sel->summary, reason);
}

/* Every harness's coverage was measured (none kept for lack of it). */
static int all_replayed(const struct selection *sel)
{
	for (size_t i = 0; i < sel->nr; i++)
		if (!sel->h[i].replayed)
			return 0;
	return 1;
}

static void by_coverage(struct selection *sel)
{
	size_t nsel = 0;

	/* a line counts as instrumented if any harness's build maps it */
	for (size_t f = 0; f < sel->targets->nr; f++)
		for (size_t k = 0; k < sel->targets->files[f].lines_nr; k++) {
			int mapped = 0;

			for (size_t i = 0; i < sel->nr; i++)
				mapped |= sel->h[i].replayed &&
					sel->h[i].reach.state[f][k] !=
					COVERAGE_LINE_NONE;
			sel->mapped_nr += mapped;
		}
	for (size_t i = 0; i < sel->nr; i++) {
		decide(sel, &sel->h[i]);
		nsel += sel->h[i].selected;
	}
	sel->mode = "coverage";
	if (nsel)
		return;
	if (!sel->mapped_nr && all_replayed(sel)) {
		/* docs, comments, declarations: nothing any harness runs */
		sel->mode = "no-code";
		buf_printf(&sel->summary, "the change touches no code the "
			   "harnesses are built from; nothing to fuzz");
		return;
	}
	/* nothing reaches the change: a bug may need inputs none has */
	sel->mode = "unreached";
	buf_printf(&sel->summary, "no harness's corpus reaches the change; "
		   "fuzzing every harness");
	for (size_t i = 0; i < sel->nr; i++) {
		struct buf b = BUF_INIT;

		buf_printf(&b, "no harness's corpus reaches the change; %s",
			   sel->h[i].reason.ptr);
		buf_release(&sel->h[i].reason);
		sel->h[i].reason = b;
		sel->h[i].selected = 1;
		sel->h[i].basis = TIME_SHARE_EQUAL;
	}
}

/* Replay budget of one harness: a slice of what is left, within bounds. */
static double replay_timeout(const struct scan *s, size_t n)
{
	double t = scan_remaining(s) * 0.25 / (double)(n ? n : 1);

	if (t < REPLAY_MIN_S)
		t = REPLAY_MIN_S;
	if (t > REPLAY_MAX_S)
		t = REPLAY_MAX_S;
	return t;
}

/*
 * The change's touched C/C++ functions (diff/touched.c), by name, once.
 * A change given as --diff has no head commit to read them from: then
 * only the coverage build's instrumented lines speak for a binary.
 */
static void touched_names(struct scan *s, struct selection *sel)
{
	struct diff_touched *t = NULL;

	if (!s->change->head_commit || !s->source_dir)
		return;
	if (diff_changeset_touched_functions(&t, s->change, s->source_dir,
					     NULL, NULL) != 0) {
		log_warn("select: the touched functions are unknown: %s",
			 crs_error_last());
		crs_error_clear();
		return;
	}
	for (size_t i = 0; i < t->nr && sel->touched.nr < FUNCS_LOOKED_UP;
	     i++) {
		const char *n = t->v[i].name;

		if (diff_lang_of_path(t->v[i].path) != DIFF_LANG_JAVA &&
		    !list_has(&sel->touched, n))
			strvec_push(&sel->touched, n);
	}
	diff_touched_free(t);
}

/*
 * Which touched functions the head build's binary of h defines. The
 * folder was written by the pull request's build: the binary is read
 * through its descriptor, never followed if a link (elf_symbols.c). A
 * lookup that runs out of time keeps what it found, with a warning.
 */
static int find_symbols(struct scan *s, struct selection *sel,
			struct harness_sel *h, int outfd, const char *out)
{
	struct elf_symbols_limit lim = { scan_stop_flag(s), SYMBOLS_MAX_S };
	unsigned char *found;
	size_t nr = 0;
	char *shown;
	int r;

	if (!sel->touched.nr || outfd < 0)
		return 0;
	if (scan_remaining(s) < lim.seconds)
		lim.seconds = scan_remaining(s) > 1 ? scan_remaining(s) : 1;
	found = xcalloc(sel->touched.nr, 1);
	shown = xasprintf("%s/%s", out, h->name);
	r = elf_symbols_find(&nr, found, outfd, h->name, shown,
			     strvec_list(&sel->touched), sel->touched.nr,
			     &lim);
	if (r == CRS_ETIMEOUT)
		log_warn("select: %s; its binary may hold more of the changed "
			 "functions than the %zu found", crs_error_last(), nr);
	if (r != 0 && r != CRS_EINTR) {
		set_no_symbols(h, xstrdup(crs_error_last()));
		crs_error_clear();
		r = 0;
	}
	for (size_t i = 0; i < sel->touched.nr; i++)
		if (found[i])
			strvec_push(&h->held, sel->touched.v[i]);
	free(found);
	free(shown);
	return r;
}

static int measure(struct scan *s, struct selection *sel)
{
	char *base_out = s->state.base_image ?
		scan_work_path(s, "builds/%s/base/out", s->state.sanitizer) :
		NULL;
	char *head_out = scan_work_path(s, "builds/%s/head/out",
					s->state.sanitizer);
	double timeout = replay_timeout(s, sel->nr);
	int r, ok = 0, outfd = -1;

	coverage_targets_from_change(&sel->targets, s->change);
	log_info("select: the change has %zu line(s) to reach in %zu "
		 "file(s); building the head with coverage",
		 sel->targets->lines_total, sel->targets->nr);
	if ((r = coverage_replay_build(s, &ok)) != 0)
		goto out;
	if (!ok) {
		keep_all(sel, "no-coverage", "no-coverage", "no coverage (the "
			 "coverage build failed); fuzzing every harness");
		buf_adds(&sel->summary, "no coverage; fuzzing every harness");
		goto out;
	}
	for (size_t i = 0; i < sel->nr; i++) {
		struct harness_sel *h = &sel->h[i];

		if (scan_interrupted(s)) {
			r = crs_error_set(CRS_EINTR, "interrupted");
			goto out;
		}
		h->source = source_by_name(s->change, h->name);
		if (base_out && is_dir(base_out)) {
			char *bin = xasprintf("%s/%s", base_out, h->name);

			h->is_new = !fs_exists(bin);
			free(bin);
		}
		if ((r = replay(s, h, timeout, sel->targets)) != 0)
			goto out;
		if (!h->source && h->replayed && h->reach.entry_file &&
		    diff_changeset_file(s->change, h->reach.entry_file))
			h->source = xstrdup(h->reach.entry_file);
	}
	touched_names(s, sel);
	if (sel->touched.nr && fs_open_dir(&outfd, head_out) != 0) {
		log_warn("select: %s", crs_error_last());
		crs_error_clear();
	}
	/* every harness: it decides a share, not only the unreached ones */
	for (size_t i = 0; i < sel->nr && r == 0; i++)
		r = find_symbols(s, sel, &sel->h[i], outfd, head_out);
	if (r != 0)
		goto out;
	by_coverage(sel);
out:
	if (outfd >= 0)
		close(outfd);
	free(head_out);
	free(base_out);
	return r;
}

static int write_json(struct scan *s, const struct selection *sel,
		      const struct strvec *candidates, double elapsed)
{
	json_t *j = json_object(), *hs = json_array(), *c = json_array();
	json_t *chosen = json_array(), *lines = json_object();
	char *path = scan_work_path(s, "select.json"), *text = NULL;
	int r;

	for (size_t i = 0; i < candidates->nr; i++)
		json_array_append_new(c, json_string(candidates->v[i]));
	for (size_t i = 0; i < sel->nr; i++) {
		const struct harness_sel *h = &sel->h[i];
		json_t *o = json_object(), *hit = json_object();

		if (h->selected)
			json_array_append_new(chosen, json_string(h->name));
		json_object_set_new(o, "name", json_string(h->name));
		json_object_set_new(o, "selected", json_boolean(h->selected));
		json_object_set_new(o, "why", json_string(h->why));
		if (h->selected)
			json_object_set_new(o, "weight",
					    json_real(h->weight));
		json_object_set_new(o, "reason", json_string(h->reason.ptr));
		if (h->inputs >= 0)
			json_object_set_new(o, "inputs",
					    json_integer(h->inputs));
		json_object_set_new(o, "cached_corpus",
				    json_boolean(h->cached));
		if (h->source)
			json_object_set_new(o, "source",
					    json_string(h->source));
		json_object_set_new(o, "new", json_boolean(h->is_new));
		if (h->no_cov)
			json_object_set_new(o, "no_coverage",
					    json_string(h->no_cov));
		if (h->held.nr) {
			json_t *fa = json_array();

			for (size_t k = 0; k < h->held.nr; k++)
				json_array_append_new(fa, json_string(
					h->held.v[k]));
			json_object_set_new(o, "functions_in_binary", fa);
		}
		if (h->no_symbols)
			json_object_set_new(o, "no_symbols",
					    json_string(h->no_symbols));
		for (size_t f = 0; h->replayed && f < sel->targets->nr; f++) {
			const struct coverage_target *tf =
				&sel->targets->files[f];
			json_t *a = json_array();

			for (size_t k = 0; k < tf->lines_nr; k++)
				if (h->reach.state[f][k] == COVERAGE_LINE_HIT)
					json_array_append_new(a, json_integer(
						tf->lines[k]));
			if (json_array_size(a))
				json_object_set_new(hit, tf->path, a);
			else
				json_decref(a);
		}
		json_object_set_new(o, "changed_lines_executed", hit);
		json_array_append_new(hs, o);
	}
	json_object_set_new(j, "mode", json_string(sel->mode));
	json_object_set_new(j, "summary", json_string(sel->summary.ptr));
	if (s->state.head_commit)
		json_object_set_new(j, "head_commit",
				    json_string(s->state.head_commit));
	json_object_set_new(j, "candidates", c);
	json_object_set_new(j, "selected", chosen);
	if (sel->targets) {
		json_object_set_new(lines, "total",
				    json_integer((json_int_t)
						 sel->targets->lines_total));
		json_object_set_new(lines, "instrumented",
				    json_integer((json_int_t)sel->mapped_nr));
	}
	json_object_set_new(j, "changed_lines", lines);
	json_object_set_new(j, "elapsed_s", json_real(elapsed));
	json_object_set_new(j, "harnesses", hs);
	text = json_dumps(j, JSON_INDENT(2));
	r = text ? fs_write_file_atomic(path, text, strlen(text)) :
		crs_error_set(CRS_ERR, "serialising %s", path);
	free(text);
	free(path);
	json_decref(j);
	return r;
}

/*
 * One line per harness, then the summary; quoted, since paths come from
 * the change.
 */
static void print_selection(const struct selection *sel, double elapsed)
{
	char q[2048];

	for (size_t i = 0; i < sel->nr; i++) {
		const struct harness_sel *h = &sel->h[i];

		log_quote(q, sizeof(q), h->reason.ptr, h->reason.len);
		log_info("select: %s: %s: %s", h->name,
			 h->selected ? "selected" : "skipped", q);
	}
	log_quote(q, sizeof(q), sel->summary.ptr, sel->summary.len);
	log_info("select: %s (%.1fs)", q, elapsed);
}

/* scan.json's harness list becomes the selection. */
static void narrow(struct scan *s, const struct selection *sel)
{
	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		free(s->state.harnesses[i]);
	free(s->state.harnesses);
	s->state.harnesses = NULL;
	s->state.harnesses_nr = 0;
	for (size_t i = 0; i < sel->nr; i++) {
		if (!sel->h[i].selected)
			continue;
		s->state.harnesses = xrealloc(s->state.harnesses,
			st_mult(s->state.harnesses_nr + 1, sizeof(char *)));
		s->state.harnesses[s->state.harnesses_nr++] =
			xstrdup(sel->h[i].name);
	}
}

/* --harness: exactly the named ones, each of which must be built. */
static int by_option(struct scan *s, struct selection *sel,
		     const struct strvec *candidates)
{
	const struct scan_opts *o = s->opts;

	for (size_t i = 0; i < o->harnesses_nr; i++) {
		int dup = 0;

		if (!list_has(candidates, o->harnesses[i])) {
			struct buf list = BUF_INIT;
			int r;

			for (size_t k = 0; k < candidates->nr; k++)
				buf_printf(&list, "%s%s", k ? ", " : "",
					   candidates->v[k]);
			r = crs_error_set(CRS_EINPUT, "--harness: '%s' is not "
					  "in the build (found: %s)",
					  o->harnesses[i], list.ptr);
			buf_release(&list);
			return r;
		}
		for (size_t k = 0; k < sel->nr; k++)
			dup |= !strcmp(sel->h[k].name, o->harnesses[i]);
		if (!dup)
			sel_add(sel, o->harnesses[i]);
	}
	keep_all(sel, "option", "option", "named with --harness");
	return 0;
}

int phase_select(struct scan *s)
{
	struct selection sel = { 0 };
	struct strvec candidates = STRVEC_INIT;
	double start = scan_elapsed(s);
	int r = 0;

	timing_phase(s, "select");
	buf_init(&sel.summary);
	if (!s->state.harnesses_nr || !s->state.head_image ||
	    !s->state.repo_path) {
		r = crs_error_set(CRS_ENOTFOUND, "no build to select "
				  "harnesses from in %s: run build-target "
				  "first", s->work_dir);
		goto out;
	}
	load_candidates(s, &candidates);
	if (s->opts->harnesses_nr) {
		if ((r = by_option(s, &sel, &candidates)) != 0)
			goto out;
	} else {
		for (size_t i = 0; i < candidates.nr; i++)
			sel_add(&sel, candidates.v[i]);
		if (!s->change) {
			keep_all(&sel, "full", "full", "no change to select "
				 "for (full mode)");
			buf_adds(&sel.summary, "full mode: every harness");
		} else if (!s->change->nr) {
			skip_all(&sel, "empty", "empty", "the change is empty "
				 "(the base and the head hold the same files); "
				 "nothing to fuzz");
		} else if ((r = measure(s, &sel)) != 0) {
			/* one harness too: a change of no code passes fast */
			goto out;
		}
	}
	weigh(&sel);
	narrow(s, &sel);
	if (!sel.summary.len)
		buf_printf(&sel.summary, "%zu of %zu harness(es) to fuzz",
			   s->state.harnesses_nr, candidates.nr);
	print_selection(&sel, scan_elapsed(s) - start);
	r = write_json(s, &sel, &candidates, scan_elapsed(s) - start);
	if (r == 0)
		r = scan_state_save(s);
out:
	selection_release(&sel);
	strvec_release(&candidates);
	return r;
}
