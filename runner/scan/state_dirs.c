/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_dirs.c - crs-ci's own folders kept out of the checkout under test
 *
 * A pull request writes its checkout, so a folder there (or a link it
 * planted) is its, not crs-ci's: refused before anything is read or
 * written, paths compared as the kernel resolves them.
 * Details: docs/work-folder.md.
 */
#include "runner/scan/state_dirs.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_MARK ".crs-ci-out"
#define WALK_DEPTH_MAX 64	/* folders deep in an output folder */
#define WALK_ENTRIES_MAX 200000	/* entries walked in an output folder */

/*
 * `path` (absolute) as the kernel resolves it: the real path of its
 * longest existing prefix, then the rest, which must not climb ("..")
 * out of a folder that does not exist yet. NULL and CRS_EINPUT then.
 */
static char *real_of(const char *opt, const char *path)
{
	char *p = xstrdup(path), *real = NULL, *slash, *save = NULL, *tok;
	struct buf b = BUF_INIT;
	size_t cut = strlen(p);

	while (!(real = realpath(*p ? p : "/", NULL)) &&
	       (slash = strrchr(p, '/'))) {
		*slash = '\0';
		cut = (size_t)(slash - p);
	}
	buf_adds(&b, real && strcmp(real, "/") ? real : "");
	free(real);
	/* the part that does not exist yet, as mkdir -p would make it */
	free(p);
	p = xstrdup(path + cut);
	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/",
								   &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			crs_error_set(CRS_EINPUT, "%s %s: '..' after a folder "
				      "that does not exist (create it first, "
				      "or name the folder without '..')", opt,
				      path);
			free(p);
			buf_release(&b);
			return NULL;
		}
		buf_printf(&b, "/%s", tok);
	}
	free(p);
	if (!b.len)
		buf_addch(&b, '/');
	return buf_detach(&b, NULL);
}

/* Is `path` `root` or below it (both real, absolute)? */
static int is_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1)	/* "/" */
		return 1;
	return !strncmp(path, root, n) && (path[n] == '/' || !path[n]);
}

/* realpath of `p` without its trailing slashes, or NULL. */
static char *real_dir(const char *p)
{
	return p ? realpath(p, NULL) : NULL;
}

/* The work tree and git folders of the repository `source` is in. */
struct checkout {
	char *source;	/* real path of --source */
	char *workdir;	/* its git work tree, NULL outside one */
	char *gitdir;	/* .git (or a linked work tree's), which git never
			 * checks files out into */
	char *commondir;
	size_t tracked;	/* files git tracks under the folder checked */
};

static void checkout_load(struct checkout *c, const char *source)
{
	git_repository *repo = NULL;

	memset(c, 0, sizeof(*c));
	c->source = real_dir(source);
	if (!c->source)
		c->source = fs_abspath(source);
	git_libgit2_init();
	if (git_repository_open_ext(&repo, c->source, 0, NULL) == 0) {
		c->workdir = real_dir(git_repository_workdir(repo));
		c->gitdir = real_dir(git_repository_path(repo));
		c->commondir = real_dir(git_repository_commondir(repo));
		git_repository_free(repo);
	}
	git_error_clear();
	git_libgit2_shutdown();
}

static void checkout_release(struct checkout *c)
{
	free(c->source);
	free(c->workdir);
	free(c->gitdir);
	free(c->commondir);
}

/* How many index entries of the work tree lie at `rel` or below it. */
static size_t count_tracked(const char *workdir, const char *rel)
{
	git_repository *repo = NULL;
	git_index *idx = NULL;
	size_t n = 0, len = strlen(rel);

	git_libgit2_init();
	if (git_repository_open(&repo, workdir) == 0 &&
	    git_repository_index(&idx, repo) == 0) {
		for (size_t i = 0; i < git_index_entrycount(idx); i++) {
			const git_index_entry *e = git_index_get_byindex(idx, i);

			if (e && (!len || (!strncmp(e->path, rel, len) &&
					   (e->path[len] == '/' ||
					    !e->path[len]))))
				n++;
		}
	}
	git_index_free(idx);
	git_repository_free(repo);
	git_error_clear();
	git_libgit2_shutdown();
	return n;
}

/* Which part of the checkout holds `real`, or NULL when none does. */
static const char *inside_checkout(struct checkout *c, const char *real)
{
	if ((c->gitdir && is_within(real, c->gitdir)) ||
	    (c->commondir && is_within(real, c->commondir)))
		return NULL;	/* git writes there, a checkout never */
	if (c->workdir && is_within(real, c->workdir)) {
		const char *rel = real + strlen(c->workdir);

		while (*rel == '/')
			rel++;
		c->tracked = count_tracked(c->workdir, rel);
		return "the git work tree";
	}
	/* a --source in no git work tree is no checkout (every scan builds
	 * commits from git): `check` run from / or $HOME keeps its defaults */
	return NULL;
}

