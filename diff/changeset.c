/* SPDX-License-Identifier: Apache-2.0 */
/*
 * changeset.c - ChangeSet from libgit2 diffs (commits or a patch buffer)
 *
 * Both inputs become a git_diff, walked once: '+' lines record their head
 * line number. The patch text is kept so it can be handed to CRSs as
 * diffs/ref.diff (the OSS-CRS delta-mode input).
 */
#include "diff/changeset.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

static enum diff_status map_status(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED: return DIFF_ADDED;
	case GIT_DELTA_MODIFIED: return DIFF_MODIFIED;
	case GIT_DELTA_DELETED: return DIFF_DELETED;
	case GIT_DELTA_RENAMED: return DIFF_RENAMED;
	default: return DIFF_OTHER;
	}
}

static int on_file(const git_diff_delta *d, float progress, void *payload)
{
	struct diff_changeset *cs = payload;
	struct diff_file *f;

	(void)progress;
	ALLOC_GROW(cs->files, cs->nr + 1, cs->alloc);
	f = &cs->files[cs->nr++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(d->new_file.path ? d->new_file.path : "");
	f->old_path = xstrdup(d->old_file.path ? d->old_file.path : "");
	f->status = map_status(d->status);
	f->binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
	return 0;
}

static int on_line(const git_diff_delta *d, const git_diff_hunk *h,
		   const git_diff_line *l, void *payload)
{
	struct diff_changeset *cs = payload;
	struct diff_file *f;

	(void)d;
	(void)h;
	if (!cs->nr || l->origin != GIT_DIFF_LINE_ADDITION || l->new_lineno < 1)
		return 0;
	f = &cs->files[cs->nr - 1];
	ALLOC_GROW(f->lines, f->lines_nr + 1, f->lines_alloc);
	f->lines[f->lines_nr++] = l->new_lineno;
	return 0;
}

static int collect(struct diff_changeset *cs, git_diff *diff)
{
	git_buf text = GIT_BUF_INIT_CONST(NULL, 0);
	int r;

	if (git_diff_foreach(diff, on_file, NULL, NULL, on_line, cs) != 0)
		return git_fail(CRS_ERR, "walking the diff");
	if ((r = git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH)) != 0)
		return git_fail(CRS_ERR, "formatting the diff");
	cs->patch = xstrndup(text.ptr ? text.ptr : "", text.size);
	cs->patch_len = text.size;
	git_buf_dispose(&text);
	return 0;
}

static int resolve(git_commit **out, git_repository *repo, const char *rev)
{
	git_object *obj = NULL;
	int r;

	*out = NULL;
	if (git_revparse_single(&obj, repo, rev) != 0)
		return git_fail(CRS_EINPUT, rev);
	r = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (r != 0)
		return git_fail(CRS_EINPUT, rev);
	return 0;
}

int diff_changeset_from_git(struct diff_changeset **out,
			    const char *repo_path, const char *base,
			    const char *head)
{
	git_repository *repo = NULL;
	git_commit *bc = NULL, *hc = NULL, *mc = NULL;
	git_tree *bt = NULL, *ht = NULL;
	git_diff *diff = NULL;
	git_oid mb;
	git_diff_options dopts;
	git_diff_find_options fopts;
	struct diff_changeset *cs = xcalloc(1, sizeof(*cs));
	char hex[GIT_OID_HEXSZ + 1];
	int r = CRS_ERR;

	*out = NULL;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	if (git_repository_open_ext(&repo, repo_path, 0, NULL) != 0) {
		r = git_fail(CRS_EINPUT, repo_path);
		goto out;
	}
	if ((r = resolve(&bc, repo, base)) != 0 ||
	    (r = resolve(&hc, repo, head ? head : "HEAD")) != 0)
		goto out;
	if (git_merge_base(&mb, repo, git_commit_id(bc),
			   git_commit_id(hc)) != 0) {
		r = git_fail(CRS_EINPUT, "no merge-base of base and head");
		goto out;
	}
	if (git_commit_lookup(&mc, repo, &mb) != 0 ||
	    git_commit_tree(&bt, mc) != 0 || git_commit_tree(&ht, hc) != 0) {
		r = git_fail(CRS_ERR, "reading commit trees");
		goto out;
	}
	dopts.context_lines = 3;
	if (git_diff_tree_to_tree(&diff, repo, bt, ht, &dopts) != 0) {
		r = git_fail(CRS_ERR, "diffing base and head");
		goto out;
	}
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(diff, &fopts) != 0) {
		r = git_fail(CRS_ERR, "finding renames");
		goto out;
	}
	if ((r = collect(cs, diff)) != 0)
		goto out;
	git_oid_tostr(hex, sizeof(hex), &mb);
	cs->base_commit = xstrdup(hex);
	git_oid_tostr(hex, sizeof(hex), git_commit_id(hc));
	cs->head_commit = xstrdup(hex);
	*out = cs;
	cs = NULL; /* transferred */
	r = 0;
out:
	diff_changeset_free(cs);
	git_diff_free(diff);
	git_tree_free(bt);
	git_tree_free(ht);
	git_commit_free(mc);
	git_commit_free(bc);
	git_commit_free(hc);
	git_repository_free(repo);
	return r;
}

int diff_changeset_from_patch(struct diff_changeset **out, const char *buf,
			      size_t len, const char *name)
{
	git_diff *diff = NULL;
	struct diff_changeset *cs = xcalloc(1, sizeof(*cs));
	int r;

	*out = NULL;
	if (git_diff_from_buffer(&diff, buf, len) != 0) {
		r = git_fail(CRS_EINPUT, name);
		goto out;
	}
	if ((r = collect(cs, diff)) != 0)
		goto out;
	if (cs->nr == 0) {
		r = crs_error_set(CRS_EINPUT, "%s: no file changes in the diff",
				  name);
		goto out;
	}
	*out = cs;
	cs = NULL; /* transferred */
	r = 0;
out:
	diff_changeset_free(cs);
	git_diff_free(diff);
	return r;
}

void diff_changeset_free(struct diff_changeset *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nr; i++) {
		free(cs->files[i].path);
		free(cs->files[i].old_path);
		free(cs->files[i].lines);
	}
	free(cs->files);
	free(cs->base_commit);
	free(cs->head_commit);
	free(cs->patch);
	free(cs);
}

const struct diff_file *diff_changeset_file(const struct diff_changeset *cs,
					    const char *path)
{
	if (!cs || !path)
		return NULL;
	for (size_t i = 0; i < cs->nr; i++)
		if (!strcmp(cs->files[i].path, path) &&
		    cs->files[i].status != DIFF_DELETED)
			return &cs->files[i];
	return NULL;
}

int diff_changeset_touches(const struct diff_changeset *cs,
			   const char *path, int line)
{
	const struct diff_file *f = diff_changeset_file(cs, path);

	if (!f)
		return 0;
	for (size_t i = 0; i < f->lines_nr; i++)
		if (f->lines[i] == line)
			return 1;
	return 0;
}
