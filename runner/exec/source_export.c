/* SPDX-License-Identifier: Apache-2.0 */
/*
 * source_export.c - check a commit out into a separate folder (libgit2)
 *
 * The scan never touches the user's working tree: the head commit is
 * checked out into the work dir, so uncommitted edits, ignored files and
 * build products in the checkout do not leak into the target build.
 */
#include "runner/exec/source_export.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <string.h>

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

/* The id (hex) of `rev` peeled to `type` in the repository at `repo_path`. */
static int peeled_id(char **out, const char *repo_path, const char *rev,
		     git_object_t type)
{
	git_repository *repo = NULL;
	git_object *obj = NULL, *peeled = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int r = CRS_EINPUT;

	*out = NULL;
	if (git_repository_open_ext(&repo, repo_path, 0, NULL) != 0) {
		r = git_fail(CRS_EINPUT, repo_path);
		goto out;
	}
	if (git_revparse_single(&obj, repo, rev) != 0 ||
	    git_object_peel(&peeled, obj, type) != 0) {
		r = git_fail(CRS_EINPUT, rev);
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), git_object_id(peeled));
	*out = xstrdup(hex);
	r = 0;
out:
	git_object_free(peeled);
	git_object_free(obj);
	git_repository_free(repo);
	return r;
}

int source_resolve(char **commit_out, const char *repo_path, const char *rev)
{
	return peeled_id(commit_out, repo_path, rev ? rev : "HEAD",
			 GIT_OBJECT_COMMIT);
}

int source_tree_id(char **tree_out, const char *repo_path, const char *commit)
{
	return peeled_id(tree_out, repo_path, commit, GIT_OBJECT_TREE);
}

int source_export(const char *repo_path, const char *commit, const char *dest)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_checkout_options co;
	int r = CRS_ERR;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);

	if ((r = fs_mkdir_p(dest)) != 0)
		return r;
	if (git_repository_open_ext(&repo, repo_path, 0, NULL) != 0) {
		r = git_fail(CRS_EINPUT, repo_path);
		goto out;
	}
	if (git_revparse_single(&obj, repo, commit) != 0) {
		r = git_fail(CRS_EINPUT, commit);
		goto out;
	}
	co.checkout_strategy = GIT_CHECKOUT_FORCE |
		GIT_CHECKOUT_DONT_UPDATE_INDEX;
	co.target_directory = dest;
	if (git_checkout_tree(repo, obj, &co) != 0) {
		r = git_fail(CRS_ERR, "checking out the head tree");
		goto out;
	}
	r = 0;
out:
	git_object_free(obj);
	git_repository_free(repo);
	return r;
}
