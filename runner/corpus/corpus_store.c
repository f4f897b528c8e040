/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_store.c - read and grow corpus/<harness>/ on a store's branch
 *
 * The branch is fetched into crs-ci's own bare repository and read from
 * its objects (libgit2 checks each against its id); a commit made here is
 * pushed with the fetched tip as its parent, so a push racing another
 * run's is refused, not lost.
 */
#include "runner/corpus/corpus_store.h"
#include "runner/corpus/corpus_sink.h"

#include <dirent.h>
#include <fcntl.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>


#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/xalloc.h"
#include "runner/config/crs_git.h"

struct grown {
	char *harness;
	git_treebuilder *tb;	/* corpus/<harness>/ of the next commit */
	size_t added;
	int replaced;		/* tb started empty: a prune's */
};

/* A file the next commit sets: <dir>/<name>. */
struct store_file {
	char *dir, *name;
	git_oid blob;
};

struct corpus_store {
	git_repository *repo;
	git_remote *remote;
	char *branch;
	char *shown;		/* url without credentials, "#branch" */
	git_oid tip;		/* the fetched branch's commit */
	int has_tip;
	struct grown *grown;
	size_t grown_nr;
	char *push_refused;	/* a push callback's reason */
	char *user, *token;	/* HTTPS credentials, or NULL */
	struct store_file *files;
	size_t files_nr;
	int asked;		/* the credentials were offered once */
};

/* libgit2 asks for credentials: the token, once (a second ask means the
 * server refused it). */
