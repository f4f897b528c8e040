/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache_root.c - --cache-dir opened once and walked by descriptor
 *
 * Nothing below --cache-dir is trusted: every path is walked with
 * O_NOFOLLOW at each component, every file is fstatat'ed before it is
 * opened, and every copy is capped.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#include "runner/scan/cache_root.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/testable.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the head and base builds reach the cache side by side */
static pthread_mutex_t root_lock = PTHREAD_MUTEX_INITIALIZER;

CRS_TESTABLE int cache_root_open(const char *path, int *fd)
{
	struct stat st;
	int r, low;

	*fd = -1;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return crs_error_set(CRS_EINPUT, "--cache-dir %s is a link: "
				     "crs-ci does not follow links into its "
				     "cache (give the folder itself, or "
				     "remove the link)", path);
	/* the path given is the user's: made as given */
	if ((r = fs_mkdir_p(path)) != 0 || (r = fs_open_dir(&low, path)) != 0)
		return crs_error_prefix("--cache-dir");
	/* 0 means "not opened yet" in struct scan */
	if (low < 3) {
		*fd = fcntl(low, F_DUPFD_CLOEXEC, 3);
		close(low);
		if (*fd < 0)
			return crs_error_set(CRS_ERR, "--cache-dir %s: dup: %s",
					     path, strerror(errno));
		return 0;
	}
	*fd = low;
	return 0;
}

int cache_root_fd(struct scan *s, int *fd)
{
	int r = 0;

	pthread_mutex_lock(&root_lock);
	if (!s->cache_fd)
		r = cache_root_open(s->opts->cache_dir, &s->cache_fd);
	if (r != 0)
		s->cache_fd = 0;
	*fd = s->cache_fd;
	pthread_mutex_unlock(&root_lock);
	return r;
}

CRS_TESTABLE int cache_root_dir_at(int root, const char *shown,
				   const char *rel, int mkdirs, int *fd)
{
	const char *leaf;
	int parent, r, e;

	*fd = -1;
	if ((r = fs_walk_beneath(&parent, &leaf, root, rel, mkdirs,
				 shown)) != 0)
		return r;
	*fd = openat(parent, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT && mkdirs &&
	    (*fd = safe_mkdirat_open(parent, leaf)) < 0 && errno == EEXIST)
		*fd = openat(parent, leaf, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	close(parent);
	if (*fd >= 0)
		return 0;
	return crs_error_set(e == ENOENT ? CRS_ENOTFOUND : e == ELOOP ||
			     e == ENOTDIR ? CRS_EINPUT : CRS_ERR, "%s/%s: %s",
			     shown, rel, e == ELOOP || e == ENOTDIR ?
			     "a link or a file, not a folder (links in the "
			     "cache are not followed)" : strerror(e));
}

int cache_root_dir(struct scan *s, const char *rel, int mkdirs, int *fd)
{
	int root, r;

	*fd = -1;
	if ((r = cache_root_fd(s, &root)) != 0)
		return r;
	return cache_root_dir_at(root, s->opts->cache_dir, rel, mkdirs, fd);
}

int cache_root_file(struct scan *s, const char *rel, int *fd, struct stat *st)
{
	const char *leaf;
	struct stat fst;
	int root, parent, r;

	*fd = -1;
	if ((r = cache_root_fd(s, &root)) != 0 ||
	    (r = fs_walk_beneath(&parent, &leaf, root, rel, 0,
				 s->opts->cache_dir)) != 0)
		return r;
	if (fstatat(parent, leaf, st, AT_SYMLINK_NOFOLLOW) != 0) {
		r = crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				  "%s/%s: %s", s->opts->cache_dir, rel,
				  strerror(errno));
	} else if (!S_ISREG(st->st_mode)) {
		r = crs_error_set(CRS_EINPUT, "%s/%s: not a regular file (a "
				  "link, a FIFO...): not opened",
				  s->opts->cache_dir, rel);
	} else if ((*fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW |
				 O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 ||
		   fstat(*fd, &fst) != 0 || fst.st_ino != st->st_ino ||
		   fst.st_dev != st->st_dev) {
		r = crs_error_set(CRS_EINPUT, "%s/%s: replaced while it was "
				  "opened", s->opts->cache_dir, rel);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	close(parent);
	return r;
}

/* Copy the regular file from/name (st: its fstatat) to a new to/name. */
static int copy_one(int from, int to, const char *name, const char *shown,
		    size_t file_max, int *made)
{
	struct buf b = BUF_INIT;
	int fd, r;

	*made = 0;
	if ((r = fs_read_regular_at(&b, from, name, name, file_max, NULL)) !=
	    0) {
		/* gone or swapped since it was listed: passed over */
		crs_error_clear();
		buf_release(&b);
		return 0;
	}
	fd = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0) {
		buf_release(&b);
		if (errno == EEXIST)
			return 0;	/* `to` has it (or a link there) */
		return crs_error_set(CRS_ERR, "%s: create '%s': %s", shown,
				     name, strerror(errno));
	}
	r = safe_write_all(fd, b.ptr, b.len, name);
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: close: %s", name,
				  strerror(errno));
	if (r != 0)
		unlinkat(to, name, 0);
	*made = r == 0;
	buf_release(&b);
	return r;
}

int cache_copy_files(int from, int to, const char *shown, int warn,
		     size_t files_max, size_t file_max, size_t *copied)
{
	DIR *d = fs_dir_stream(from);
	size_t seen = 0;
	struct dirent *de;
	int r = 0, dfd;

	*copied = 0;
	if (!d)
		return crs_error_set(CRS_ERR, "%s: %s", shown, strerror(errno));
	dfd = dirfd(d);
	while (r == 0 && seen < files_max && (de = readdir(d))) {
		struct stat st;
		int made;

		if (de->d_name[0] == '.' ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		seen++;
		if (!S_ISREG(st.st_mode)) {
			if (warn && !S_ISDIR(st.st_mode))
				log_warn("cache: %s/%s: %s, passed over",
					 shown, de->d_name,
					 S_ISLNK(st.st_mode) ? "a link (links "
					 "in the cache are never followed)" :
					 "not a regular file");
			continue;
		}
		if ((size_t)st.st_size > file_max)
			continue;
		r = copy_one(dfd, to, de->d_name, shown, file_max, &made);
		*copied += (size_t)made;
	}
	closedir(d);
	return r;
}

int cache_root_put(int dirfd, const char *name, const char *src)
{
	int in, r;

	if (renameat(AT_FDCWD, src, dirfd, name) == 0)
		return 0;
	if (errno != EXDEV)
		return crs_error_set(CRS_ERR, "move %s into the cache: %s",
				     src, strerror(errno));
	if ((in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", src, strerror(errno));
	} else {
		r = fs_copy_fd_at(in, dirfd, name, src);
		close(in);
	}
	unlink(src);
	return r;
}

int cache_root_has(struct scan *s, const char *rel, long long *size)
{
	struct stat st;
	int fd;

	if (cache_root_file(s, rel, &fd, &st) != 0) {
		crs_error_clear();
		return 0;
	}
	close(fd);
	if (size)
		*size = (long long)st.st_size;
	return 1;
}

int cache_root_remove(struct scan *s, const char *rel)
{
	const char *leaf;
	int root, parent, r;

	if ((r = cache_root_fd(s, &root)) != 0)
		return r;
	r = fs_walk_beneath(&parent, &leaf, root, rel, 0, s->opts->cache_dir);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		return 0;
	}
	if (r != 0)
		return r;
	r = fs_remove_at(parent, leaf, rel);
	close(parent);
	return r;
}
