/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_git.c - check out a CRS's git source into the source cache
 *
 * A CRS repository is content, not configuration: no link followed,
 * no submodules, and credentials in the URL are never shown. The cache
 * keeps a bare repository per commit; the tree is exported from its
 * (id-checked) objects on every use, never reused by name.
 *
 * Details: docs/crs-sources.md; design notes: docs/internals.md.
 */
#include "runner/config/crs_git.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *crs_git_url_shown(const char *url)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL;

	if (!auth)
		return xstrdup(url);
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(auth - url), url, at + 1);
}

/*
 * Set the error from libgit2's last message, one line, with the URL's
 * credentials cut out wherever they appear.
 */
static int git_fail(int code, const char *url, const char *fmt,
		    const char *arg)
{
	const git_error *e = git_error_last();
	char *shown = crs_git_url_shown(url);
	struct buf msg = BUF_INIT;
	const char *text = e && e->message ? e->message : "unknown error";
	size_t cut = 0;
	const char *auth = strstr(url, "://");

	/* the user:password@ part, when the URL has one */
	if (auth && strcmp(shown, url))
		cut = strlen(url) - strlen(shown);
	for (const char *p = text; *p; p++) {
		if (cut && !strncmp(p, auth + 3, cut)) {
			p += cut - 1;
			continue;
		}
		buf_addch(&msg, *p == '\n' || *p == '\r' ? ' ' : *p);
	}
	while (msg.len && msg.ptr[msg.len - 1] == ' ')
		msg.ptr[--msg.len] = '\0';
	crs_error_set(code, fmt, shown, arg, msg.ptr ? msg.ptr : "");
	free(shown);
	buf_release(&msg);
	return code;
}

/* mkdir -p with mode 0700 for every folder it creates. */
static int mkdir_private(const char *path)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1; r == 0; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			r = crs_error_set(CRS_ERR, "%s: %s", p,
					  strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

static int is_commit_id(const char *ref)
{
	return strlen(ref) == 40 && strspn(ref, "0123456789abcdefABCDEF") == 40;
}

/*
 * ls-remote: the commit `ref` names on the remote. Prefers a full ref
 * name, then a branch, then a tag (peeled to its commit). *refname_out
 * gets the remote's ref name.
 */
static int remote_lookup(git_oid *oid, char **refname_out, const char *url,
			 const char *ref)
{
	git_remote *remote = NULL;
	git_remote_callbacks cb;
	const git_remote_head **heads = NULL;
	size_t n = 0;
	char *want[4] = { NULL };
	int r = CRS_ENOTFOUND;

	*refname_out = NULL;
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	if (git_remote_create_detached(&remote, url) < 0 ||
	    git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL,
			       NULL) < 0 ||
	    git_remote_ls(&heads, &n, remote) < 0) {
		r = git_fail(CRS_ENOTFOUND, url, "cannot reach %s (ref %s): "
			     "%s", ref);
		goto out;
	}
	want[0] = !strncmp(ref, "refs/", 5) ? xstrdup(ref) : NULL;
	want[1] = xasprintf("refs/heads/%s", ref);
	want[2] = xasprintf("refs/tags/%s^{}", ref);
	want[3] = xasprintf("refs/tags/%s", ref);
	for (size_t w = 0; w < 4 && !*refname_out; w++)
		for (size_t i = 0; want[w] && i < n; i++) {
			if (strcmp(heads[i]->name, want[w]))
				continue;
			git_oid_cpy(oid, &heads[i]->oid);
			*refname_out = xstrdup(want[w]);
			if (w == 2)	/* fetch the tag; its commit is oid */
				(*refname_out)[strlen(*refname_out) - 3] = 0;
			break;
		}
	if (!*refname_out) {
		char *shown = crs_git_url_shown(url);

		r = crs_error_set(CRS_ENOTFOUND, "%s has no branch or tag "
				  "\"%s\"%s", shown, ref, strspn(ref,
				  "0123456789abcdef") == strlen(ref) ?
				  " (a commit id must be all 40 hex digits)" :
				  "");
		free(shown);
		goto out;
	}
	r = 0;
out:
	for (size_t w = 0; w < 4; w++)
		free(want[w]);
	git_remote_free(remote);
	return r;
}

