/* SPDX-License-Identifier: Apache-2.0 */
/*
 * changeset.c - ChangeSet from libgit2 diffs (commits or a patch buffer)
 *
 * Both inputs become git_diffs whose patches are walked once: '+' lines
 * record head lines, '-' lines base lines, context lines and the gaps
 * between hunks the line map (line_map.c). A --diff input is first
 * checked and split by patch_parse.c; the file diffs of later mails in an
 * mbox are composed onto earlier ones of the same path. The patch text is
 * kept so it can be handed to CRSs as diffs/ref.diff (OSS-CRS delta mode).
 */
#include "diff/changeset.h"
#include "diff/line_map.h"
#include "diff/patch_parse.h"
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
	case GIT_DELTA_COPIED: return DIFF_COPIED;
	case GIT_DELTA_TYPECHANGE: return DIFF_TYPECHANGE;
	default: return DIFF_OTHER;
	}
}

const char *diff_status_name(enum diff_status s)
{
	switch (s) {
	case DIFF_ADDED: return "added";
	case DIFF_MODIFIED: return "modified";
	case DIFF_DELETED: return "deleted";
	case DIFF_RENAMED: return "renamed";
	case DIFF_COPIED: return "copied";
	case DIFF_MODE_CHANGED: return "mode changed";
	case DIFF_TYPECHANGE: return "type changed";
	case DIFF_OTHER: break;
	}
	return "other";
}

static void file_release(struct diff_file *f)
{
	free(f->path);
	free(f->old_path);
	free(f->lines);
	free(f->removed);
	free(f->runs);
	free(f->hunks);
	memset(f, 0, sizeof(*f));
}

/* --- combining the file diffs of several patches ----------------------- */

/* The entry that `f` continues: same path in the intermediate tree. */
static struct diff_file *prior_of(struct diff_changeset *cs,
				  const struct diff_file *f)
{
	for (size_t i = cs->nr; i-- > 0;) {
		struct diff_file *e = &cs->files[i];

		if (f->status == DIFF_ADDED) {
			if (e->status == DIFF_DELETED &&
			    !strcmp(e->path, f->path))
				return e;
		} else if (f->status != DIFF_COPIED &&
			   e->status != DIFF_DELETED &&
			   !strcmp(e->path, f->old_path)) {
			return e;
		}
	}
	return NULL;
}

/* e := f after e. Returns 1 when the pair cancels out (added, deleted). */
static int compose(struct diff_file *e, const struct diff_file *f)
{
	enum diff_status s1 = e->status, s2 = f->status;

	if (s1 == DIFF_ADDED && s2 == DIFF_DELETED)
		return 1;
	diff_map_compose(e, f);
	for (size_t i = 0; i < f->hunks_nr; i++) {
		ALLOC_GROW(e->hunks, e->hunks_nr + 1, e->hunks_alloc);
		e->hunks[e->hunks_nr++] = f->hunks[i];
	}
	e->binary |= f->binary;
	e->new_mode = f->new_mode;
	free(e->path);
	e->path = xstrdup(f->path);
	if (s2 == DIFF_RENAMED)
		e->similarity = s1 == DIFF_RENAMED && e->similarity <
			f->similarity ? e->similarity : f->similarity;
	if (s1 == DIFF_ADDED)
		e->status = DIFF_ADDED;
	else if (s2 == DIFF_DELETED)
		e->status = DIFF_DELETED;
	else if (s1 == DIFF_DELETED)
		e->status = DIFF_MODIFIED;
	else if (strcmp(e->old_path, e->path))
		e->status = s1 == DIFF_COPIED ? DIFF_COPIED : DIFF_RENAMED;
	else if (s1 == DIFF_TYPECHANGE || s2 == DIFF_TYPECHANGE)
		e->status = DIFF_TYPECHANGE;
	else if (!e->lines_nr && !e->removed_nr && !e->binary &&
		 e->old_mode != e->new_mode)
		e->status = DIFF_MODE_CHANGED;
	else
		e->status = DIFF_MODIFIED;
	if (e->status != DIFF_RENAMED && e->status != DIFF_COPIED)
		e->similarity = 0;
	return 0;
}