static const char *kind_default(enum state_dir_kind kind)
{
	return kind == STATE_DIR_WORK ? "crs-ci-work" :
		kind == STATE_DIR_OUT ? "crs-ci-out" : "crs-ci-cache";
}

static int refuse_inside(const char *opt, const char *path,
			 const char *where, const struct checkout *c,
			 enum state_dir_kind kind)
{
	const char *root = c->workdir;
	char tracked[64] = "";

	if (c->tracked)
		snprintf(tracked, sizeof(tracked), "; git tracks %zu file(s) "
			 "there", c->tracked);
	return crs_error_set(CRS_EINPUT, "%s %s lies inside %s %s of "
			     "--source (the checkout under test can write "
			     "it%s); use a folder outside it, e.g. "
			     "$RUNNER_TEMP/%s", opt, path, where, root, tracked,
			     kind_default(kind));
}

/*
 * The first link at or below the open folder `fd` (whose path from the
 * option's folder is `rel`, "" at the top) into *found; `depth` 0 at the
 * top, where `deep` 0 looks no further than the top-level entries.
 */
static int find_link(int fd, const char *rel, int depth, int deep,
		     size_t *seen, struct buf *found)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(fd);
		return crs_error_set(CRS_ERR, "%s: %s", rel, strerror(errno));
	}
	rewinddir(d);	/* descriptors from dup() share the offset */
	while (r == 0 && !found->len && (de = readdir(d))) {
		struct stat st;
		char *sub;
		int sfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++*seen > WALK_ENTRIES_MAX) {
			r = crs_error_set(CRS_EINPUT, "more than %d entries",
					  WALK_ENTRIES_MAX);
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0)
			continue;	/* gone since readdir */
		sub = xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (S_ISLNK(st.st_mode)) {
			buf_adds(found, sub);
		} else if (S_ISDIR(st.st_mode) && deep) {
			if (depth + 1 >= WALK_DEPTH_MAX)
				r = crs_error_set(CRS_EINPUT, "%s: more than "
						  "%d folders deep", sub,
						  WALK_DEPTH_MAX);
			else if ((sfd = openat(dirfd(d), de->d_name,
					       O_RDONLY | O_DIRECTORY |
					       O_NOFOLLOW | O_CLOEXEC)) >= 0)
				r = find_link(sfd, sub, depth + 1, deep, seen,
					      found);
		}
		free(sub);
	}
	closedir(d);
	return r;
}

/* The folder itself and the links inside it its kind refuses. */
static int check_links(const char *opt, const char *path, const char *abs,
		       enum state_dir_kind kind)
{
	struct buf found = BUF_INIT;
	struct stat st;
	size_t seen = 0;
	int fd, r;

	if (lstat(abs, &st) != 0)
		return errno == ENOENT ? 0 : crs_error_set(CRS_EINPUT,
			"%s %s: %s", opt, path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return crs_error_set(CRS_EINPUT, "%s %s is a link: crs-ci "
				     "takes its own folders only as real "
				     "folders; name the folder itself, outside "
				     "the checkout", opt, path);
	if (!S_ISDIR(st.st_mode))
		return crs_error_set(CRS_EINPUT, "%s %s is not a folder", opt,
				     path);
	if (kind == STATE_DIR_CACHE)
		return 0;
	fd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(CRS_EINPUT, "%s %s: %s", opt, path,
				     strerror(errno));
	r = find_link(fd, "", 0, kind == STATE_DIR_OUT, &seen, &found);
	if (r != 0)
		crs_error_prefix("%s %s", opt, path);
	else if (found.len)
		r = crs_error_set(CRS_EINPUT, "%s %s holds a link crs-ci did "
				  "not make (%s): remove the folder, or name a "
				  "new one outside the checkout", opt, path,
				  found.ptr);
	buf_release(&found);
	return r;
}

int state_dir_check(const char *opt, const char *path, const char *source,
		    enum state_dir_kind kind)
{
	struct checkout c;
	char *abs = fs_abspath(path), *raw, *lexical = NULL, *kernel = NULL;
	const char *where = NULL;
	char cwd[PATH_MAX];
	int r;

