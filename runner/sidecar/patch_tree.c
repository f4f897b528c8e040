/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_tree.c - a patch applied to the head tree, and the tests script
 *
 * libgit2 applies a patch in memory to the head commit's tree: the check
 * that it applies cleanly where the maintainer will apply it. The tests
 * run on the head's snapshot with the patch applied (runner/exec/snapshot.h).
 */
#include "runner/sidecar/patch_tree.h"
#include "runner/exec/container.h"
#include "runner/scan/scan.h"
#include "runner/exec/snapshot.h"
#include "runner/exec/target_build.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/strvec.h"
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

/*
 * The tree of `commit` with `diff` applied, in memory. 0 with *index_out
 * and *repo_out (the caller frees both), or -1 with *detail.
 */
static int apply_in_memory(const char *repo_dir, const char *commit,
			   git_diff *diff, git_repository **repo_out,
			   git_index **index_out, char **detail)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_oid oid;
	int r = -1;

	*detail = NULL;
	*index_out = NULL;
	if (git_repository_open(&repo, repo_dir) != 0 ||
	    git_oid_fromstr(&oid, commit) != 0 ||
	    git_commit_lookup(&c, repo, &oid) != 0 ||
	    git_commit_tree(&tree, c) != 0) {
		const git_error *e = git_error_last();

		*detail = xasprintf("cannot read head %.12s: %s", commit,
				    e ? e->message : "?");
	} else if (git_apply_to_tree(index_out, repo, tree, diff,
				     NULL) != 0) {
		const git_error *e = git_error_last();

		*detail = xasprintf("does not apply to head %.12s: %s", commit,
				    e ? e->message : "?");
	} else {
		r = 0;
	}
	git_tree_free(tree);
	git_commit_free(c);
	if (r == 0)
		*repo_out = repo;
	else
		git_repository_free(repo);
	return r;
}

int patch_tree_check(const char *repo_dir, const char *commit,
		     git_diff *diff, char **detail)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	int r;

	r = apply_in_memory(repo_dir, commit, diff, &repo, &index, detail);
	git_index_free(index);
	git_repository_free(repo);
	return r;
}

int patch_tree_run_tests(struct scan *s, const char *snapshot,
			 const char *patch_path, const char *which,
			 const char *cpuset, long long memory, double limit_s,
			 const char *log_path,
			 enum patch_tests_outcome *outcome_out,
			 int *exit_code_out)
{
	struct snapshot_job j = SNAPSHOT_JOB_INIT;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	static const char *const cmd[] = { "/bin/bash", "-c",
					   patch_tests_script, NULL };
	struct buf b = BUF_INIT;
	int r;

	*outcome_out = PATCH_TESTS_ERROR;
	*exit_code_out = -1;
	target_build_env(&env, s, s->state.sanitizer);
	strvec_pushf(&binds, "%s/builds/%s/%s/out:/out:ro", s->work_dir,
		     s->state.sanitizer, which);
	j.image = snapshot;
	j.patch_path = patch_path;
	j.cmd = cmd;
	j.env = strvec_list(&env);
	j.binds = strvec_list(&binds);
	j.cpuset = cpuset;
	j.memory = memory;
	j.limit_s = limit_s;
	j.log_path = log_path;
	r = snapshot_run(s, &j);
	if (r == CRS_EINTR)
		goto out;
	*exit_code_out = j.exit_code;
	if (r == 0 && j.apply_failed)
		r = crs_error_set(CRS_ERR, "the patch does not apply to the "
				  "snapshot %s", snapshot);
	if (r != 0)
		*outcome_out = PATCH_TESTS_ERROR;	/* message kept */
	else if (j.exit_code == PATCH_TESTS_NONE_EXIT &&
		 fs_read_file(&b, log_path, 1u << 20) == 0 &&
		 memmem(b.ptr, b.len, PATCH_TESTS_NONE_MARK,
			strlen(PATCH_TESTS_NONE_MARK)))
		*outcome_out = PATCH_TESTS_NONE;
	else
		*outcome_out = j.exit_code == 0 ? PATCH_TESTS_PASSED :
			PATCH_TESTS_FAILED;
	if (*outcome_out != PATCH_TESTS_ERROR)
		crs_error_clear();
	r = 0;
out:
	buf_release(&b);
	strvec_release(&env);
	strvec_release(&binds);
	return r;
}