/* Take `f` (its storage moves into cs), composing when asked to. */
static void add_file(struct diff_changeset *cs, struct diff_file *f,
		     int combine)
{
	struct diff_file *e = combine ? prior_of(cs, f) : NULL;

	if (e) {
		if (compose(e, f)) {
			size_t i = (size_t)(e - cs->files);

			file_release(e);
			memmove(e, e + 1, (cs->nr - i - 1) * sizeof(*e));
			cs->nr--;
		}
		file_release(f);
		return;
	}
	ALLOC_GROW(cs->files, cs->nr + 1, cs->alloc);
	cs->files[cs->nr++] = *f;
	memset(f, 0, sizeof(*f));	/* transferred */
}

/* --- walking libgit2 patches ------------------------------------------- */

static int add_patch(struct diff_changeset *cs, git_patch *p, int combine)
{
	const git_diff_delta *d = git_patch_get_delta(p);
	struct diff_map_state st = DIFF_MAP_STATE_INIT;
	struct diff_file f;
	size_t hunks = git_patch_num_hunks(p);
	int mapped;

	memset(&f, 0, sizeof(f));
	f.path = xstrdup(d->new_file.path ? d->new_file.path : "");
	f.old_path = xstrdup(d->old_file.path ? d->old_file.path : f.path);
	f.status = map_status(d->status);
	f.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
	f.old_mode = d->old_file.mode;
	f.new_mode = d->new_file.mode;
	if (f.status == DIFF_RENAMED || f.status == DIFF_COPIED)
		f.similarity = d->similarity;
	if (f.status == DIFF_MODIFIED && !f.binary && !hunks &&
	    f.old_mode != f.new_mode)
		f.status = DIFF_MODE_CHANGED;
	mapped = !f.binary && f.status != DIFF_ADDED &&
		 f.status != DIFF_DELETED;
	for (size_t h = 0; h < hunks; h++) {
		const git_diff_hunk *hk;
		size_t nl = 0;

		if (git_patch_get_hunk(&hk, &nl, p, h) != 0) {
			file_release(&f);
			return git_fail(CRS_ERR, "reading a diff hunk");
		}
		if (mapped)
			diff_map_hunk(&f, &st, hk->old_start, hk->old_lines,
				      hk->new_start, hk->new_lines);
		ALLOC_GROW(f.hunks, f.hunks_nr + 1, f.hunks_alloc);
		f.hunks[f.hunks_nr].start = hk->new_start;
		f.hunks[f.hunks_nr++].end = hk->new_start + hk->new_lines - 1;
		for (size_t i = 0; i < nl; i++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, p, h, i) != 0) {
				file_release(&f);
				return git_fail(CRS_ERR, "reading a diff line");
			}
			if (l->origin == GIT_DIFF_LINE_ADDITION)
				diff_map_added(&f, l->new_lineno);
			else if (l->origin == GIT_DIFF_LINE_DELETION)
				diff_map_removed(&f, l->old_lineno);
			else if (l->origin == GIT_DIFF_LINE_CONTEXT && mapped)
				diff_map_context(&f, l->new_lineno,
						 l->old_lineno);
		}
	}
	if (mapped)
		diff_map_finish(&f, &st);
	diff_map_normalize(&f);
	add_file(cs, &f, combine);
	return 0;
}

static int add_diff(struct diff_changeset *cs, git_diff *diff, int combine)
{
	size_t n = git_diff_num_deltas(diff);
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		git_patch *p = NULL;

		if (git_patch_from_diff(&p, diff, i) != 0)
			return git_fail(CRS_ERR, "reading the diff");
		if (p)		/* NULL for unchanged deltas */
			r = add_patch(cs, p, combine);
		git_patch_free(p);
	}
	return r;
}

