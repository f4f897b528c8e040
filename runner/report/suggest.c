/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.c - validated patches as line suggestions, and a diff's hunks
 */
#include "runner/report/suggest.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

/* --- diff hunks ----------------------------------------------------------- */

static char *diff_path(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	if (n >= 2 && s[0] == 'b' && s[1] == '/')
		return xstrndup(s + 2, n - 2);
	return xstrndup(s, n);
}

/* "@@ -a[,b] +c[,d] @@": 0 with the counts, or -1 */
static int hunk_header(const char *p, size_t n, unsigned long *b,
		       unsigned long *c, unsigned long *d)
{
	char *line = xstrndup(p, n), *q;
	int r = -1;

	*b = *d = 1;
	if (line[3] != '-')
		goto out;
	strtoul(line + 4, &q, 10);
	if (*q == ',')
		*b = strtoul(q + 1, &q, 10);
	if (q[0] != ' ' || q[1] != '+')
		goto out;
	*c = strtoul(q + 2, &q, 10);
	if (*q == ',')
		*d = strtoul(q + 1, &q, 10);
	if (q[0] != ' ' || *b > 0x7fffffff || *c > 0x7fffffff ||
	    *d > 0x7fffffff || *c + *d > 0x7fffffff)
		goto out;
	r = 0;
out:
	free(line);
	return r;
}

int diff_hunks_parse(struct diff_hunks *out, const char *diff, size_t len)
{
	const char *p = diff, *end = diff + len;
	unsigned long old_left = 0, new_left = 0;
	char *path = NULL;
	size_t lineno = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned long b, c, d;

		lineno++;
		if (old_left || new_left) {	/* inside a hunk's body */
			if (n && *p == '-' && old_left)
				old_left--;
			else if (n && *p == '+' && new_left)
				new_left--;
			else if ((!n || *p == ' ') && old_left && new_left)
				old_left--, new_left--;
			else if (!n || *p != '\\')
				old_left = new_left = 0;	/* short hunk */
		} else if (n >= 4 && !memcmp(p, "+++ ", 4)) {
			free(path);
			path = n >= 13 && !memcmp(p + 4, "/dev/null", 9) ?
				NULL : diff_path(p + 4, n - 4);
		} else if (n >= 3 && !memcmp(p, "@@ ", 3) && path) {
			if (hunk_header(p, n, &b, &c, &d)) {
				r = crs_error_set(CRS_EINPUT, "diff line %zu: "
						  "bad hunk header", lineno);
				goto out;
			}
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr].path = xstrdup(path);
			out->items[out->nr].start = (int)c;
			out->items[out->nr].end = (int)(c + d) - 1;
			out->nr++;
			old_left = b;
			new_left = d;
		}
		p += n + 1;
	}
out:
	free(path);
	if (r)
		diff_hunks_release(out);
	return r;
}

void diff_hunks_release(struct diff_hunks *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr; i++)
		free(h->items[i].path);
	free(h->items);
	memset(h, 0, sizeof(*h));
}

int diff_hunks_contain(const struct diff_hunks *h, const char *path,
		       int start, int end)
{
	if (!path || start < 1 || end < start)
		return 0;
	for (size_t i = 0; i < h->nr; i++) {
		const struct diff_hunk *k = &h->items[i];

		if (!strcmp(k->path, path) && k->start <= start &&
		    end <= k->end)
			return 1;
	}
	return 0;
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
