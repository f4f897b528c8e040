/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fsops.c - descriptor-based file operations for libcrs
 *
 * Below a root every step is an openat(2) with O_NOFOLLOW, so a symlink
 * planted inside a mount cannot redirect a write outside it. Files are
 * written under hidden temporary names and renamed into place, so a
 * reader (the exchange, another CRS) never sees a partial file. Also the
 * path-string helpers (base name, push a component) the commands share.
 */
#include "libcrs/internal.h"
#include "common/error.h"
#include "common/safe_io.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int lcrs_base_name(char *out, size_t outsz, const char *path)
{
	size_t len = strlen(path), n;
	const char *s;

	while (len > 1 && path[len - 1] == '/')
		len--;
	s = path + len;
	while (s > path && s[-1] != '/')
		s--;
	n = (size_t)(path + len - s);
	if (n >= outsz)
		return CRS_EINPUT;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int lcrs_path_push(char *buf, size_t *saved, const char *name)
{
	size_t len = strlen(buf), n = strlen(name);
	size_t sep = len ? 1 : 0;

	*saved = len;
	if (len + sep + n + 1 > LCRS_PATH_MAX)
		return crs_error_set(CRS_ERR, "'%.64s...': path too long",
				     buf);
	if (sep)
		buf[len] = '/';
	memcpy(buf + len + sep, name, n + 1);
	return 0;
}

int lcrs_mkdir_p(const char *path)
{
	char p[LCRS_PATH_MAX];
	int r;

	if ((r = lcrs_path_fmt(p, sizeof(p), path, "%s", path)) != 0)
		return r;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return crs_error_set(CRS_ERR, "mkdir '%s': %s",
						     p, strerror(errno));
			*s = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int lcrs_open_dir(const char *root, int create, int *fd_out)
{
	int fd, r;

	*fd_out = -1;
	if (create && (r = lcrs_mkdir_p(root)) != 0)
		return r;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "'%s': %s", root, strerror(errno));
	*fd_out = fd;
	return 0;
}

int lcrs_walk(int rootfd, const char *shown, const char *rel, int mkdirs,
	      int *parent_fd, const char **leaf)
{
	char comp[LCRS_PATH_MAX];
	const char *p = rel;
	int cur = -1, r = CRS_ERR;

	*parent_fd = -1;
	*leaf = NULL;
	if (!rel[0])
		return crs_error_set(CRS_EINPUT, "'%s': needs a name below "
				     "the root", shown);
	if ((cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return crs_error_set(CRS_ERR, "'%s': dup: %s", shown,
				     strerror(errno));
	for (;;) {
		const char *end = strchr(p, '/');
		size_t n;
		int next;

		if (!end)
			break;
		n = (size_t)(end - p);
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirs) {
			if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
				r = crs_error_set(CRS_ERR, "mkdir '%s/%.*s': "
						  "%s", shown,
						  (int)(end - rel), rel,
						  strerror(errno));
				goto out;
			}
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY |
				      O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno;

			r = crs_error_set(e == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
					  "'%s/%.*s': %s", shown,
					  (int)(end - rel), rel,
					  e == ELOOP || e == ENOTDIR ?
					  "not a directory (symlinks are not "
					  "followed here)" : strerror(e));
			goto out;
		}
		close(cur);
		cur = next;
		p = end + 1;
	}
	*parent_fd = cur;
	*leaf = p;
	cur = -1;
	r = 0;
out:
	if (cur >= 0)
		close(cur);
	return r;
}

int lcrs_open_below(const char *root, const char *rel, int *fd_out,
		    const char **leaf)
{
	int rootfd = -1, r;

	*fd_out = -1;
	*leaf = NULL;
	if ((r = lcrs_open_dir(root, 1, &rootfd)) != 0)
		return r;
	if (!rel[0]) {
		*fd_out = rootfd;
		return 0;
	}
	r = lcrs_walk(rootfd, root, rel, 1, fd_out, leaf);
	close(rootfd);
	return r;
}

int lcrs_fdopendir(int fd, const char *shown, DIR **out)
{
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0), e;

	*out = NULL;
	if (dup >= 0 && (*out = fdopendir(dup)))
		return 0;
	e = errno;
	if (dup >= 0)
		close(dup);
	return crs_error_set(CRS_ERR, "'%s': %s", shown, strerror(e));
}