static int on_credentials(git_credential **out, const char *url,
			  const char *user_from_url, unsigned int allowed,
			  void *payload)
{
	struct corpus_store *st = payload;

	(void)url;
	(void)user_from_url;
	if (!st->token || st->asked ||
	    !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
		return GIT_PASSTHROUGH;
	st->asked = 1;
	return git_credential_userpass_plaintext_new(out, st->user, st->token);
}

/* The error from libgit2's last message, credentials never shown. */
static int store_fail(const struct corpus_store *st, int code, const char *what)
{
	const git_error *e = git_error_last();
	const char *text = e && e->message ? e->message : "unknown error";
	char *clean = crs_git_url_shown(text);	/* a URL in the text */

	crs_error_set(code, "corpus store %s: %s: %s", st->shown, what, clean);
	free(clean);
	return code;
}

const char *corpus_store_shown(const struct corpus_store *st)
{
	return st->shown;
}

int corpus_store_open(struct corpus_store **out, const char *url,
		      const char *branch, const char *gitdir,
		      const char *user, const char *token)
{
	struct corpus_store *st = xcalloc(1, sizeof(*st));
	git_remote_create_options ro;
	git_fetch_options fo;
	git_reference *ref = NULL;
	char *spec = xasprintf("+refs/heads/%s:refs/remotes/store/%s", branch,
			       branch);
	char *shown = crs_git_url_shown(url);
	git_strarray specs = { &spec, 1 };
	int r = 0;

	*out = NULL;
	if (token && *token) {
		st->user = xstrdup(user && *user ? user : "x-access-token");
		st->token = xstrdup(token);
	}
	st->branch = xstrdup(branch);
	st->shown = xasprintf("%s#%s", shown, branch);
	free(shown);
	if (git_repository_init(&st->repo, gitdir, 1) < 0) {
		r = store_fail(st, CRS_ERR, "init");
		goto out;
	}
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = st->repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.callbacks.credentials = on_credentials;
	fo.callbacks.payload = st;
	if (git_remote_create_with_opts(&st->remote, url, &ro) < 0 ||
	    git_remote_fetch(st->remote, &specs, &fo, NULL) < 0) {
		r = store_fail(st, CRS_ENOTFOUND, "cannot fetch");
		goto out;
	}
	{
		char *name = xasprintf("refs/remotes/store/%s", branch);

		if (git_reference_lookup(&ref, st->repo, name) == 0 &&
		    git_reference_resolve(&ref, ref) == 0) {
			git_oid_cpy(&st->tip, git_reference_target(ref));
			st->has_tip = 1;
		}
		git_error_clear();
		free(name);
	}
out:
	git_reference_free(ref);
	free(spec);
	if (r != 0)
		corpus_store_free(st);
	else
		*out = st;
	return r;
}

/* corpus/<harness> of the tip, or NULL (*tree the caller's). */
static int harness_tree(struct corpus_store *st, const char *harness,
			git_tree **tree)
{
	git_commit *c = NULL;
	git_tree *root = NULL;
	git_tree_entry *e = NULL;
	char *path = xasprintf("corpus/%s", harness);
	int r = 0;

	*tree = NULL;
	if (!st->has_tip)
		goto out;
	if (git_commit_lookup(&c, st->repo, &st->tip) < 0 ||
	    git_commit_tree(&root, c) < 0) {
		r = store_fail(st, CRS_ERR, "the branch's tip");
		goto out;
	}
	if (git_tree_entry_bypath(&e, root, path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		git_error_clear();
		goto out;
	}
	if (git_tree_lookup(tree, st->repo, git_tree_entry_id(e)) < 0)
		r = store_fail(st, CRS_ERR, path);
out:
	git_tree_entry_free(e);
	git_tree_free(root);
	git_commit_free(c);
	free(path);
	return r;
}

int corpus_store_read(struct corpus_store *st, const char *harness,
		      struct corpus_sink *k, struct corpus_count *c)
{
	git_tree *tree = NULL;
	git_odb *odb = NULL;
	size_t n;
	int r;

	if ((r = harness_tree(st, harness, &tree)) != 0 || !tree)
		return r;
	n = git_tree_entrycount(tree);
	if (n > CORPUS_STORE_ENTRIES_MAX) {
		r = crs_error_set(CRS_EINPUT, "corpus store %s: corpus/%s has "
				  "more than %d entries (the cap): refused",
				  st->shown, harness, CORPUS_STORE_ENTRIES_MAX);
		goto out;
	}
	if (git_repository_odb(&odb, st->repo) < 0) {
		r = store_fail(st, CRS_ERR, "objects");
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		git_filemode_t mode = git_tree_entry_filemode(e);
		git_object_t type;
		git_blob *blob = NULL;
		size_t size;

		if (mode == GIT_FILEMODE_TREE)
			continue;
		if (mode != GIT_FILEMODE_BLOB &&
		    mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
			c->not_regular++;	/* a link, a submodule */
			continue;
		}
		/* its size before its bytes */
		if (git_odb_read_header(&size, &type, odb,
					git_tree_entry_id(e)) < 0 ||
		    type != GIT_OBJECT_BLOB) {
			r = store_fail(st, CRS_ERR, "an object");
			break;
		}
		if (size > CORPUS_INPUT_MAX) {
			c->read++;
			c->too_big++;
			continue;
		}
		if (git_blob_lookup(&blob, st->repo, git_tree_entry_id(e)) < 0) {
			r = store_fail(st, CRS_ERR, "an object");
			break;
		}
		r = corpus_sink_add(k, git_blob_rawcontent(blob),
				    (size_t)git_blob_rawsize(blob), c, NULL);
		git_blob_free(blob);
	}
out:
	git_odb_free(odb);
	git_tree_free(tree);
	return r;
}

/* The builder of corpus/<harness>/ for the next commit. */
static int grown_for(struct corpus_store *st, const char *harness,
		     struct grown **out)
{
	git_tree *tree = NULL;
	struct grown *g;
	int r;

	for (size_t i = 0; i < st->grown_nr; i++)
		if (!strcmp(st->grown[i].harness, harness)) {
			*out = &st->grown[i];
			return 0;
		}
	if ((r = harness_tree(st, harness, &tree)) != 0)
		return r;
	st->grown = xrealloc(st->grown, (st->grown_nr + 1) * sizeof(*g));
	g = &st->grown[st->grown_nr];
	memset(g, 0, sizeof(*g));
	if (git_treebuilder_new(&g->tb, st->repo, tree) < 0) {
		git_tree_free(tree);
		return store_fail(st, CRS_ERR, "tree");
	}
	git_tree_free(tree);
	g->harness = xstrdup(harness);
	st->grown_nr++;
	*out = g;
	return 0;
}

int corpus_store_add(struct corpus_store *st, const char *harness, int folder,
		     size_t *added)
{
	DIR *d = fs_dir_stream(folder);
	char *buf = NULL;
	struct dirent *de;
	struct grown *g;
	int r;

	*added = 0;
	if (!d)
		return crs_error_set(CRS_ERR, "corpus of %s: cannot list",
				     harness);
	if ((r = grown_for(st, harness, &g)) != 0)
		goto out;
	buf = xmalloc(CORPUS_INPUT_MAX + 1);
	while (r == 0 && (de = readdir(d))) {
		char name[CORPUS_NAME_SIZE];
		struct stat sb;
		size_t len;
		git_oid oid;
		int fd;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode) || (size_t)sb.st_size > CORPUS_INPUT_MAX)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = safe_read_full(fd, buf, CORPUS_INPUT_MAX + 1, &len,
				   de->d_name);
		close(fd);
		if (r != 0 || len > CORPUS_INPUT_MAX)
			continue;
		corpus_sink_name(name, buf, len);
		if (git_treebuilder_get(g->tb, name))
			continue;
		if (git_blob_create_from_buffer(&oid, st->repo, buf, len) < 0 ||
		    git_treebuilder_insert(NULL, g->tb, name, &oid,
					   GIT_FILEMODE_BLOB) < 0) {
			r = store_fail(st, CRS_ERR, "adding an input");
			break;
		}
		g->added++;
		++*added;
	}
out:
	closedir(d);
	free(buf);
	return r;
}

