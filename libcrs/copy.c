/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copy.c - rsync -a style copies without rsync
 *
 * The part of `rsync -a` libCRS relies on, so CRS images need no
 * rsync; links inside the source are copied, never followed.
 *
 * Details: docs/internals.md.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Walk state: the paths shown in messages, and a directory to skip. */
struct copy_ctx {
	char src[LCRS_PATH_MAX];
	char dst[LCRS_PATH_MAX];
	dev_t top_dev;		/* the destination's top directory, which */
	ino_t top_ino;		/* must not be copied into itself */
	int have_top;
	/* build-project's copies only (tree != NULL) */
	struct lcrs_tree_count *tree;
	size_t root_len;	/* of the source's top in src */
	char root_real[PATH_MAX];
	int depth;
};

/* Owner (as root), mode, mtime: best effort, as rsync -a keeps what it can. */
static void set_attrs(int fd, const struct stat *st)
{
	struct timespec ts[2] = { { 0, UTIME_OMIT }, st->st_mtim };
	int ignored = 0;

	if (geteuid() == 0)
		ignored |= fchown(fd, st->st_uid, st->st_gid);
	ignored |= fchmod(fd, st->st_mode & 07777);
	ignored |= futimens(fd, ts);
	(void)ignored;
}

/* Copy the open regular file `sfd` to ddirfd/dname via a temporary. */
static int copy_reg_fd(int sfd, const struct stat *st, int ddirfd,
		       const char *dname, const char *shown_src,
		       const char *shown_dst)
{
	char tmp[64];
	int fd = -1, r = CRS_ERR;

	tmp[0] = '\0';
	if ((r = lcrs_tmp_create(ddirfd, tmp, &fd)) != 0) {
		crs_error_prefix("'%s'", shown_dst);
		goto out;
	}
	if ((r = lcrs_copy_fd(sfd, fd, shown_src, shown_dst, NULL,
				NULL)) != 0)
		goto out;
	set_attrs(fd, st);
	if ((r = lcrs_close(&fd, shown_dst)) != 0)
		goto out;
	if (renameat(ddirfd, tmp, ddirfd, dname) != 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", shown_dst,
				  errno == EISDIR || errno == ENOTEMPTY ||
				  errno == EEXIST ?
				  "is a directory, the source is a file" :
				  strerror(errno));
		goto out;
	}
	tmp[0] = '\0';
	r = 0;
out:
	lcrs_tmp_discard(ddirfd, tmp, fd);
	return r;
}

static int copy_reg_at(int sdirfd, const char *sname, int ddirfd,
		       const char *dname, const char *shown_src,
		       const char *shown_dst)
{
	struct stat st;
	int sfd, r;

	sfd = openat(sdirfd, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		     O_CLOEXEC);
	if (sfd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "'%s': %s", shown_src, strerror(errno));
	if (fstat(sfd, &st) != 0 || !S_ISREG(st.st_mode))
		r = crs_error_set(CRS_ERR, "'%s': not a regular file",
				  shown_src);
	else
		r = copy_reg_fd(sfd, &st, ddirfd, dname, shown_src,
				shown_dst);
	close(sfd);
	return r;
}

int lcrs_copy_reg_at(int sdirfd, const char *sname, int ddirfd,
		     const char *dname, const char *shown)
{
	return copy_reg_at(sdirfd, sname, ddirfd, dname, shown, dname);
}

static int copy_symlink(struct copy_ctx *c, int sdirfd, const char *sname,
			const struct stat *st, int ddirfd, const char *dname)
{
	char target[LCRS_PATH_MAX], tmp[64];
	struct timespec ts[2] = { { 0, UTIME_OMIT }, st->st_mtim };
	struct timespec now;
	ssize_t n;
	int done = 0, ignored = 0;

	n = readlinkat(sdirfd, sname, target, sizeof(target) - 1);
	if (n < 0)
		return crs_error_set(CRS_ERR, "readlink '%s': %s", c->src,
				     strerror(errno));
	target[n] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (unsigned long i = 0; i < 100 && !done; i++) {
		snprintf(tmp, sizeof(tmp), ".libcrs.tmp.%ld.%lxl",
			 (long)getpid(), (unsigned long)now.tv_nsec + i);
		if (symlinkat(target, ddirfd, tmp) == 0)
			done = 1;
		else if (errno != EEXIST)
			return crs_error_set(CRS_ERR, "symlink '%s': %s",
					     c->dst, strerror(errno));
	}
	if (!done)
		return crs_error_set(CRS_ERR, "symlink '%s': too many "
				     "collisions", c->dst);
	if (renameat(ddirfd, tmp, ddirfd, dname) != 0) {
		int e = errno;

		unlinkat(ddirfd, tmp, 0);
		return crs_error_set(CRS_ERR, "'%s': %s", c->dst,
				     e == EISDIR || e == ENOTEMPTY ||
				     e == EEXIST ? "is a directory, the "
				     "source is a symlink" : strerror(e));
	}
	if (geteuid() == 0)
		ignored |= fchownat(ddirfd, dname, st->st_uid, st->st_gid,
				    AT_SYMLINK_NOFOLLOW);
	ignored |= utimensat(ddirfd, dname, ts, AT_SYMLINK_NOFOLLOW);
	(void)ignored;	/* best effort, as for files */
	return 0;
}

