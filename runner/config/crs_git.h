/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_git.h - CRS sources fetched from git, cached by commit id
 *
 * A compose or registry entry with source.url + source.ref is fetched with
 * libgit2 into a bare repository <cache>/<commit id>.git, and its tree is
 * exported from those (id-checked) objects into <cache>/<commit id>/ (no
 * .git inside) on every use: the cache may be someone else's, so nothing
 * in it is reused by name. See docs/crs-sources.md.
 */
#ifndef CRS_RUNNER_CONFIG_CRS_GIT_H
#define CRS_RUNNER_CONFIG_CRS_GIT_H

struct crs_git_checkout {
	char *tree;		/* <cache>/<commit id>, exported afresh */
	char commit[41];	/* the commit id, lowercase hex */
	int reused;		/* 1: the objects were there, nothing fetched */
	int offline;		/* 1: the remote was unreachable; the commit
				 * recorded for url+ref by an earlier run */
};

/*
 * Resolve `ref` (a branch, a tag, a full ref name or a full 40-hex commit
 * id) of repository `url` and export its tree into <cache>/<commit id>/
 * from <cache>/<commit id>.git (fetched when missing, or when it lacks
 * the commit or an object, or one does not match its id). A commit id
 * whose repository is cached needs no network; a branch or tag costs one
 * ls-remote. Creates `cache` (mode 0700) when missing.
 * Returns 0 and fills *out (release with crs_git_checkout_release);
 * CRS_ENOTFOUND when the remote is unreachable or has no such ref;
 * CRS_ECONFIG when the commit has submodules (not supported); CRS_ERR
 * when the cache cannot be written. Messages never hold the URL's
 * user:password part, and are one line.
 */
int crs_git_checkout(struct crs_git_checkout *out, const char *url,
		    const char *ref, const char *cache);
void crs_git_checkout_release(struct crs_git_checkout *co);

/* `url` without a user:password@ part, for messages. Caller frees. */
char *crs_git_url_shown(const char *url);

#endif