int corpus_store_replace(struct corpus_store *st, const char *harness,
			 int folder, size_t *kept)
{
	struct grown *g;
	int r;

	if ((r = grown_for(st, harness, &g)) != 0)
		return r;
	if (git_treebuilder_clear(g->tb) < 0)
		return store_fail(st, CRS_ERR, "tree");
	g->added = 0;
	g->replaced = 1;
	return corpus_store_add(st, harness, folder, kept);
}

/* A tree: `base` (or empty) with `name` set to the tree `id`. */
static int tree_with(struct corpus_store *st, const git_tree *base,
		     const char *name, const git_oid *id, git_oid *out)
{
	git_treebuilder *tb = NULL;
	int r = 0;

	if (git_treebuilder_new(&tb, st->repo, base) < 0 ||
	    git_treebuilder_insert(NULL, tb, name, id, GIT_FILEMODE_TREE) < 0 ||
	    git_treebuilder_write(out, tb) < 0)
		r = store_fail(st, CRS_ERR, "tree");
	git_treebuilder_free(tb);
	return r;
}

static int on_push_update(const char *refname, const char *status, void *data)
{
	struct corpus_store *st = data;

	(void)refname;
	if (status && !st->push_refused)
		st->push_refused = xstrdup(status);
	return 0;
}

/* The subtree `name` of `root` (NULL when none: *out NULL). */
static int subtree(struct corpus_store *st, const git_tree *root,
		   const char *name, git_tree **out)
{
	git_tree_entry *e = NULL;
	int r = 0;

	*out = NULL;
	if (root && git_tree_entry_bypath(&e, root, name) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_TREE &&
	    git_tree_lookup(out, st->repo, git_tree_entry_id(e)) < 0)
		r = store_fail(st, CRS_ERR, name);
	git_error_clear();
	git_tree_entry_free(e);
	return r;
}

/* *root (replaced) with its folder `name` set to the tree `id`. */
static int root_with(struct corpus_store *st, git_tree **root,
		     const char *name, const git_oid *id)
{
	git_oid rid;
	int r;

	if ((r = tree_with(st, *root, name, id, &rid)) != 0)
		return r;
	git_tree_free(*root);
	*root = NULL;
	if (git_tree_lookup(root, st->repo, &rid) < 0)
		return store_fail(st, CRS_ERR, "tree");
	return 0;
}

/* corpus/ with every grown harness's folder, into *root. */
static int compose_corpus(struct corpus_store *st, git_tree **root)
{
	git_tree *corpus = NULL;
	git_oid corpus_id;
	int r, any = 0;

	if ((r = subtree(st, *root, "corpus", &corpus)) != 0)
		return r;
	for (size_t i = 0; i < st->grown_nr && r == 0; i++) {
		git_oid hid;

		if (!st->grown[i].added && !st->grown[i].replaced)
			continue;
		if (git_treebuilder_write(&hid, st->grown[i].tb) < 0) {
			r = store_fail(st, CRS_ERR, "tree");
			break;
		}
		if ((r = tree_with(st, corpus, st->grown[i].harness, &hid,
				   &corpus_id)) == 0) {
			git_tree_free(corpus);
			corpus = NULL;
			if (git_tree_lookup(&corpus, st->repo, &corpus_id) < 0)
				r = store_fail(st, CRS_ERR, "tree");
		}
		any = 1;
	}
	if (r == 0 && any)
		r = root_with(st, root, "corpus", &corpus_id);
	git_tree_free(corpus);
	return r;
}

/* Every file corpus_store_put_file set, into *root. */
static int compose_files(struct corpus_store *st, git_tree **root)
{
	int r = 0;

	for (size_t i = 0; i < st->files_nr && r == 0; i++) {
		git_tree *dir = NULL;
		git_treebuilder *tb = NULL;
		git_oid did;

		if ((r = subtree(st, *root, st->files[i].dir, &dir)) != 0)
			break;
		if (git_treebuilder_new(&tb, st->repo, dir) < 0 ||
		    git_treebuilder_insert(NULL, tb, st->files[i].name,
					   &st->files[i].blob,
					   GIT_FILEMODE_BLOB) < 0 ||
		    git_treebuilder_write(&did, tb) < 0)
			r = store_fail(st, CRS_ERR, "tree");
		else
			r = root_with(st, root, st->files[i].dir, &did);
		git_treebuilder_free(tb);
		git_tree_free(dir);
	}
	return r;
}

