/* SPDX-License-Identifier: Apache-2.0 */
/*
 * anchor_pick.c - choosing a finding's change anchor
 *
 * The choice walks the crashing stack from the crash outwards and takes
 * the first function that executed a changed line, then falls back to
 * any executed changed line, then to the crash site.
 */
#include "sarif/anchor_pick.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The crash site as an anchor labelled `how`. */
static struct change_anchor *at_crash(const struct finding *f,
				      const char *how)
{
	struct change_anchor *a = xcalloc(1, sizeof(*a));

	a->how = xstrdup(how);
	a->frame = -1;
	if (f->file && f->line > 0) {
		a->file = xstrdup(f->file);
		a->line = f->line;
		a->function = f->function ? xstrdup(f->function) : NULL;
	}
	for (size_t i = 0; a->file && i < f->stack_nr; i++)
		if (f->stack[i].in_project) {
			a->frame = (int)i;	/* the crash frame */
			break;
		}
	return a;
}

struct change_anchor *change_anchor_unmeasured(const struct finding *f,
					       const char *reason)
{
	struct change_anchor *a = at_crash(f, ANCHOR_UNMEASURED);

	a->reason = xstrdup(reason && *reason ? reason : "not measured");
	a->frame = -1;
	return a;
}

/*
 * The line of `ef` in [lo, hi] nearest `at` (a line above wins a tie),
 * or 0.
 */
static int nearest(const struct anchor_file *ef, int lo, int hi, int at)
{
	int best = 0;
	long bestd = LONG_MAX;

	for (size_t i = 0; ef && i < ef->nr; i++) {
		int l = ef->lines[i];
		long d = l > at ? (long)l - at : (long)at - l;

		if (l < lo || l > hi)
			continue;
		if (d < bestd || (d == bestd && l < best)) {
			best = l;
			bestd = d;
		}
	}
	return best;
}

static void set_at(struct change_anchor *a, const char *how,
		   const char *file, int line, const char *function,
		   int frame)
{
	free(a->how);
	free(a->file);
	free(a->function);
	a->how = xstrdup(how);
	a->file = xstrdup(file);
	a->line = line;
	a->function = function ? xstrdup(function) : NULL;
	a->frame = frame;
}

/* A changed line in the function of some in-project frame: 1 if found. */
static int pick_on_stack(struct change_anchor *a, const struct finding *f,
			 anchor_span_fn span, void *ctx)
{
	int crash_frame = -1;

	for (size_t i = 0; span && i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];
		const struct anchor_file *ef;
		const char *name = NULL;
		int start, end, l;

		if (!fr->in_project || !fr->file || fr->line < 1)
			continue;
		if (crash_frame < 0)
			crash_frame = (int)i;
		ef = change_anchor_file(a, fr->file);
		if (!ef || !span(ctx, fr->file, fr->line, &start, &end, &name))
			continue;
		if (!(l = nearest(ef, start, end, fr->line)))
			continue;
		set_at(a, (int)i == crash_frame ? ANCHOR_CRASH_FUNCTION :
		       ANCHOR_CALLER, fr->file, l, name ? name : fr->func,
		       (int)i);
		return 1;
	}
	return 0;
}

struct change_anchor *change_anchor_pick(const struct finding *f,
					 const struct anchor_file *exec,
					 size_t exec_nr, anchor_span_fn span,
					 void *ctx)
{
	struct change_anchor *a;
	const struct anchor_file *ef;
	int l;

	if (f->in_change && f->file && f->line > 0) {
		a = at_crash(f, ANCHOR_CRASH_SITE);
		change_anchor_set_executed(a, exec, exec_nr);
		return a;
	}
	a = at_crash(f, ANCHOR_NOT_EXECUTED);
	change_anchor_set_executed(a, exec, exec_nr);
	if (!a->executed_nr)
		return a;
	if (pick_on_stack(a, f, span, ctx))
		return a;
	/* off the stack: above the crash in its file, else the first */
	ef = change_anchor_file(a, f->file);
	if (ef && f->line > 0 && (l = nearest(ef, 1, f->line, f->line)))
		set_at(a, ANCHOR_EXECUTED, ef->path, l, NULL, -1);
	else
		set_at(a, ANCHOR_EXECUTED, a->executed[0].path,
		       a->executed[0].lines[0], NULL, -1);
	if (span) {
		const char *name = NULL;
		int s, e;

		if (span(ctx, a->file, a->line, &s, &e, &name) && name)
			a->function = xstrdup(name);
	}
	return a;
}

const char *change_anchor_place(const struct finding *f, int *line_out,
				int *moved_out)
{
	int moved = change_anchor_moved(f->anchor);

	if (moved_out)
		*moved_out = moved;
	if (moved) {
		*line_out = f->anchor->line;
		return f->anchor->file;
	}
	*line_out = f->file ? f->line : 0;
	return f->file;
}

void change_anchor_lead_text(struct buf *b, const struct finding *f,
			     int capital)
{
	const char *type = f->crash_type && *f->crash_type ?
		f->crash_type : "crash";
	size_t at = b->len;

	buf_printf(b, "%s change leads to a ", capital ? "This" : "this");
	at = b->len;
	buf_adds(b, type);
	/* "Heap-buffer-overflow WRITE 4": a sentence's word, not a title */
	if (b->ptr[at] >= 'A' && b->ptr[at] <= 'Z' &&
	    !(b->ptr[at + 1] >= 'A' && b->ptr[at + 1] <= 'Z'))
		b->ptr[at] = (char)(b->ptr[at] - 'A' + 'a');
	if (f->file && f->line > 0)
		buf_printf(b, " at %s:%d", f->file, f->line);
	if (f->function)
		buf_printf(b, " in %s", f->function);
}
