/* SPDX-License-Identifier: Apache-2.0 */
/*
 * line_map.c - a file diff's changed-line sets and head<->base line map
 *
 * The map is a list of runs of unchanged lines (head start, base start,
 * length), ascending on both sides; the last run of a file that exists on
 * both sides is open-ended. Added lines are exactly the head lines no run
 * covers, so lookups are a binary search. Composing two diffs is a merge
 * of their run lists. Arithmetic is done in long long: inputs are hostile
 * diffs whose numbers were only checked to fit an int.
 */
#include "diff/line_map.h"
#include "diff/diff_file.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static long long run_end(long long start, int len)
{
	return len == DIFF_RUN_OPEN ? (long long)INT_MAX + 1 : start + len;
}

static void push_run(struct diff_file *f, long long head, long long base,
		     long long len)
{
	struct diff_run *last;

	if (len <= 0 || head < 1 || base < 1 || head > INT_MAX ||
	    base > INT_MAX)
		return;
	if (len >= DIFF_RUN_OPEN || head + len > INT_MAX)
		len = DIFF_RUN_OPEN;
	last = f->runs_nr ? &f->runs[f->runs_nr - 1] : NULL;
	if (last && last->len != DIFF_RUN_OPEN &&
	    last->head + (long long)last->len == head &&
	    last->base + (long long)last->len == base) {
		len += last->len;
		last->len = len >= DIFF_RUN_OPEN ||
			last->head + len > INT_MAX ? DIFF_RUN_OPEN : (int)len;
		return;
	}
	/* Runs must ascend on both sides; a diff that says otherwise is
	 * inconsistent and its overlapping part is not mapped. */
	if (last && (head < run_end(last->head, last->len) ||
		     base < run_end(last->base, last->len)))
		return;
	ALLOC_GROW(f->runs, f->runs_nr + 1, f->runs_alloc);
	f->runs[f->runs_nr++] = (struct diff_run){
		(int)head, (int)base, (int)len };
}

static long long hunk_begin(int start, int lines)
{
	/* "@@ -5,0 +6,2 @@": a zero-line side names the line before it */
	return lines ? (long long)start : (long long)start + 1;
}

void diff_map_hunk(struct diff_file *f, struct diff_map_state *st,
		   int old_start, int old_lines, int new_start, int new_lines)
{
	long long hb = hunk_begin(new_start, new_lines);
	long long bb = hunk_begin(old_start, old_lines);
	long long gap = hb - st->head;

	if (bb - st->base < gap)
		gap = bb - st->base;
	push_run(f, st->head, st->base, gap);
	hb += new_lines;
	bb += old_lines;
	st->head = hb > INT_MAX ? INT_MAX : (int)hb;
	st->base = bb > INT_MAX ? INT_MAX : (int)bb;
}

void diff_map_context(struct diff_file *f, int head, int base)
{
	push_run(f, head, base, 1);
}

void diff_map_finish(struct diff_file *f, const struct diff_map_state *st)
{
	push_run(f, st->head, st->base, DIFF_RUN_OPEN);
}

static void push_int(int **v, size_t *nr, size_t *alloc, int x)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = x;
}

void diff_map_added(struct diff_file *f, int head)
{
	if (head > 0)
		push_int(&f->lines, &f->lines_nr, &f->lines_alloc, head);
}

void diff_map_removed(struct diff_file *f, int base)
{
	if (base > 0)
		push_int(&f->removed, &f->removed_nr, &f->removed_alloc, base);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void sort_unique(int *v, size_t *nr)
{
	size_t i, o = 0;
	int sorted = 1;

	for (i = 1; i < *nr && sorted; i++)
		sorted = v[i - 1] < v[i];
	if (sorted)
		return;
	qsort(v, *nr, sizeof(*v), cmp_int);
	for (i = 0; i < *nr; i++)
		if (!o || v[o - 1] != v[i])
			v[o++] = v[i];
	*nr = o;
}

void diff_map_normalize(struct diff_file *f)
{
	sort_unique(f->lines, &f->lines_nr);
	sort_unique(f->removed, &f->removed_nr);
}

static int in_set(const int *v, size_t nr, int x)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return 1;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int diff_file_changed(const struct diff_file *f, int head_line)
{
	return f && in_set(f->lines, f->lines_nr, head_line);
}

/* Map `line` through runs on side `from` (0: head, 1: base). */
static int map_line(const struct diff_file *f, int line, int from)
{
	size_t lo = 0, hi;
	const struct diff_run *r;
	long long off, to;

	if (!f || line < 1 || !f->runs_nr)
		return 0;
	hi = f->runs_nr;
	while (lo < hi) {	/* last run starting at or before line */
		size_t mid = lo + (hi - lo) / 2;
		int s = from ? f->runs[mid].base : f->runs[mid].head;

		if (s <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	r = &f->runs[lo - 1];
	off = (long long)line - (from ? r->base : r->head);
	if (r->len != DIFF_RUN_OPEN && off >= r->len)
		return 0;
	to = (from ? r->head : r->base) + off;
	return to > INT_MAX ? 0 : (int)to;
}

int diff_file_base_line(const struct diff_file *f, int head_line)
{
	return map_line(f, head_line, 0);
}

int diff_file_head_line(const struct diff_file *f, int base_line)
{
	return map_line(f, base_line, 1);
}

/* runs(then) is head->mid, runs(first) is mid->base: intersect on mid. */
static void compose_runs(struct diff_file *out, const struct diff_file *then,
			 const struct diff_file *first)
{
	size_t i = 0, j = 0;

	while (i < then->runs_nr && j < first->runs_nr) {
		const struct diff_run *a = &then->runs[i];
		const struct diff_run *b = &first->runs[j];
		long long a_end = run_end(a->base, a->len);
		long long b_end = run_end(b->head, b->len);
		long long lo = a->base > b->head ? a->base : b->head;
		long long hi = a_end < b_end ? a_end : b_end;

		if (lo < hi)
			push_run(out, a->head + (lo - a->base),
				 b->base + (lo - b->head),
				 hi > INT_MAX ? DIFF_RUN_OPEN : hi - lo);
		if (a_end <= b_end)
			i++;
		else
			j++;
	}
}

void diff_map_compose(struct diff_file *first, const struct diff_file *then)
{
	struct diff_file acc;
	size_t i;

	memset(&acc, 0, sizeof(acc));
	compose_runs(&acc, then, first);
	for (i = 0; i < then->lines_nr; i++)
		diff_map_added(&acc, then->lines[i]);
	for (i = 0; i < first->lines_nr; i++)
		diff_map_added(&acc, diff_file_head_line(then,
							 first->lines[i]));
	for (i = 0; i < first->removed_nr; i++)
		diff_map_removed(&acc, first->removed[i]);
	for (i = 0; i < then->removed_nr; i++)
		diff_map_removed(&acc, diff_file_base_line(first,
							   then->removed[i]));
	diff_map_normalize(&acc);
	free(first->lines);
	free(first->removed);
	free(first->runs);
	first->lines = acc.lines;
	first->lines_nr = acc.lines_nr;
	first->lines_alloc = acc.lines_alloc;
	first->removed = acc.removed;
	first->removed_nr = acc.removed_nr;
	first->removed_alloc = acc.removed_alloc;
	first->runs = acc.runs;
	first->runs_nr = acc.runs_nr;
	first->runs_alloc = acc.runs_alloc;
}