/* The record of what url+ref resolved to, for offline runs. */
static char *ref_record(const char *cache, const char *url, const char *ref)
{
	struct buf b = BUF_INIT;
	char hex[65];

	buf_printf(&b, "%s%c%s", url, 0, ref);
	sha256_hex(hex, b.ptr, b.len);
	buf_release(&b);
	return xasprintf("%s/refs/%s", cache, hex);
}

/* Fetch `ref` of `url` into a new bare repository at `dir`, which must
 * then hold commit `oid`. */
static int clone_into(const char *dir, const char *url, const char *ref,
		      const git_oid *oid, const char *refname)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_commit *commit = NULL;
	git_fetch_options fo;
	git_remote_create_options ro;
	char *spec = NULL;
	char *all[] = { "+refs/heads/*:refs/crs-ci/heads/*",
			"+refs/tags/*:refs/crs-ci/tags/*" };
	git_strarray specs = { all, 2 };
	int r = CRS_ERR;

	if (refname) {
		spec = xasprintf("+%s:refs/crs-ci/want", refname);
		specs.strings = &spec;
		specs.count = 1;
	}
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_repository_init(&repo, dir, 1) < 0) {
		r = git_fail(CRS_ERR, url, "%s (ref %s): init: %s", ref);
		goto out;
	}
	/*
	 * No url.*.insteadOf rewriting: the URL is the compose's, as
	 * written (and libgit2 1.5 leaks in that lookup).
	 */
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, url, &ro) < 0 ||
	    git_remote_fetch(remote, &specs, &fo, NULL) < 0) {
		r = git_fail(CRS_ENOTFOUND, url, "cannot fetch %s (ref %s): "
			     "%s", ref);
		goto out;
	}
	if (git_commit_lookup(&commit, repo, oid) < 0) {
		char *shown = crs_git_url_shown(url);

		r = crs_error_set(CRS_ENOTFOUND, "%s has no commit \"%s\" on "
				  "any branch or tag", shown, ref);
		free(shown);
		goto out;
	}
	r = 0;
out:
	git_commit_free(commit);
	git_remote_free(remote);
	git_repository_free(repo);
	free(spec);
	return r;
}

/*
 * Check commit `oid` of the bare repository `repo_dir` out into a new
 * temporary folder in `cache`, then swap it into co->tree: the files come
 * from objects libgit2 checks against their ids as it reads them, so a
 * repository or a checkout someone else put in the cache cannot change
 * what the CRS is. CRS_ENOTFOUND when the repository lacks the commit or
 * one of its objects (or they do not match their ids); CRS_ECONFIG for
 * submodules.
 */
