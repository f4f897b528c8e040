/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_tree.c - a patch applied to the head tree, and the tests script
 */
#include "runner/patch_tree.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char patch_tests_script[] =
	"for t in \"${SRC:-/src}/run_tests.sh\" \"${SRC:-/src}/test.sh\" "
	"/OSS_CRS_PROJ_PATH/run_tests.sh /OSS_CRS_PROJ_PATH/test.sh; do\n"
	"  if [ -f \"$t\" ]; then echo \"crs-ci: running $t\"; "
	"exec bash \"$t\"; fi\n"
	"done\n"
	"echo '" PATCH_TESTS_NONE_MARK " (no run_tests.sh or test.sh in $SRC "
	"or the project)'\n"
	"exit 200\n";

/* Write the patched files of `index` over a copy of the head tree. */
static int write_patched(git_diff *diff, git_index *index,
			 git_repository *repo, const char *head_src,
			 const char *src)
{
	int r;

	if ((r = fs_remove_tree(src)) != 0 ||
	    (r = fs_copy_tree(head_src, src)) != 0)
		return r;
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const git_index_entry *e;
		git_blob *blob = NULL;
		char *file, *slash;

		if (d->status == GIT_DELTA_DELETED) {
			file = xasprintf("%s/%s", src, d->old_file.path);
			unlink(file);
			free(file);
			continue;
		}
		e = git_index_get_bypath(index, d->new_file.path, 0);
		if (!e || git_blob_lookup(&blob, repo, &e->id) != 0)
			return crs_error_set(CRS_ERR, "patched %s: not in the "
					     "patched tree", d->new_file.path);
		file = xasprintf("%s/%s", src, d->new_file.path);
		slash = strrchr(file, '/');
		*slash = '\0';
		r = fs_mkdir_p(file);
		*slash = '/';
		if (r == 0)
			r = fs_write_file_atomic(file,
					git_blob_rawcontent(blob),
					(size_t)git_blob_rawsize(blob));
		git_blob_free(blob);
		free(file);
		if (r)
			return r;
	}
	return 0;
}

int patch_tree_write(const char *repo_dir, const char *commit,
		     git_diff *diff, const char *head_src, const char *ctx,
		     char **detail)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	git_oid oid;
	char *src = xasprintf("%s/src", ctx);
	int r = -1;

	*detail = NULL;
	if (git_repository_open(&repo, repo_dir) != 0 ||
	    git_oid_fromstr(&oid, commit) != 0 ||
	    git_commit_lookup(&c, repo, &oid) != 0 ||
	    git_commit_tree(&tree, c) != 0) {
		const git_error *e = git_error_last();

		*detail = xasprintf("cannot read head %.12s: %s", commit,
				    e ? e->message : "?");
	} else if (git_apply_to_tree(&index, repo, tree, diff, NULL) != 0) {
		const git_error *e = git_error_last();

		*detail = xasprintf("does not apply to head %.12s: %s", commit,
				    e ? e->message : "?");
	} else if (fs_remove_tree(ctx) != 0 || fs_mkdir_p(ctx) != 0 ||
		   write_patched(diff, index, repo, head_src, src) != 0) {
		*detail = xasprintf("cannot write the patched tree: %s",
				    crs_error_last());
		crs_error_clear();
	} else {
		r = 0;
	}
	git_index_free(index);
	git_tree_free(tree);
	git_commit_free(c);
	git_repository_free(repo);
	free(src);
	return r;
}