	/* as crs-ci opens it (the lexical form) and as the kernel would
	 * resolve the string given ("a/link/../b" differs) */
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		raw = xstrdup(path);
	else
		raw = xasprintf("%s/%s", cwd, path);
	checkout_load(&c, source);
	if (!(lexical = real_of(opt, abs)) || !(kernel = real_of(opt, raw))) {
		r = CRS_EINPUT;
		goto out;
	}
	if ((where = inside_checkout(&c, lexical)) ||
	    (where = inside_checkout(&c, kernel))) {
		r = refuse_inside(opt, path, where, &c, kind);
		goto out;
	}
	r = check_links(opt, path, abs, kind);
out:
	checkout_release(&c);
	free(abs);
	free(raw);
	free(lexical);
	free(kernel);
	return r;
}

/* A short hex hash of `s`, for a folder name per checkout. */
static void short_hash(char out[13], const char *s)
{
	char hex[65];

	sha256_hex(hex, s, strlen(s));
	memcpy(out, hex, 12);
	out[12] = '\0';
}

char *state_dir_default(const char *source, const char *name)
{
	struct checkout c;
	char *here = xasprintf("crs-ci-%s", name), *abs = fs_abspath(here);
	char *real = real_of("", abs), *state, *dir;
	const char *base, *v;
	char hash[13];

	checkout_load(&c, source);
	if (real && !inside_checkout(&c, real)) {
		checkout_release(&c);
		free(abs);
		free(real);
		return here;
	}
	crs_error_clear();
	if ((v = getenv("RUNNER_TEMP")) && *v == '/')
		state = xasprintf("%s/crs-ci", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
		state = xasprintf("%s/crs-ci", v);
	else if ((v = getenv("HOME")) && *v == '/')
		state = xasprintf("%s/.cache/crs-ci", v);
	else
		state = xasprintf("%s/crs-ci-%u", (v = getenv("TMPDIR")) &&
				  *v == '/' ? v : "/tmp", (unsigned)getuid());
	base = strrchr(c.source, '/');
	base = base && base[1] ? base + 1 : "source";
	short_hash(hash, c.source);
	dir = xasprintf("%s/%s-%s/%s", state, base, hash, name);
	checkout_release(&c);
	free(state);
	free(here);
	free(abs);
	free(real);
	return dir;
}

/* Is the open folder `fd` empty, or marked as crs-ci's output? */
static int out_is_ours(int fd, int *empty)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int dup_fd = dup(fd);

	*empty = 1;
	if (dup_fd < 0 || !(d = fdopendir(dup_fd))) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	rewinddir(d);	/* descriptors from dup() share the offset */
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			*empty = 0;
			break;
		}
	closedir(d);
	return *empty ||
		fstatat(fd, OUT_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		fstatat(fd, "results.json", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int state_dir_out_fresh(const char *dir)
{
	static const char mark_text[] = "crs-ci's output folder: emptied at "
		"the start of each scan\n";
	struct buf found = BUF_INIT;
	size_t seen = 0;
	int fd = -1, r, empty = 1;
	DIR *d = NULL;
	struct dirent *de;

	if ((r = fs_mkdir_p(dir)) != 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(CRS_EINPUT, "--out %s: %s", dir,
				     errno == ELOOP || errno == ENOTDIR ?
				     "a link or not a folder" : strerror(errno));
	if (!out_is_ours(fd, &empty)) {
		r = crs_error_set(CRS_EINPUT, "--out %s holds files crs-ci did "
				  "not write (no %s in it): name a new or empty "
				  "folder", dir, OUT_MARK);
		goto out;
	}
	if (!empty) {
		int wfd = dup(fd);

		if (wfd < 0 || (r = find_link(wfd, "", 0, 1, &seen,
					      &found)) != 0) {
			r = r ? r : crs_error_set(CRS_ERR, "dup: %s",
						  strerror(errno));
			crs_error_prefix("--out %s", dir);
			goto out;
		}
		if (found.len) {
			r = crs_error_set(CRS_EINPUT, "--out %s holds a link "
					  "crs-ci did not make (%s): remove "
					  "the folder", dir, found.ptr);
			goto out;
		}
		/* emptied through this descriptor: nothing is followed */
		if ((wfd = dup(fd)) < 0 || !(d = fdopendir(wfd))) {
			if (wfd >= 0)
				close(wfd);
			r = crs_error_set(CRS_ERR, "--out %s: %s", dir,
					  strerror(errno));
			goto out;
		}
		rewinddir(d);
		while (r == 0 && (de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				r = fs_remove_at(fd, de->d_name, dir);
		if (r != 0)
			goto out;
	}
	r = fs_write_at(fd, OUT_MARK, mark_text, strlen(mark_text));
out:
	if (d)
		closedir(d);
	close(fd);
	buf_release(&found);
	return r;
}