static int export_tree(struct crs_git_checkout *co, const char *cache,
		       const char *repo_dir, const git_oid *oid,
		       const char *url, const char *ref)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_checkout_options opts;
	char *tmp = xasprintf("%s/.tmp-XXXXXX", cache);
	int r = CRS_ENOTFOUND, made = 0;

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	/* libgit2's default, made explicit: every object read is hashed */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	if (git_repository_open_ext(&repo, repo_dir,
				    GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL) < 0 ||
	    git_commit_lookup(&commit, repo, oid) < 0 ||
	    git_commit_tree(&tree, commit) < 0) {
		r = git_fail(CRS_ENOTFOUND, url, "%s (ref %s): the cached "
			     "repository: %s", ref);
		goto out;
	}
	if (git_tree_entry_byname(tree, ".gitmodules")) {
		char *shown = crs_git_url_shown(url);

		r = crs_error_set(CRS_ECONFIG, "%s at \"%s\" has submodules, "
				  "which crs-ci does not fetch (vendor them, "
				  "or check the repository out and use "
				  "source.local_path)", shown, ref);
		free(shown);
		goto out;
	}
	if (!mkdtemp(tmp)) {
		r = crs_error_set(CRS_ERR, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	made = 1;
	/* no filter (a cached repository's config could name one) */
	opts.checkout_strategy = GIT_CHECKOUT_FORCE |
		GIT_CHECKOUT_DONT_UPDATE_INDEX;
	opts.disable_filters = 1;
	opts.target_directory = tmp;
	if (git_checkout_tree(repo, (const git_object *)commit, &opts) < 0) {
		r = git_fail(CRS_ENOTFOUND, url, "%s (ref %s): checkout: %s",
			     ref);
		goto out;
	}
	/* whatever was at co->tree (another run's export, or anything
	 * else) goes, in one step */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, co->tree,
		      RENAME_EXCHANGE) != 0 && (errno != ENOENT ||
		      rename(tmp, co->tree) != 0)) {
		r = crs_error_set(CRS_ERR, "rename %s to %s: %s", tmp,
				  co->tree, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (made)
		fs_remove_tree(tmp);	/* best effort: the error stands */
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	free(tmp);
	return r;
}

/* Fetch into a temporary folder and rename it to `repo_dir`. */
static int clone_atomic(const char *repo_dir, const char *cache,
			const char *url, const char *ref, const git_oid *oid,
			const char *refname)
{
	char *tmp = xasprintf("%s/.tmp-XXXXXX", cache);
	int r;

	if (!mkdtemp(tmp)) {
		r = crs_error_set(CRS_ERR, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return r;
	}
	r = clone_into(tmp, url, ref, oid, refname);
	if (r == 0 && rename(tmp, repo_dir) != 0 &&
	    !((errno == EEXIST || errno == ENOTEMPTY) && fs_exists(repo_dir)))
		r = crs_error_set(CRS_ERR, "rename %s to %s: %s", tmp,
				  repo_dir, strerror(errno));
	if (fs_exists(tmp))	/* failed, or another run won the race */
		fs_remove_tree(tmp);	/* best effort: the error stands */
	free(tmp);
	return r;
}

int crs_git_checkout(struct crs_git_checkout *out, const char *url,
		    const char *ref, const char *cache)
{
	struct crs_git_checkout co = { 0 };
	struct buf rec = BUF_INIT;
	char *refname = NULL, *record = NULL, *repo_dir = NULL;
	git_oid oid;
	int r = CRS_ERR;

	memset(out, 0, sizeof(*out));
	if ((r = mkdir_private(cache)) != 0)
		goto out;
	record = ref_record(cache, url, ref);
	if (is_commit_id(ref)) {
		git_oid_fromstr(&oid, ref);
	} else if ((r = remote_lookup(&oid, &refname, url, ref)) != 0) {
		/* unreachable: a commit recorded by an earlier run will do */
		char *why = xstrdup(crs_error_last());

		if (fs_read_file(&rec, record, 64) != 0 || rec.len < 40 ||
		    git_oid_fromstrn(&oid, rec.ptr, 40) != 0 ||
		    (git_oid_tostr(co.commit, sizeof(co.commit), &oid),
		     co.tree = xasprintf("%s/%s", cache, co.commit),
		     repo_dir = xasprintf("%s.git", co.tree),
		     export_tree(&co, cache, repo_dir, &oid, url, ref) != 0)) {
			crs_error_set(r, "%s", why);	/* that error stands */
			free(why);
			goto out;
		}
		log_warn("%s; using commit %s recorded by an earlier run",
			 why, co.commit);
		free(why);
		crs_error_clear();
		co.offline = co.reused = 1;
		r = 0;
		goto done;
	}
	git_oid_tostr(co.commit, sizeof(co.commit), &oid);
	co.tree = xasprintf("%s/%s", cache, co.commit);
	repo_dir = xasprintf("%s.git", co.tree);
	/* reused only for its objects, which are checked against their ids:
	 * the tree is exported afresh from them every time */
	co.reused = fs_exists(repo_dir);
	if (co.reused && (r = export_tree(&co, cache, repo_dir, &oid, url,
					  ref)) == CRS_ENOTFOUND) {
		log_warn("%s; fetching it again", crs_error_last());
		crs_error_clear();
		co.reused = 0;
		if ((r = fs_remove_tree(repo_dir)) != 0)
			goto out;
	}
	if (!co.reused &&
	    ((r = clone_atomic(repo_dir, cache, url, ref, &oid, refname)) != 0 ||
	     (r = export_tree(&co, cache, repo_dir, &oid, url, ref)) != 0))
		goto out;
	if (r != 0)
		goto out;
	if (refname) {	/* for a later run that cannot reach the remote */
		char *dir = xasprintf("%s/refs", cache);

		if ((r = mkdir_private(dir)) == 0)
			r = fs_write_file_atomic(record, co.commit, 40);
		free(dir);
		if (r != 0)
			goto out;
	}
	r = 0;
done:
	*out = co;
	memset(&co, 0, sizeof(co)); /* transferred */
out:
	crs_git_checkout_release(&co);
	buf_release(&rec);
	free(refname);
	free(record);
	free(repo_dir);
	return r;
}

void crs_git_checkout_release(struct crs_git_checkout *co)
{
	if (!co)
		return;
	free(co->tree);
	co->tree = NULL;
}
