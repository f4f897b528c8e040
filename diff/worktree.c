/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worktree.c - edits in a checkout that its HEAD commit does not hold
 *
 * diff_worktree_uncommitted (worktree.h), through libgit2's status:
 * the index and the work tree against HEAD, untracked folders not
 * entered, submodules left out.
 */
#include "diff/worktree.h"
#include "diff/func_spans.h"
#include "common/error.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <git2.h>
#include <string.h>

static int git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(CRS_ERR, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

/* The path an entry names, or NULL when it is not one to report. */
static const char *entry_path(const git_status_entry *e)
{
	const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir :
		e->head_to_index;
	const char *path;

	if (!d)
		return NULL;
	path = d->new_file.path ? d->new_file.path : d->old_file.path;
	if (!path)
		return NULL;
	if (e->status == GIT_STATUS_WT_NEW) {	/* untracked */
		size_t n = strlen(path);

		if (n && path[n - 1] == '/')	/* a folder, not entered */
			return NULL;
		if (diff_lang_of_path(path) == DIFF_LANG_NONE)
			return NULL;
	}
	return path;
}

int diff_worktree_uncommitted(const char *repo_dir, const char *head_commit,
			      struct strvec *out, size_t max, size_t *total)
{
	git_repository *repo = NULL;
	git_status_list *list = NULL;
	git_status_options opts;
	git_oid head;
	char hex[GIT_OID_HEXSZ + 1];
	int r = 0;

	*total = 0;
	/* found as the change was: from repo_dir up to its work tree */
	if (git_repository_open_ext(&repo, repo_dir, 0, NULL) != 0)
		return git_fail("opening the repository");
	if (git_repository_is_bare(repo) ||
	    git_reference_name_to_id(&head, repo, "HEAD") != 0) {
		git_error_clear();
		goto out;	/* no work tree, or no HEAD commit yet */
	}
	git_oid_tostr(hex, sizeof(hex), &head);
	if (!head_commit || strcmp(hex, head_commit))
		goto out;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		GIT_STATUS_OPT_EXCLUDE_SUBMODULES |
		GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX |
		GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;
	if (git_status_list_new(&list, repo, &opts) != 0) {
		r = git_fail("reading the work tree's status");
		goto out;
	}
	for (size_t i = 0; i < git_status_list_entrycount(list); i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const char *path;

		if (!e || e->status == GIT_STATUS_CURRENT ||
		    (e->status & GIT_STATUS_IGNORED) ||
		    !(path = entry_path(e)))
			continue;
		if (*total < max)
			strvec_push(out, path);
		(*total)++;
	}
out:
	git_status_list_free(list);
	git_repository_free(repo);
	return r;
}

char *diff_worktree_root(const char *dir)
{
	git_repository *repo = NULL;
	const char *wd;
	char *root = NULL;
	size_t n;

	if (git_repository_open_ext(&repo, dir, 0, NULL) == 0 &&
	    (wd = git_repository_workdir(repo))) {
		n = strlen(wd);
		while (n > 1 && wd[n - 1] == '/')
			n--;
		root = xstrndup(wd, n);
	}
	git_repository_free(repo);
	return root;
}