/* --- from two commits -------------------------------------------------- */

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
	git_buf text = GIT_BUF_INIT_CONST(NULL, 0);
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
	dopts.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
	if (git_diff_tree_to_tree(&diff, repo, bt, ht, &dopts) != 0) {
		r = git_fail(CRS_ERR, "diffing base and head");
		goto out;
	}
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(diff, &fopts) != 0) {
		r = git_fail(CRS_ERR, "finding renames");
		goto out;
	}
	if ((r = add_diff(cs, diff, 0)) != 0)
		goto out;
	if (git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH) != 0) {
		r = git_fail(CRS_ERR, "formatting the diff");
		goto out;
	}
	cs->patch = xstrndup(text.ptr ? text.ptr : "", text.size);
	cs->patch_len = text.size;
	git_oid_tostr(hex, sizeof(hex), &mb);
	cs->base_commit = xstrdup(hex);
	git_oid_tostr(hex, sizeof(hex), git_commit_id(hc));
	cs->head_commit = xstrdup(hex);
	*out = cs;
	cs = NULL; /* transferred */
	r = 0;
out:
	diff_changeset_free(cs);
	git_buf_dispose(&text);
	git_diff_free(diff);
	git_tree_free(bt);
	git_tree_free(ht);
	git_commit_free(mc);
	git_commit_free(bc);
	git_commit_free(hc);
	git_repository_free(repo);
	return r;
}

/* --- from a unified diff ----------------------------------------------- */

/* libgit2 says "... at line N" of the buffer it was given: map N back. */
static int section_fail(const struct diff_patch_section *s, const char *name)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "libgit2 error";
	const char *at = strstr(msg, " at line ");
	long n = at ? strtol(at + 9, NULL, 10) : 0;
	int len = at ? (int)(at - msg) : (int)strlen(msg);

	return crs_error_set(CRS_EINPUT, "%s:%d: %.*s", name,
			     diff_patch_section_line(s, n), len, msg);
}

static void add_plain_binary(struct diff_changeset *cs,
			     const struct diff_patch_binary *b)
{
	struct diff_file f;

	memset(&f, 0, sizeof(f));
	f.path = xstrdup(b->path);
	f.old_path = xstrdup(b->old_path);
	f.status = DIFF_MODIFIED;
	f.binary = 1;
	add_file(cs, &f, 1);
}

int diff_changeset_from_patch(struct diff_changeset **out, const char *buf,
			      size_t len, const char *name)
{
	struct diff_patch_split ps = DIFF_PATCH_SPLIT_INIT;
	struct diff_changeset *cs = xcalloc(1, sizeof(*cs));
	struct buf text = BUF_INIT;
	git_diff *diff = NULL;
	int r = CRS_ERR;

	*out = NULL;
	name = name ? name : "<diff>";
	if ((r = diff_patch_split(&ps, buf, len, name)) != 0)
		goto out;
	for (size_t i = 0; i < ps.nr; i++) {
		const struct diff_patch_section *s = &ps.v[i];

		if (git_diff_from_buffer(&diff, s->text.ptr,
					 s->text.len) != 0) {
			r = section_fail(s, name);
			goto out;
		}
		if ((r = add_diff(cs, diff, 1)) != 0)
			goto out;
		git_diff_free(diff);
		diff = NULL;
		buf_add(&text, s->text.ptr, s->text.len);
	}
	for (size_t i = 0; i < ps.bin_nr; i++)
		add_plain_binary(cs, &ps.bin[i]);
	if (ps.nr == 0 && ps.bin_nr == 0) {
		r = crs_error_set(CRS_EINPUT, "%s: no file changes in the diff",
				  name);
		goto out;
	}
	cs->patch = buf_detach(&text, &cs->patch_len);
	*out = cs;
	cs = NULL; /* transferred */
	r = 0;
out:
	diff_changeset_free(cs);
	git_diff_free(diff);
	buf_release(&text);
	diff_patch_split_release(&ps);
	return r;
}

/* --- lookups ----------------------------------------------------------- */

void diff_changeset_free(struct diff_changeset *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nr; i++)
		file_release(&cs->files[i]);
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

int diff_changeset_in_hunk(const struct diff_changeset *cs, const char *path,
			   int start, int end)
{
	const struct diff_file *f = diff_changeset_file(cs, path);

	if (!f || start < 1 || end < start)
		return 0;
	for (size_t i = 0; i < f->hunks_nr; i++)
		if (f->hunks[i].start <= start && end <= f->hunks[i].end)
			return 1;
	return 0;
}

int diff_changeset_touches(const struct diff_changeset *cs,
			   const char *path, int line)
{
	return diff_file_changed(diff_changeset_file(cs, path), line);
}
