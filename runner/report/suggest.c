/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.c - validated patches as line suggestions, and a diff's hunks
 */
#include "runner/report/suggest.h"
#include "diff/changeset.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

/* --- diff hunks ----------------------------------------------------------- */

int diff_hunks_parse(struct diff_hunks *out, const char *diff, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (!len)
		return 0;	/* a diff with no files: no hunks */
	return diff_changeset_from_patch(&out->cs, diff, len, "diff");
}

void diff_hunks_release(struct diff_hunks *h)
{
	if (!h)
		return;
	diff_changeset_free(h->cs);
	h->cs = NULL;
}

int diff_hunks_contain(const struct diff_hunks *h, const char *path,
		       int start, int end)
{
	return diff_changeset_in_hunk(h->cs, path, start, end);
}

void patch_suggestions_release(struct patch_suggestions *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free((char *)s->v[i].path);
		free((char *)s->v[i].replacement);
		free((char *)s->v[i].message);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct hunk_walk {
	struct patch_suggestions *out;
	const struct finding_patch *patch;
	struct buf text;	/* new side of the current hunk */
	int open;
};

static void hunk_close(struct hunk_walk *w)
{
	if (w->open) {
		struct patch_suggestion *g = &w->out->v[w->out->nr - 1];

		g->replacement = buf_detach(&w->text, NULL);
		w->open = 0;
	}
}

static int on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *p)
{
	struct hunk_walk *w = p;
	struct patch_suggestion *g;

	hunk_close(w);
	if (h->old_lines < 1)
		return 0;	/* a pure insertion has no line to anchor on */
	ALLOC_GROW(w->out->v, w->out->nr + 1, w->out->alloc);
	g = &w->out->v[w->out->nr++];
	memset(g, 0, sizeof(*g));
	g->path = xstrdup(d->old_file.path);
	g->start_line = h->old_start;
	g->end_line = h->old_start + h->old_lines - 1;
	g->patch_sha256 = w->patch->sha256;
	g->crs = w->patch->crs;
	g->message = xasprintf("crs-ci validated this fix (%.12s, from %s): it "
			       "builds, stops every PoV of the scan and passed "
			       "its tests and a re-fuzz.", w->patch->sha256,
			       w->patch->crs ? w->patch->crs : "a CRS");
	w->open = 1;
	return 0;
}

static int on_line(const git_diff_delta *d, const git_diff_hunk *h,
		   const git_diff_line *l, void *p)
{
	struct hunk_walk *w = p;

	(void)d;
	(void)h;
	if (w->open && (l->origin == GIT_DIFF_LINE_CONTEXT ||
			l->origin == GIT_DIFF_LINE_ADDITION))
		buf_add(&w->text, l->content, l->content_len);
	return 0;
}

int patch_suggestions_from_set(struct patch_suggestions *out,
			       const struct finding_set *fs)
{
	int r = 0;

	for (size_t i = 0; i < fs->patches_nr && r == 0; i++) {
		const struct finding_patch *p = &fs->patches[i];
		struct hunk_walk w = { out, p, BUF_INIT, 0 };
		git_diff *diff = NULL;

		if (!p->validated || !p->diff)
			continue;
		if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) != 0 ||
		    git_diff_foreach(diff, NULL, NULL, on_hunk, on_line,
				     &w) != 0)
			r = crs_error_set(CRS_EINPUT, "patch %.12s: not a diff "
					  "libgit2 can read", p->sha256);
		hunk_close(&w);
		buf_release(&w.text);
		git_diff_free(diff);
	}
	return r;
}
