/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_render.h - the text of the files `crs-ci init` writes
 *
 * Renders the starter compose, the GitHub workflow and the GitLab include
 * into memory from a plan and a few repository-relative paths, with no
 * I/O, so every byte is unit-tested. Paths are checked first: only
 * characters that need no quoting in YAML, in a GitHub expression context
 * or in the GitLab template's shell script get into a generated file.
 */
#ifndef CRS_RUNNER_INIT_INIT_RENDER_H
#define CRS_RUNNER_INIT_INIT_RENDER_H

#include "runner/scan/ctx.h"	/* CRS_CI_VERSION */

struct buf;
struct init_plan;

struct init_render_opts {
	const struct init_plan *plan;
	int plan_is_machine;	/* 1: this machine's CPUs; 0: --cpus N */
	const char *compose;	/* compose path, relative to the repository */
	const char *project;	/* project folder, relative to the repository */
	const char *layout;	/* "ClusterFuzzLite folder", ... */
	const char *regen;	/* the `crs-ci init ...` that rewrites these */
	int public;		/* --public: the two-job mode on GitHub */
	const char *default_branch;	/* pushes to it make the baseline */
	const char *release_commit;	/* CRS_CI_COMMIT_STR: "" unknown */
};

/*
 * The ref every `uses: crs-ci/crs-ci/actions...@REF` and the GitLab
 * component's `@REF` name, so that the first CI run installs the release
 * that wrote the files: with o->release_commit (a release binary) that
 * commit, a tag can be moved, and the tag as a comment, "SHA # vX.Y.Z"
 * (the action maps a commit to its release: actions/release-version.sh);
 * else the tag alone. `ref` has INIT_RELEASE_REF_MAX bytes.
 */
void init_render_release_ref(char *ref, const struct init_render_opts *o);

/*
 * 0 when `path` (relative, as it goes into a CI file) holds only letters,
 * digits, '.', '_', '-', '+', '@' and '/', is not empty, and has no ".."
 * component; else CRS_EINPUT naming `what`, the path and the character.
 */
int init_render_path_ok(const char *path, const char *what);

/* The starter crs-compose.yaml (CRSs by registry name). Cannot fail. */
void init_render_compose(struct buf *out, const struct init_render_opts *o);
/* .github/workflows/crs-ci.yml (o->public: the unprivileged job of the
 * two-job mode). Cannot fail. */
void init_render_github(struct buf *out, const struct init_render_opts *o);
/* .github/workflows/crs-ci-corpus.yml: the scheduled batch and prune
 * runs that grow and minimize the corpus store. Cannot fail. */
void init_render_github_corpus(struct buf *out,
			       const struct init_render_opts *o);
/* .github/workflows/crs-ci-baseline.yml: a scan of each push to the
 * default branch, whose SARIF is the analysis code scanning compares a
 * pull request's alerts with. Cannot fail. */
void init_render_github_baseline(struct buf *out,
				 const struct init_render_opts *o);
/* .github/workflows/crs-ci-publish.yml: the two-job mode's privileged
 * workflow_run job. Cannot fail. */
void init_render_github_publish(struct buf *out,
				const struct init_render_opts *o);
/* The GitLab pipeline file holding the include. Cannot fail. */
void init_render_gitlab(struct buf *out, const struct init_render_opts *o);
/* The lines to add to a user's own .gitlab-ci.yml to include `local`. */
void init_render_gitlab_lines(struct buf *out, const char *local);

/* The mark every rendered file carries in its top comment. */
/* Where `crs-ci init` puts the compose by default, relative to the
 * repository; `crs-ci pre-push` reads it when git config names none. */
#define INIT_COMPOSE ".crs-ci/crs-compose.yaml"

#define INIT_RENDER_MARK "Written by `crs-ci init`"

/*
 * The compose `crs-ci init` wrote in the work tree `worktree` (a trailing
 * '/' or none), "WORKTREE/" INIT_COMPOSE, when it exists; else NULL.
 * The caller frees it.
 */
char *init_compose_find(const char *worktree);

/*
 * The release tag of this crs-ci, vX.Y.Z, which the release process
 * creates (`container/release/release.sh --print-tags`; docs/releasing.md
 * says why no moving tag).
 */
#define INIT_RELEASE_TAG "v" CRS_CI_VERSION
/* Room for "<40 hex digits> # " INIT_RELEASE_TAG and its NUL. */
#define INIT_RELEASE_REF_MAX 96

/*
 * Other owners' actions, pinned by commit (a tag can be moved), with the
 * release each commit is; update both with a release of crs-ci.
 */
#define INIT_CHECKOUT_ACTION \
	"actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0"
#define INIT_DOWNLOAD_ACTION \
	"actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093" \
	" # v4.3.0"

#endif