int lcrs_remove_at(int pfd, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int fd, r = 0;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : crs_error_set(CRS_ERR, "'%s': %s",
							   name,
							   strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(pfd, name, 0) != 0)
			return crs_error_set(CRS_ERR, "remove '%s': %s", name,
					     strerror(errno));
		return 0;
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return crs_error_set(CRS_ERR, "'%s': %s", name,
				     strerror(errno));
	}
	while (r == 0 && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = lcrs_remove_at(dirfd(d), de->d_name);
	closedir(d);
	if (r == 0 && unlinkat(pfd, name, AT_REMOVEDIR) != 0)
		r = crs_error_set(CRS_ERR, "remove '%s': %s", name,
				  strerror(errno));
	return r;
}

int lcrs_tmp_create(int dirfd, char name[64], int *fd_out)
{
	struct timespec ts;
	unsigned long n;

	*fd_out = -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20);
	for (int tries = 0; tries < 100; tries++, n++) {
		int fd;

		snprintf(name, 64, ".libcrs.tmp.%ld.%lx", (long)getpid(), n);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*fd_out = fd;
			return 0;
		}
		if (errno != EEXIST)
			return crs_error_set(CRS_ERR, "create temporary file: "
					     "%s", strerror(errno));
	}
	return crs_error_set(CRS_ERR, "create temporary file: too many "
			     "collisions");
}

int lcrs_close(int *fd, const char *shown)
{
	int r = close(*fd);

	*fd = -1;
	if (r != 0)
		return crs_error_set(CRS_ERR, "close '%s': %s", shown,
				     strerror(errno));
	return 0;
}

void lcrs_tmp_discard(int dirfd, const char *name, int fd)
{
	if (fd >= 0)
		close(fd);
	if (name[0])
		unlinkat(dirfd, name, 0);
}

int lcrs_rename_noreplace(int dirfd, const char *from, const char *to)
{
	struct stat st;

	if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return CRS_ECONFLICT;
	if (errno != EINVAL && errno != ENOSYS)
		return crs_error_set(CRS_ERR, "rename to '%s': %s", to,
				     strerror(errno));
	/* The file system lacks RENAME_NOREPLACE: link(2) is atomic too. */
	if (linkat(dirfd, from, dirfd, to, 0) == 0) {
		unlinkat(dirfd, from, 0);
		return 0;
	}
	if (errno == EEXIST)
		return CRS_ECONFLICT;
	/* No hard links either: check, then rename (racy, but rare). */
	if (fstatat(dirfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return CRS_ECONFLICT;
	if (renameat(dirfd, from, dirfd, to) != 0)
		return crs_error_set(CRS_ERR, "rename to '%s': %s", to,
				     strerror(errno));
	return 0;
}

struct copy_sink {
	int fd;
	const char *shown;
	void (*peek)(const void *data, size_t len, void *ctx);
	void *ctx;
};

static int copy_chunk(void *ctx, const char *p, size_t n)
{
	struct copy_sink *sink = ctx;

	if (sink->peek)
		sink->peek(p, n, sink->ctx);
	return safe_write_all(sink->fd, p, n, sink->shown);
}

int lcrs_copy_fd(int in, int out, const char *shown_in,
		 const char *shown_out,
		 void (*peek)(const void *data, size_t len, void *ctx),
		 void *ctx)
{
	struct copy_sink sink = { out, shown_out, peek, ctx };

	return safe_read_chunks(in, SIZE_MAX, shown_in, copy_chunk, &sink);
}

int lcrs_write_file_at(int dirfd, const char *name, const void *data,
		       size_t len, mode_t mode, const char *shown)
{
	char tmp[64];
	int fd = -1, r = CRS_ERR;

	tmp[0] = '\0';
	if ((r = lcrs_tmp_create(dirfd, tmp, &fd)) != 0 ||
	    (r = safe_write_all(fd, data, len, shown)) != 0)
		goto out;
	if (fchmod(fd, mode) != 0) {
		r = crs_error_set(CRS_ERR, "chmod '%s': %s", shown,
				  strerror(errno));
		goto out;
	}
	if ((r = lcrs_close(&fd, shown)) != 0)
		goto out;
	if (renameat(dirfd, tmp, dirfd, name) != 0) {
		r = crs_error_set(CRS_ERR, "rename to '%s': %s", shown,
				  strerror(errno));
		goto out;
	}
	tmp[0] = '\0';
	r = 0;
out:
	lcrs_tmp_discard(dirfd, tmp, fd);
	return r;
}
