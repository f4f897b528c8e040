/* SPDX-License-Identifier: Apache-2.0 */
/*
 * example_repo.c - the bundled recparse example, found and made a repo
 *
 * The repository is made with libgit2 (no git command at run time) the
 * way examples/make-repo.sh makes it: the same files, names, dates and
 * messages. The examples folder is crs-ci's own (trusted); the new
 * repository is a fresh folder crs-ci alone writes.
 */
#include "runner/scan/example_repo.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char readme[] =
"# recparse\n"
"\n"
"A tiny parser for \"RP\" record files: the magic `RP`, a version byte and a\n"
"list of type-length-value records. `src/` is the library, `fuzz/` holds the\n"
"libFuzzer harnesses and their seed corpora (`fuzz/corpus/<harness>/`).\n";

/* examples/make-repo.sh's message for the pr commit, word for word */
static const char head_message[] =
"support extended records\n"
"\n"
"Version 2 files may carry values longer than 255 bytes as extended\n"
"records: a type byte with RP_EXTENDED set, the total length as two\n"
"big-endian bytes, then length-prefixed segments up to an empty one.\n"
"Adds seeds with an extended record and with truncated ones.\n";

static int examples_ok(const char *dir)
{
	char *a = xasprintf("%s/recparse/pr", dir);
	char *b = xasprintf("%s/projects/recparse/build.sh", dir);
	int ok = fs_exists(a) && fs_exists(b);

	free(a);
	free(b);
	return ok;
}

int example_dir_find(char **out, const char *opt)
{
	char *exe, *slash;
	const char *rel[] = { "../examples", "../share/crs-ci/examples" };
	int r;

	*out = NULL;
	if (opt) {
		if (!examples_ok(opt))
			return crs_error_set(CRS_EINPUT, "--example %s: no "
					     "recparse/pr and "
					     "projects/recparse/build.sh in "
					     "it", opt);
		*out = fs_abspath(opt);
		return 0;
	}
	if (!(exe = fs_self_exe(NULL)))
		return crs_error_set(CRS_EINPUT, "cannot tell where crs-ci is "
				     "installed; give --example DIR");
	if ((slash = strrchr(exe, '/')))
		*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = xasprintf("%s/%s", exe, rel[i]);
		char *real = examples_ok(p) ? realpath(p, NULL) : NULL;

		free(p);
		if (real) {
			*out = real;
			free(exe);
			return 0;
		}
	}
	r = crs_error_set(CRS_EINPUT, "no examples folder at %s/%s or %s/%s; "
			  "give --example DIR", exe, rel[0], exe, rel[1]);
	free(exe);
	return r;
}

static int git_fail(const char *step)
{
	const git_error *e = git_error_last();

	return crs_error_set(CRS_ERR, "example repository: %s: %s", step,
			     e && e->message ? e->message : "failed");
}

/* Stage the whole work tree and commit it on `ref` with `parent`. */
static int commit_all(git_repository *repo, const char *ref,
		      const git_commit *parent, git_time_t when,
		      const char *message, git_oid *out)
{
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id;
	const git_commit *parents[1] = { parent };
	int r = 0;

	if (git_repository_index(&idx, repo) != 0 ||
	    git_index_add_all(idx, NULL, 0, NULL, NULL) != 0 ||
	    git_index_write(idx) != 0 ||
	    git_index_write_tree(&tree_id, idx) != 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) != 0 ||
	    git_signature_new(&sig, "Rec Parse Maintainer",
			      "maintainer@example.invalid", when, 0) != 0 ||
	    git_commit_create(out, repo, ref, sig, sig, NULL, message, tree,
			      parent ? 1 : 0, parents) != 0)
		r = git_fail("commit");
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	return r;
}

/* recparse/<from>/src and fuzz (those that exist) copied over `dest`. */
static int lay_over(const char *examples, const char *from, const char *dest)
{
	static const char *const parts[] = { "src", "fuzz" };
	int r = 0;

	for (size_t i = 0; i < 2 && r == 0; i++) {
		char *p = xasprintf("%s/recparse/%s%s", examples, from,
				    parts[i]);
		char *d = xasprintf("%s/%s", dest, parts[i]);

		if (fs_exists(p))
			r = fs_copy_tree(p, d);
		free(p);
		free(d);
	}
	return r;
}

int example_repo_make(const char *examples, const char *dest,
		      char **base_out, char **head_out)
{
	git_repository_init_options io;
	git_repository *repo = NULL;
	git_commit *base = NULL;
	git_reference *pr = NULL;
	git_oid base_id, head_id;
	char hex[GIT_OID_HEXSZ + 1];
	char *readme_path = xasprintf("%s/README.md", dest);
	int r = CRS_ERR;

	*base_out = *head_out = NULL;
	git_repository_init_options_init(&io,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	io.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
	io.initial_head = "main";
	if (git_repository_init_ext(&repo, dest, &io) != 0) {
		r = git_fail("init");
		goto out;
	}
	/* commit 1 on main: the clean library */
	if ((r = lay_over(examples, "", dest)) != 0 ||
	    (r = fs_write_file_atomic(readme_path, readme,
				      strlen(readme))) != 0 ||
	    (r = commit_all(repo, "HEAD", NULL, 1709287200, "base\n",
			    &base_id)) != 0)
		goto out;
	/* commit 2 on pr: the pull request laid over it */
	if (git_commit_lookup(&base, repo, &base_id) != 0 ||
	    git_branch_create(&pr, repo, "pr", base, 0) != 0 ||
	    git_repository_set_head(repo, "refs/heads/pr") != 0) {
		r = git_fail("branch pr");
		goto out;
	}
	if ((r = lay_over(examples, "pr/", dest)) != 0 ||
	    (r = commit_all(repo, "HEAD", base, 1709566200, head_message,
			    &head_id)) != 0)
		goto out;
	*base_out = xstrdup(git_oid_tostr(hex, sizeof(hex), &base_id));
	*head_out = xstrdup(git_oid_tostr(hex, sizeof(hex), &head_id));
	r = 0;
out:
	free(readme_path);
	git_reference_free(pr);
	git_commit_free(base);
	git_repository_free(repo);
	return r;
}