int corpus_store_push(struct corpus_store *st, const char *message)
{
	git_commit *parent = NULL;
	git_tree *root = NULL;
	git_signature *sig = NULL;
	git_push_options po;
	git_oid commit_id;
	char *refspec = xasprintf("refs/heads/%s:refs/heads/%s", st->branch,
				  st->branch);
	char *local = xasprintf("refs/heads/%s", st->branch);
	git_strarray specs = { &refspec, 1 };
	size_t changed = st->files_nr;
	int r = 0;

	for (size_t i = 0; i < st->grown_nr; i++)
		changed += st->grown[i].added + (size_t)st->grown[i].replaced;
	if (!changed)
		goto out;
	if (st->has_tip && (git_commit_lookup(&parent, st->repo, &st->tip) < 0 ||
			    git_commit_tree(&root, parent) < 0)) {
		r = store_fail(st, CRS_ERR, "the branch's tip");
		goto out;
	}
	if ((r = compose_corpus(st, &root)) != 0 ||
	    (r = compose_files(st, &root)) != 0)
		goto out;
	if (git_signature_now(&sig, "crs-ci", "crs-ci@invalid") < 0 ||
	    git_commit_create(&commit_id, st->repo, local, sig, sig, NULL,
			      message, root, parent ? 1 : 0,
			      (const git_commit **)&parent) < 0) {
		r = store_fail(st, CRS_ERR, "commit");
		goto out;
	}
	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	po.callbacks.push_update_reference = on_push_update;
	po.callbacks.credentials = on_credentials;
	po.callbacks.payload = st;
	st->asked = 0;
	if (git_remote_push(st->remote, &specs, &po) < 0) {
		r = store_fail(st, CRS_ERR, "push");
		goto out;
	}
	if (st->push_refused)
		r = crs_error_set(CRS_ERR, "corpus store %s: push refused: %s "
				  "(did another run push first?)", st->shown,
				  st->push_refused);
out:
	git_signature_free(sig);
	git_tree_free(root);
	git_commit_free(parent);
	free(refspec);
	free(local);
	return r;
}

int corpus_store_read_file(struct corpus_store *st, const char *path,
			   struct buf *out, size_t max)
{
	git_commit *c = NULL;
	git_tree *root = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	git_odb *odb = NULL;
	git_object_t type;
	size_t size;
	int r = CRS_ENOTFOUND;

	if (!st->has_tip)
		return crs_error_set(CRS_ENOTFOUND, "%s: no branch yet",
				     st->shown);
	if (git_commit_lookup(&c, st->repo, &st->tip) < 0 ||
	    git_commit_tree(&root, c) < 0 ||
	    git_repository_odb(&odb, st->repo) < 0) {
		r = store_fail(st, CRS_ERR, "the branch's tip");
		goto out;
	}
	if (git_tree_entry_bypath(&e, root, path) < 0 ||
	    git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB) {
		git_error_clear();
		r = crs_error_set(CRS_ENOTFOUND, "%s: no file %s", st->shown,
				  path);
		goto out;
	}
	if (git_odb_read_header(&size, &type, odb, git_tree_entry_id(e)) < 0 ||
	    type != GIT_OBJECT_BLOB || size > max) {
		git_error_clear();
		r = crs_error_set(CRS_EINPUT, "%s: %s is no file of at most "
				  "%zu bytes", st->shown, path, max);
		goto out;
	}
	if (git_blob_lookup(&blob, st->repo, git_tree_entry_id(e)) < 0) {
		r = store_fail(st, CRS_ERR, path);
		goto out;
	}
	buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	r = 0;
out:
	git_blob_free(blob);
	git_odb_free(odb);
	git_tree_entry_free(e);
	git_tree_free(root);
	git_commit_free(c);
	return r;
}

int corpus_store_put_file(struct corpus_store *st, const char *dir,
			  const char *name, const void *data, size_t len)
{
	struct store_file *f;
	git_oid oid;

	if (git_blob_create_from_buffer(&oid, st->repo, data, len) < 0)
		return store_fail(st, CRS_ERR, name);
	st->files = xrealloc(st->files, (st->files_nr + 1) * sizeof(*f));
	f = &st->files[st->files_nr++];
	f->dir = xstrdup(dir);
	f->name = xstrdup(name);
	git_oid_cpy(&f->blob, &oid);
	return 0;
}

void corpus_store_free(struct corpus_store *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->grown_nr; i++) {
		git_treebuilder_free(st->grown[i].tb);
		free(st->grown[i].harness);
	}
	free(st->grown);
	for (size_t i = 0; i < st->files_nr; i++) {
		free(st->files[i].dir);
		free(st->files[i].name);
	}
	free(st->files);
	git_remote_free(st->remote);
	git_repository_free(st->repo);
	free(st->branch);
	free(st->shown);
	free(st->push_refused);
	free(st->user);
	if (st->token) {
		OPENSSL_cleanse(st->token, strlen(st->token));
		free(st->token);
	}
	free(st);
}