/*
 * Open ddirfd/dname as a directory without following a symlink, creating
 * it, and replacing a file or symlink found there (as rsync does).
 */
static int ensure_dir(struct copy_ctx *c, int ddirfd, const char *dname,
		      int *fd_out)
{
	struct stat st;
	int fd;

	*fd_out = -1;
	if (fstatat(ddirfd, dname, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode) && unlinkat(ddirfd, dname, 0) != 0)
		return crs_error_set(CRS_ERR, "replace '%s': %s", c->dst,
				     strerror(errno));
	if (mkdirat(ddirfd, dname, 0755) != 0 && errno != EEXIST)
		return crs_error_set(CRS_ERR, "mkdir '%s': %s", c->dst,
				     strerror(errno));
	fd = openat(ddirfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(CRS_ERR, "'%s': %s", c->dst,
				     strerror(errno));
	*fd_out = fd;
	return 0;
}

/* 1 when the symlink c->src (to `target`) stays inside the tree. */
static int link_inside(const struct copy_ctx *c, const char *target)
{
	const char *p = c->src + c->root_len, *t = target;
	char real[PATH_MAX];
	size_t rl = strlen(c->root_real);
	long level = -1;	/* of the link's folder below the top */

	if (target[0] == '/')
		return 0;
	for (; *p; p++)
		level += *p == '/';
	while (*t) {
		size_t n = strcspn(t, "/");

		if (n == 2 && !strncmp(t, "..", 2) && --level < 0)
			return 0;
		if (n && !(n == 1 && *t == '.') &&
		    !(n == 2 && !strncmp(t, "..", 2)))
			level++;
		t += n + (t[n] == '/');
	}
	/* through other links it may still lead out: resolve it */
	if (!realpath(c->src, real))
		return 1;	/* dangling, and inside by its text */
	return !strncmp(real, c->root_real, rl) &&
		(real[rl] == '/' || real[rl] == '\0' || !strcmp(c->root_real,
								"/"));
}

/*
 * build-project's rules for one source entry (".git" is skipped before):
 * 0, or CRS_EINPUT naming the entry.
 */
static int tree_check(struct copy_ctx *c, int sfd, const char *name,
		      const struct stat *st)
{
	struct lcrs_tree_count *t = c->tree;
	char target[LCRS_PATH_MAX];
	ssize_t n;

	if (S_ISDIR(st->st_mode)) {
		if (c->depth >= CRS_TREE_DEPTH_MAX)
			return crs_error_set(CRS_EINPUT, "'%s': deeper than "
					     "%d folders", c->src,
					     CRS_TREE_DEPTH_MAX);
		return 0;
	}
	if (++t->files > CRS_TREE_FILES_MAX)
		return crs_error_set(CRS_EINPUT, "more than %d files and "
				     "symlinks (at '%s')", CRS_TREE_FILES_MAX,
				     c->src);
	if (S_ISREG(st->st_mode)) {
		t->bytes += (unsigned long long)st->st_size;
		if (t->bytes > CRS_TREE_BYTES_MAX)
			return crs_error_set(CRS_EINPUT, "more than %llu MiB "
					     "of files (at '%s')",
					     CRS_TREE_BYTES_MAX >> 20, c->src);
		return 0;
	}
	if (!S_ISLNK(st->st_mode))
		return crs_error_set(CRS_EINPUT, "'%s': not a regular file, "
				     "folder or symlink", c->src);
	n = readlinkat(sfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return crs_error_set(CRS_ERR, "readlink '%s': %s", c->src,
				     strerror(errno));
	target[n] = '\0';
	if (!link_inside(c, target))
		return crs_error_set(CRS_EINPUT, "'%s': a symlink to '%s', "
				     "outside the tree", c->src, target);
	return 0;
}

static int copy_dir(struct copy_ctx *c, int sfd, int dfd);

static int copy_entry(struct copy_ctx *c, int sfd, int dfd, const char *name)
{
	struct stat st;
	int sub = -1, dsub = -1, r = 0;

	if (c->tree && !strcmp(name, ".git"))
		return 0;
	if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return crs_error_set(CRS_ERR, "'%s': %s", c->src,
				     strerror(errno));
	if (c->tree && (r = tree_check(c, sfd, name, &st)) != 0)
		return r;
	if (S_ISREG(st.st_mode))
		return copy_reg_at(sfd, name, dfd, name, c->src, c->dst);
	if (S_ISLNK(st.st_mode))
		return copy_symlink(c, sfd, name, &st, dfd, name);
	if (!S_ISDIR(st.st_mode))
		return 0;	/* sockets, FIFOs, devices: skipped */
	if (c->have_top && st.st_dev == c->top_dev && st.st_ino == c->top_ino)
		return 0;	/* the destination, inside its own source */
	sub = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (sub < 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", c->src,
				  strerror(errno));
		goto out;
	}
	c->depth++;
	if ((r = ensure_dir(c, dfd, name, &dsub)) == 0)
		r = copy_dir(c, sub, dsub);
	c->depth--;
	if (r != 0)
		goto out;
	set_attrs(dsub, &st);
out:
	if (sub >= 0)
		close(sub);
	if (dsub >= 0)
		close(dsub);
	return r;
}

static int copy_dir(struct copy_ctx *c, int sfd, int dfd)
{
	struct dirent *de;
	DIR *d = NULL;
	int r;

	if ((r = lcrs_fdopendir(sfd, c->src, &d)) != 0)
		return r;
	for (;;) {
		size_t ls, ld;

		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				r = crs_error_set(CRS_ERR, "read '%s': %s",
						  c->src, strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((r = lcrs_path_push(c->src, &ls, de->d_name)) != 0)
			break;
		if ((r = lcrs_path_push(c->dst, &ld, de->d_name)) != 0) {
			c->src[ls] = '\0';
			break;
		}
		r = copy_entry(c, sfd, dfd, de->d_name);
		c->src[ls] = '\0';
		c->dst[ld] = '\0';
		if (r != 0)
			break;
	}
	closedir(d);
	return r;
}

/* The last component of `path` (trailing slashes ignored) in out. */
static int base_name(char *out, size_t outsz, const char *path)
{
	if (lcrs_base_name(out, outsz, path) != 0)
		return crs_error_set(CRS_EINPUT, "'%.64s...': name too long",
				     path);
	return 0;
}

static int src_stat(const char *src, struct stat *st)
{
	if (stat(src, st) != 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "'%s': %s", src, strerror(errno));
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return crs_error_set(CRS_ERR, "'%s': not a regular file or "
				     "directory", src);
	return 0;
}

static int copy_to(struct copy_ctx *cp, const char *src, int ddirfd,
		   const char *leaf, int follow_leaf, const char *shown_dst)
{
	struct copy_ctx c = *cp;
	char name[LCRS_PATH_MAX];
	struct stat sst, dst;
	int sfd = -1, dfd = -1, have_dst = 0, r = CRS_ERR;
	int nofollow = follow_leaf ? 0 : O_NOFOLLOW;

	if ((r = src_stat(src, &sst)) != 0 ||
	    (r = lcrs_path_fmt(c.src, sizeof(c.src), src, "%s", src)) != 0 ||
	    (r = lcrs_path_fmt(c.dst, sizeof(c.dst), shown_dst, "%s",
			       shown_dst)) != 0)
		goto out;
	if (leaf) {
		have_dst = fstatat(ddirfd, leaf, &dst, follow_leaf ? 0 :
				   AT_SYMLINK_NOFOLLOW) == 0;
	}
	if (S_ISREG(sst.st_mode)) {
		if ((sfd = open(src, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			r = crs_error_set(CRS_ERR, "'%s': %s", src,
					  strerror(errno));
			goto out;
		}
		if (leaf && !(have_dst && S_ISDIR(dst.st_mode))) {
			r = copy_reg_fd(sfd, &sst, ddirfd, leaf, src,
					shown_dst);
			goto out;
		}
		if (leaf)
			dfd = openat(ddirfd, leaf, O_RDONLY | O_DIRECTORY |
				     O_CLOEXEC | nofollow);
		if (leaf && dfd < 0) {
			r = crs_error_set(CRS_ERR, "'%s': %s", shown_dst,
					  strerror(errno));
			goto out;
		}
		if ((r = base_name(name, sizeof(name), src)) != 0 ||
		    (r = lcrs_path_push(c.dst, &(size_t){ 0 }, name)) != 0)
			goto out;
		r = copy_reg_fd(sfd, &sst, dfd >= 0 ? dfd : ddirfd, name, src,
				c.dst);
		goto out;
	}
	/* A directory: its contents are merged into the destination. */
	if ((sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", src, strerror(errno));
		goto out;
	}
	if (!leaf) {
		dfd = fcntl(ddirfd, F_DUPFD_CLOEXEC, 0);
	} else if (have_dst && S_ISDIR(dst.st_mode)) {
		dfd = openat(ddirfd, leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
			     nofollow);
	} else if (have_dst && !S_ISLNK(dst.st_mode)) {
		r = crs_error_set(CRS_ERR, "'%s': exists and is not a "
				  "directory", shown_dst);
		goto out;
	} else if ((r = ensure_dir(&c, ddirfd, leaf, &dfd)) != 0) {
		goto out;
	}
	if (dfd < 0 || fstat(dfd, &dst) != 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", shown_dst,
				  strerror(errno));
		goto out;
	}
	if (dst.st_dev == sst.st_dev && dst.st_ino == sst.st_ino) {
		r = 0;		/* copying a directory onto itself */
		goto out;
	}
	c.top_dev = dst.st_dev;
	c.top_ino = dst.st_ino;
	c.have_top = 1;
	if ((r = copy_dir(&c, sfd, dfd)) != 0)
		goto out;
	if (leaf)
		set_attrs(dfd, &sst);
	r = 0;
out:
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	return r;
}

int lcrs_copy_to(const char *src, int ddirfd, const char *leaf,
		 int follow_leaf, const char *shown_dst)
{
	struct copy_ctx c = { .have_top = 0 };

	return copy_to(&c, src, ddirfd, leaf, follow_leaf, shown_dst);
}

int lcrs_copy_tree(const char *src, int ddirfd, const char *leaf,
		   const char *shown_dst, struct lcrs_tree_count *count)
{
	struct copy_ctx c = { .tree = count };
	struct stat st;

	if (stat(src, &st) != 0 || !S_ISDIR(st.st_mode))
		return crs_error_set(CRS_EINPUT, "'%s': not a folder", src);
	if (!realpath(src, c.root_real))
		return crs_error_set(CRS_ERR, "'%s': %s", src,
				     strerror(errno));
	c.root_len = strlen(src);
	return copy_to(&c, src, ddirfd, leaf, 0, shown_dst);
}

int crs_copy(const char *src, const char *dst)
{
	char parent[LCRS_PATH_MAX], leaf[LCRS_PATH_MAX];
	struct stat st;
	int pfd = -1, r = CRS_ERR;
	size_t len;
	char *slash;

	if ((r = src_stat(src, &st)) != 0)
		return r;
	if (stat(dst, &st) == 0 && S_ISDIR(st.st_mode)) {
		if ((r = lcrs_open_dir(dst, 0, &pfd)) == 0)
			r = lcrs_copy_to(src, pfd, NULL, 1, dst);
		goto out;
	}
	if ((r = lcrs_path_fmt(parent, sizeof(parent), dst, "%s", dst)) != 0)
		goto out;
	len = strlen(parent);
	while (len > 1 && parent[len - 1] == '/')
		parent[--len] = '\0';
	if ((r = base_name(leaf, sizeof(leaf), parent)) != 0)
		goto out;
	if (!leaf[0] || !strcmp(leaf, ".") || !strcmp(leaf, "..") ||
	    !strcmp(leaf, "/")) {
		r = crs_error_set(CRS_EINPUT, "'%s': not a usable destination",
				  dst);
		goto out;
	}
	slash = strrchr(parent, '/');
	if (!slash)
		strcpy(parent, ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	if ((r = lcrs_open_dir(parent, 1, &pfd)) != 0)
		goto out;
	r = lcrs_copy_to(src, pfd, leaf, 1, dst);
out:
	if (pfd >= 0)
		close(pfd);
	return r;
}
