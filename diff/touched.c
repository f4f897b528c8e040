/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touched.c - which functions a ChangeSet touched
 *
 * For every changed C, C++ or Java file the head-side content is scanned
 * for function spans (func_spans.c) and each changed head line, and each
 * removal that falls between two lines of one function, marks that
 * function. Content comes from the head commit's blobs through libgit2
 * or from the caller's reader: this file does no other I/O.
 */
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/literals.h"
#include "diff/touched_literals.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_SOURCE_MAX (32u << 20)	/* larger files are not scanned */

struct head_reader {
	git_repository *repo;
	git_tree *tree;
	diff_read_fn read;
	void *payload;
};

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

static int open_head(struct head_reader *hr, const char *repo_path,
		     const char *head)
{
	git_commit *c = NULL;
	git_oid oid;
	int r = 0;

	if (git_repository_open_ext(&hr->repo, repo_path, 0, NULL) != 0)
		return git_fail(CRS_EINPUT, repo_path);
	if (git_oid_fromstr(&oid, head) != 0 ||
	    git_commit_lookup(&c, hr->repo, &oid) != 0 ||
	    git_commit_tree(&hr->tree, c) != 0)
		r = git_fail(CRS_ERR, head);
	git_commit_free(c);
	return r;
}

/* 0 with the content, CRS_ENOTFOUND to skip the file, or an error. */
static int read_head(struct buf *out, struct head_reader *hr,
		     const char *path)
{
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	int r;

	buf_reset(out);
	if (!hr->tree) {
		r = hr->read(out, path, hr->payload);
		return r == 0 && out->len > DIFF_SOURCE_MAX ? CRS_ENOTFOUND : r;
	}
	r = git_tree_entry_bypath(&e, hr->tree, path);
	if (r == GIT_ENOTFOUND || (r == 0 &&
				   git_tree_entry_type(e) != GIT_OBJECT_BLOB)) {
		r = CRS_ENOTFOUND;
	} else if (r != 0 || git_blob_lookup(&b, hr->repo,
					     git_tree_entry_id(e)) != 0) {
		r = git_fail(CRS_ERR, path);
	} else if (git_blob_rawsize(b) > DIFF_SOURCE_MAX) {
		r = CRS_ENOTFOUND;
	} else {
		buf_add(out, git_blob_rawcontent(b),
			(size_t)git_blob_rawsize(b));
		r = 0;
	}
	git_blob_free(b);
	git_tree_entry_free(e);
	return r;
}

static const struct diff_func_span *span_of(const struct diff_func_spans *s,
					    int head_line)
{
	return head_line > 0 ? diff_func_span_at(s, head_line) : NULL;
}

/* Count, per span, the changed lines in it; -1 marks removals only. */
static void mark(int *hits, const struct diff_file *f,
		 const struct diff_func_spans *s)
{
	const struct diff_func_span *a, *b;

	for (size_t i = 0; i < f->lines_nr; i++)
		if ((a = span_of(s, f->lines[i])) != NULL)
			hits[a - s->v]++;
	for (size_t i = 0; i < f->removed_nr; i++) {
		size_t j = i;

		while (j + 1 < f->removed_nr &&
		       f->removed[j + 1] == f->removed[j] + 1)
			j++;	/* one block of removed base lines */
		a = span_of(s, diff_file_head_line(f, f->removed[i] - 1));
		b = span_of(s, diff_file_head_line(f, f->removed[j] + 1));
		if (a && a == b && !hits[a - s->v])
			hits[a - s->v] = -1;
		i = j;
	}
}

static void collect(struct diff_touched *t, const struct diff_file *f,
		    const struct diff_func_spans *s)
{
	int *hits = xcalloc(s->nr ? s->nr : 1, sizeof(*hits));

	mark(hits, f, s);
	for (size_t i = 0; i < s->nr; i++) {
		struct diff_touched_fn *fn;

		if (!hits[i])
			continue;
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		fn = &t->v[t->nr++];
		fn->path = xstrdup(f->path);
		fn->name = xstrdup(s->v[i].name);
		fn->start = s->v[i].start;
		fn->end = s->v[i].end;
		fn->changed = hits[i] < 0 ? 0 : hits[i];
	}
	free(hits);
}

int diff_changeset_touched_functions(struct diff_touched **out,
				     const struct diff_changeset *cs,
				     const char *repo_path,
				     diff_read_fn read, void *payload)
{
	struct head_reader hr = { NULL, NULL, read, payload };
	struct diff_touched *t = xcalloc(1, sizeof(*t));
	static const struct diff_literals empty = DIFF_LITERALS_INIT;
	struct buf content = BUF_INIT;
	int r = CRS_ERR;

	*out = NULL;
	t->body = xmalloc(sizeof(*t->body));
	t->callees = xmalloc(sizeof(*t->callees));
	*t->body = empty;
	*t->callees = empty;
	if (repo_path && cs->head_commit) {
		if ((r = open_head(&hr, repo_path, cs->head_commit)) != 0)
			goto out;
	} else if (!read) {
		r = crs_error_set(CRS_EINPUT, "cannot read the change's head "
				  "files: no repository with a head commit and "
				  "no reader");
		goto out;
	}
	for (size_t i = 0; i < cs->nr; i++) {
		const struct diff_file *f = &cs->files[i];
		enum diff_lang lang = diff_lang_of_path(f->path);
		struct diff_func_spans *s;
		size_t first;

		if (f->status == DIFF_DELETED || f->binary ||
		    lang == DIFF_LANG_NONE ||
		    (!f->lines_nr && !f->removed_nr))
			continue;
		r = read_head(&content, &hr, f->path);
		if (r == CRS_ENOTFOUND) {
			crs_error_clear();
			continue;
		}
		if (r != 0)
			goto out;
		s = diff_func_spans_scan(content.ptr, content.len, lang);
		first = t->nr;
		collect(t, f, s);
		diff_touched_literals_scan(t, first, content.ptr, content.len,
					   s);
		diff_func_spans_free(s);
	}
	*out = t;
	t = NULL; /* transferred */
	r = 0;
out:
	diff_touched_free(t);
	buf_release(&content);
	git_tree_free(hr.tree);
	git_repository_free(hr.repo);
	return r;
}

void diff_touched_free(struct diff_touched *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].path);
		free(t->v[i].name);
	}
	free(t->v);
	diff_literals_release(t->body);
	diff_literals_release(t->callees);
	free(t->body);
	free(t->callees);
	free(t);
}
