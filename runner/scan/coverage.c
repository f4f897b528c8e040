/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage.c - lcov coverage, and the changed lines a harness executes
 *
 * The lcov text comes from llvm-cov run inside a container over a binary
 * the target's build produced, so it is read like any container output:
 * size-capped, no symlink followed, every record checked. Only SF:, DA:,
 * BRDA:, FN: and end_of_record matter here; lcov's other records (TN:,
 * FNDA:, LF:, BRF:, ...) are skipped.
 */
#include "runner/scan/coverage.h"
#include "diff/changeset.h"
#include "common/error.h"
#include "common/safe_io.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void file_add_line(struct coverage_file *f, int line,
			  unsigned long long count)
{
	size_t old = f->lines_alloc;

	ALLOC_GROW(f->lines, f->lines_nr + 1, f->lines_alloc);
	if (f->lines_alloc != old) {
		f->hit = xrealloc(f->hit, f->lines_alloc);
		f->count = xrealloc(f->count,
				    st_mult(f->lines_alloc, sizeof(*f->count)));
	}
	f->lines[f->lines_nr] = line;
	f->count[f->lines_nr] = count;
	f->hit[f->lines_nr++] = count ? 1 : 0;
}

/* One branch that ran, out of `line`. */
static void file_add_taken(struct coverage_file *f, int line)
{
	ALLOC_GROW(f->taken, f->taken_nr + 1, f->taken_alloc);
	f->taken[f->taken_nr++] = line;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

struct line_hit {
	int line;
	unsigned long long count;
};

static int cmp_line_hit(const void *a, const void *b)
{
	const struct line_hit *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* Sort a file's lines and merge repeats (a line ran if any record says;
 * its count is the largest one given). */
static void file_finish(struct coverage_file *f)
{
	struct line_hit *lh;
	size_t n = 0;

	if (f->taken_nr > 1)
		qsort(f->taken, f->taken_nr, sizeof(*f->taken), cmp_int);
	if (f->lines_nr < 2)
		return;
	lh = xmalloc(st_mult(f->lines_nr, sizeof(*lh)));
	for (size_t i = 0; i < f->lines_nr; i++) {
		lh[i].line = f->lines[i];
		lh[i].count = f->count[i];
	}
	qsort(lh, f->lines_nr, sizeof(*lh), cmp_line_hit);
	for (size_t i = 0; i < f->lines_nr; i++) {
		if (n && f->lines[n - 1] == lh[i].line) {
			if (lh[i].count > f->count[n - 1])
				f->count[n - 1] = lh[i].count;
			f->hit[n - 1] = f->count[n - 1] != 0;
			continue;
		}
		f->lines[n] = lh[i].line;
		f->count[n] = lh[i].count;
		f->hit[n++] = lh[i].count != 0;
	}
	f->lines_nr = n;
	free(lh);
}

static void file_release(struct coverage_file *f)
{
	free(f->path);
	free(f->lines);
	free(f->hit);
	free(f->count);
	free(f->taken);
}

static int cmp_file(const void *a, const void *b)
{
	const struct coverage_file *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Sort files by path; fold records of the same file into one. */
static void coverage_finish(struct coverage *c)
{
	size_t n = 0;

	if (c->nr > 1)
		qsort(c->files, c->nr, sizeof(*c->files), cmp_file);
	for (size_t i = 0; i < c->nr; i++) {
		struct coverage_file *f = &c->files[i];

		if (n && !strcmp(c->files[n - 1].path, f->path)) {
			struct coverage_file *into = &c->files[n - 1];

			for (size_t k = 0; k < f->lines_nr; k++)
				file_add_line(into, f->lines[k], f->count[k]);
			for (size_t k = 0; k < f->taken_nr; k++)
				file_add_taken(into, f->taken[k]);
			into->defines_entry |= f->defines_entry;
			file_release(f);
			continue;
		}
		if (n != i)
			c->files[n] = *f;
		n++;
	}
	c->nr = n;
	for (size_t i = 0; i < c->nr; i++)
		file_finish(&c->files[i]);
}

/* A decimal number of at most `max`: digits only, no sign, no overflow. */
static int parse_uint(const char *s, size_t len, unsigned long long max,
		      unsigned long long *out)
{
	unsigned long long v = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (max - (unsigned long long)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* "DA:<line>,<count>[,<checksum>]"; counts beyond 64 bits saturate. */
static int parse_da(const char *v, size_t len, int *line,
		    unsigned long long *count)
{
	const char *comma = memchr(v, ',', len);
	const char *end = v + len, *cend;
	unsigned long long n;

	if (!comma || parse_uint(v, (size_t)(comma - v), INT_MAX, &n) != 0 ||
	    n == 0)
		return -1;
	*line = (int)n;
	comma++;
	cend = memchr(comma, ',', (size_t)(end - comma));
	if (!cend)
		cend = end;
	if (cend == comma)
		return -1;
	*count = 0;
	for (const char *p = comma; p < cend; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*p < '0' || *p > '9')
			return -1;
		*count = *count > (ULLONG_MAX - d) / 10 ? ULLONG_MAX :
			*count * 10 + d;
	}
	return 0;
}

/*
 * "BRDA:<line>,<block>,<branch>,<taken>": <taken> is "-" (the line never
 * ran) or a count; <block> and <branch> are not read (lcov 2 allows an
 * expression there), only required to be there.
 */
static int parse_brda(const char *v, size_t len, int *line, int *taken)
{
	const char *end = v + len, *comma = memchr(v, ',', len), *last = end;
	unsigned long long n;

	if (!comma || parse_uint(v, (size_t)(comma - v), INT_MAX, &n) != 0 ||
	    n == 0)
		return -1;
	*line = (int)n;
	while (last > comma && last[-1] != ',')
		last--;
	/* two more commas: after <block> and after <branch> */
	if (last == comma + 1 || !memchr(comma + 1, ',',
					 (size_t)(last - 1 - (comma + 1))))
		return -1;
	if (last == end)
		return -1;
	*taken = 0;
	if (end - last == 1 && *last == '-')
		return 0;
	for (const char *p = last; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		*taken |= *p != '0';
	}
	return 0;
}

/* "FN:<line>,<name>" (or lcov 2's "FN:<line>,<end>,<name>"). */
static int parse_fn(const char *v, size_t len, int *is_entry)
{
	const char *name = v + len;
	size_t elen = strlen(COVERAGE_FUZZER_ENTRY);

	while (name > v && name[-1] != ',')
		name--;
	if (name == v)
		return -1;
	*is_entry = (size_t)(v + len - name) == elen &&
		!memcmp(name, COVERAGE_FUZZER_ENTRY, elen);
	return 0;
}

int coverage_parse_lcov(struct coverage **out, const char *buf, size_t len,
			const char *name)
{
	struct coverage *c = xcalloc(1, sizeof(*c));
	struct coverage_file *cur = NULL;
	const char *p = buf, *end = buf + len;
	size_t lineno = 0;
	int r = CRS_ERR;

	*out = NULL;
	if (memchr(buf, '\0', len)) {
		r = crs_error_set(CRS_EINPUT, "%s: NUL byte in coverage "
				  "data", name);
		goto out;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n;

		lineno++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		n = (size_t)(eol - p);
		if (n >= 3 && !memcmp(p, "SF:", 3)) {
			if (n == 3) {
				r = crs_error_set(CRS_EINPUT, "%s:%zu: SF: "
						  "without a file name", name,
						  lineno);
				goto out;
			}
			ALLOC_GROW(c->files, c->nr + 1, c->alloc);
			cur = &c->files[c->nr++];
			memset(cur, 0, sizeof(*cur));
			cur->path = xstrndup(p + 3, n - 3);
		} else if (n == 13 && !memcmp(p, "end_of_record", 13)) {
			cur = NULL;
		} else if (n >= 3 && (!memcmp(p, "DA:", 3) ||
				      !memcmp(p, "FN:", 3) ||
				      (n >= 5 && !memcmp(p, "BRDA:", 5)))) {
			int kind = p[0], line = 0, hit = 0, entry = 0, bad;
			int tag = kind == 'B' ? 4 : 2;
			unsigned long long count = 0;

			if (!cur) {
				r = crs_error_set(CRS_EINPUT, "%s:%zu: %.*s: "
						  "outside a file record",
						  name, lineno, tag, p);
				goto out;
			}
			if (kind == 'D')
				bad = parse_da(p + 3, n - 3, &line, &count);
			else if (kind == 'B')
				bad = parse_brda(p + 5, n - 5, &line, &hit);
			else
				bad = parse_fn(p + 3, n - 3, &entry);
			if (bad) {
				r = crs_error_set(CRS_EINPUT, "%s:%zu: "
						  "malformed %.*s: record",
						  name, lineno, tag, p);
				goto out;
			}
			if (kind == 'D')
				file_add_line(cur, line, count);
			else if (kind != 'B')
				cur->defines_entry |= entry;
			else if (hit)
				file_add_taken(cur, line);
		}
		p = nl ? nl + 1 : end;
	}
	coverage_finish(c);
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	coverage_free(c);
	return r;
}

void coverage_free(struct coverage *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		file_release(&c->files[i]);
	free(c->files);
	free(c);
}

/*
 * Lexically normalise an absolute path into `out` (a fresh string
 * without "." segments, repeated or trailing slashes). ".." above the
 * root returns NULL.
 */
static char *normalise(const char *path)
{
	size_t n = strlen(path);
	char *out = xmalloc(st_add(n, 2));
	size_t o = 0;
	const char *p = path;

	while (*p) {
		const char *seg;
		size_t len;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		len = (size_t)(p - seg);
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			if (!o) {
				free(out);
				return NULL;
			}
			while (o && out[o - 1] != '/')
				o--;
			o--;	/* the slash */
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, seg, len);
		o += len;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

char *coverage_repo_relative(const char *path, const char *repo_path)
{
	char *full = path[0] == '/' ? xstrdup(path) :
		xasprintf("%s/%s", repo_path, path);
	char *np = normalise(full), *nr = normalise(repo_path);
	char *rel = NULL;
	size_t n;

	if (!np || !nr || repo_path[0] != '/')
		goto out;
	n = strlen(nr);
	if (n == 1)	/* the repo is "/" */
		rel = np[1] ? xstrdup(np + 1) : NULL;
	else if (!strncmp(np, nr, n) && np[n] == '/' && np[n + 1])
		rel = xstrdup(np + n + 1);
out:
	free(full);
	free(np);
	free(nr);
	return rel;
}

static int cmp_target(const void *a, const void *b)
{
	const struct coverage_target *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static struct coverage_target *target_get(struct coverage_targets *t,
					  const char *path)
{
	struct coverage_target *f;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->files[i].path, path))
			return &t->files[i];
	ALLOC_GROW(t->files, t->nr + 1, t->alloc);
	f = &t->files[t->nr++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	return f;
}

static void target_add(struct coverage_target *f, int line)
{
	if (line < 1)
		return;
	ALLOC_GROW(f->lines, f->lines_nr + 1, f->lines_alloc);
	f->lines[f->lines_nr++] = line;
}

/* Walking the re-read patch: where lines were removed in a hunk. */
struct removal_walk {
	struct coverage_targets *t;
	const struct diff_changeset *cs;
	struct coverage_target *cur;	/* NULL: file not of interest */
	int last_head;			/* last head line in the hunk */
	int pending;			/* lines removed since last_head */
};

static void removal_flush(struct removal_walk *w)
{
	if (w->cur && w->pending)
		target_add(w->cur, w->last_head);
	w->pending = 0;
	w->last_head = 0;
}

static int on_removal_file(const git_diff_delta *d, float progress,
			   void *payload)
{
	struct removal_walk *w = payload;
	const struct diff_file *f;

	(void)progress;
	removal_flush(w);
	w->cur = NULL;
	f = d->new_file.path ? diff_changeset_file(w->cs, d->new_file.path) :
		NULL;
	if (f && !f->binary)
		w->cur = target_get(w->t, f->path);
	return 0;
}

static int on_removal_hunk(const git_diff_delta *d, const git_diff_hunk *h,
			   void *payload)
{
	(void)d;
	(void)h;
	removal_flush(payload);
	return 0;
}

static int on_removal_line(const git_diff_delta *d, const git_diff_hunk *h,
			   const git_diff_line *l, void *payload)
{
	struct removal_walk *w = payload;

	(void)d;
	(void)h;
	if (l->origin == GIT_DIFF_LINE_DELETION) {
		w->pending = 1;
		return 0;
	}
	if ((l->origin != GIT_DIFF_LINE_CONTEXT &&
	     l->origin != GIT_DIFF_LINE_ADDITION) || l->new_lineno < 1)
		return 0;
	/* removed then added is a replacement: the added lines count */
	if (w->pending && w->cur && l->origin == GIT_DIFF_LINE_CONTEXT) {
		target_add(w->cur, w->last_head);
		target_add(w->cur, l->new_lineno);
	}
	w->pending = 0;
	w->last_head = l->new_lineno;
	return 0;
}

/* Head lines around removals; nothing when the patch does not re-parse. */
static void add_removal_neighbours(struct coverage_targets *t,
				   const struct diff_changeset *cs)
{
	struct removal_walk w = { .t = t, .cs = cs };
	git_diff *diff = NULL;

	if (!cs->patch || !cs->patch_len ||
	    git_diff_from_buffer(&diff, cs->patch, cs->patch_len) != 0) {
		log_debug("select: the change's patch does not re-parse; "
			  "lines it only removed are not looked for");
		git_diff_free(diff);
		return;
	}
	if (git_diff_foreach(diff, on_removal_file, NULL, on_removal_hunk,
			     on_removal_line, &w) == 0)
		removal_flush(&w);
	git_diff_free(diff);
}

/* Sort each file's lines and drop repeats, drop files without one, sort
 * the files by path and count the lines. */
static void targets_finish(struct coverage_targets *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++) {
		struct coverage_target *f = &t->files[i];
		size_t u = 0;

		if (f->lines_nr)
			qsort(f->lines, f->lines_nr, sizeof(int), cmp_int);
		for (size_t k = 0; k < f->lines_nr; k++)
			if (!u || f->lines[u - 1] != f->lines[k])
				f->lines[u++] = f->lines[k];
		f->lines_nr = u;
		if (!u) {
			free(f->path);
			free(f->lines);
			continue;
		}
		t->lines_total += u;
		t->files[n++] = *f;
	}
	t->nr = n;
	if (t->nr > 1)
		qsort(t->files, t->nr, sizeof(*t->files), cmp_target);
}

static void targets_build(struct coverage_targets **out,
			  const struct diff_changeset *cs, int removals)
{
	struct coverage_targets *t = xcalloc(1, sizeof(*t));

	for (size_t i = 0; cs && i < cs->nr; i++) {
		const struct diff_file *f = &cs->files[i];
		struct coverage_target *tf;

		if (f->status == DIFF_DELETED || f->binary || !f->lines_nr)
			continue;
		tf = target_get(t, f->path);
		for (size_t k = 0; k < f->lines_nr; k++)
			target_add(tf, f->lines[k]);
	}
	if (cs && removals)
		add_removal_neighbours(t, cs);
	targets_finish(t);
	*out = t;
}

void coverage_targets_from_change(struct coverage_targets **out,
				  const struct diff_changeset *cs)
{
	targets_build(out, cs, 1);
}

void coverage_targets_change_lines(struct coverage_targets **out,
				   const struct diff_changeset *cs,
				   int *around_removals)
{
	targets_build(out, cs, 0);
	*around_removals = 0;
	if ((*out)->lines_total)
		return;
	coverage_targets_free(*out);
	targets_build(out, cs, 1);
	*around_removals = (*out)->lines_total != 0;
}

void coverage_targets_functions(struct coverage_targets **out,
				const struct diff_touched *fns)
{
	struct coverage_targets *t = xcalloc(1, sizeof(*t));

	for (size_t i = 0; fns && i < fns->nr; i++) {
		struct coverage_target *tf = target_get(t, fns->v[i].path);

		for (int l = fns->v[i].start; l <= fns->v[i].end; l++)
			target_add(tf, l);
	}
	targets_finish(t);
	*out = t;
}

void coverage_targets_free(struct coverage_targets *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		free(t->files[i].path);
		free(t->files[i].lines);
	}
	free(t->files);
	free(t);
}

static const struct coverage_target *target_find(
	const struct coverage_targets *t, const char *path)
{
	struct coverage_target key = { .path = (char *)path };

	if (!t->nr)
		return NULL;
	return bsearch(&key, t->files, t->nr, sizeof(*t->files), cmp_target);
}

/* The index of the first of the n ascending `v` not below `x`. */
static size_t lower_bound(const int *v, size_t n, int x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The branches out of `line` that ran in `f`. */
static size_t line_taken(const struct coverage_file *f, int line)
{
	size_t i = lower_bound(f->taken, f->taken_nr, line), n = 0;

	while (i + n < f->taken_nr && f->taken[i + n] == line)
		n++;
	return n;
}

/* enum coverage_line_state of `line` in `f`; its count in *count (0
 * when it is not instrumented). */
static unsigned char line_state(const struct coverage_file *f, int line,
				unsigned long long *count)
{
	size_t i = lower_bound(f->lines, f->lines_nr, line);

	*count = 0;
	if (i == f->lines_nr || f->lines[i] != line)
		return COVERAGE_LINE_NONE;
	*count = f->count[i];
	return f->hit[i] ? COVERAGE_LINE_HIT : COVERAGE_LINE_MAPPED;
}

/* a + b, at most ULLONG_MAX */
static unsigned long long add_sat(unsigned long long a, unsigned long long b)
{
	return a > ULLONG_MAX - b ? ULLONG_MAX : a + b;
}

void coverage_reach(struct coverage_reach *out, const struct coverage *c,
		    const struct coverage_targets *t, const char *repo_path)
{
	size_t **taken = xcalloc(t->nr ? t->nr : 1, sizeof(*taken));
	unsigned long long **runs = xcalloc(t->nr ? t->nr : 1, sizeof(*runs));

	memset(out, 0, sizeof(*out));
	out->files_nr = t->nr;
	out->state = xcalloc(t->nr ? t->nr : 1, sizeof(*out->state));
	for (size_t i = 0; i < t->nr; i++) {
		out->state[i] = xcalloc(t->files[i].lines_nr, 1);
		taken[i] = xcalloc(t->files[i].lines_nr, sizeof(**taken));
		runs[i] = xcalloc(t->files[i].lines_nr, sizeof(**runs));
	}
	for (size_t i = 0; c && i < c->nr; i++) {
		const struct coverage_file *cf = &c->files[i];
		char *rel = coverage_repo_relative(cf->path, repo_path);
		const struct coverage_target *tf;
		unsigned char *st;
		size_t *tk;
		unsigned long long *rn;

		if (!rel)
			continue;
		if (cf->defines_entry && !out->entry_file)
			out->entry_file = xstrdup(rel);
		tf = target_find(t, rel);
		free(rel);
		if (!tf)
			continue;
		st = out->state[tf - t->files];
		tk = taken[tf - t->files];
		rn = runs[tf - t->files];
		for (size_t k = 0; k < cf->lines_nr; k++)
			out->file_hit_nr += cf->hit[k] != 0;
		out->file_branch_nr += cf->taken_nr;
		for (size_t k = 0; k < tf->lines_nr; k++) {
			unsigned long long n;
			unsigned char s = line_state(cf, tf->lines[k], &n);
			size_t b = line_taken(cf, tf->lines[k]);

			if (s > st[k])
				st[k] = s;
			/* two records of one file (two names for it): the
			 * larger count, not the sum */
			if (b > tk[k])
				tk[k] = b;
			if (n > rn[k])
				rn[k] = n;
		}
	}
	for (size_t i = 0; i < t->nr; i++) {
		for (size_t k = 0; k < t->files[i].lines_nr; k++) {
			out->hit_nr += out->state[i][k] == COVERAGE_LINE_HIT;
			out->mapped_nr +=
				out->state[i][k] != COVERAGE_LINE_NONE;
			out->branch_hit_nr += taken[i][k];
			out->runs_nr = add_sat(out->runs_nr, runs[i][k]);
		}
		free(taken[i]);
		free(runs[i]);
	}
	free(taken);
	free(runs);
}

void coverage_reach_release(struct coverage_reach *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->state && i < r->files_nr; i++)
		free(r->state[i]);
	free(r->state);
	free(r->entry_file);
	memset(r, 0, sizeof(*r));
}
