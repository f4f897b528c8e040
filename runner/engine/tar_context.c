/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tar_context.c - write a directory tree as a reproducible tar (libarchive)
 *
 * Entries are built from lstat(2) by hand rather than with
 * archive_read_disk, so that nothing host-specific (owners, times, ACLs,
 * extended attributes, inode numbers) reaches the archive and the bytes
 * depend only on names, modes, link targets and contents.
 */
#include "runner/engine/tar_context.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/safe_io.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#define TAR_COPY_CHUNK 65536

static int tar_archive_error(struct archive *a, const char *path)
{
	return crs_error_set(CRS_ERR, "%s: tar: %s", path,
			     archive_error_string(a) ?
			     archive_error_string(a) : "write failed");
}

/* The names in directory `path` except . and .., sorted bytewise. */
static int tar_list_dir(const char *path, char ***names_out, size_t *nr_out)
{
	DIR *dir = opendir(path);
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	int r = CRS_ERR;

	*names_out = NULL;
	*nr_out = 0;
	if (!dir)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "%s: %s", path, strerror(errno));
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno) {
				r = crs_error_set(CRS_ERR, "%s: readdir: %s",
						  path, strerror(errno));
				goto out;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	strvec_sort(names, nr);
	*names_out = names;
	*nr_out = nr;
	names = NULL;
	r = 0;
out:
	if (names) {
		for (size_t i = 0; i < nr; i++)
			free(names[i]);
		free(names);
	}
	closedir(dir);
	return r;
}

static int tar_copy_data(struct archive *a, const char *path, int fd,
			 int64_t size)
{
	char *chunk = xmalloc(TAR_COPY_CHUNK);
	int64_t left = size;
	int r = 0;

	while (left > 0) {
		size_t want = left < TAR_COPY_CHUNK ? (size_t)left :
			TAR_COPY_CHUNK;
		size_t n = 0;

		if ((r = safe_read_full(fd, chunk, want, &n, path)) != 0)
			break;
		if (n < want) {
			r = crs_error_set(CRS_ERR, "%s: shrank while being "
					  "archived", path);
			break;
		}
		if (archive_write_data(a, chunk, n) != (la_ssize_t)n) {
			r = tar_archive_error(a, path);
			break;
		}
		left -= (int64_t)n;
	}
	free(chunk);
	return r;
}

/* One file whose content the caller gives instead of the tree's. */
struct tar_replace {
	const char *name;	/* entry name, "Dockerfile"; NULL: none */
	const void *data;
	size_t len;
	int leading;		/* written first; the tree's `name` left out */
};

static int tar_add_tree(struct archive *a, struct buf *path, size_t root_len,
			const struct tar_replace *rep);

/* The replacement as a regular file, mode 0644, in place of `name`. */
static int tar_add_replacement(struct archive *a, const char *name,
			       const struct tar_replace *rep)
{
	struct archive_entry *e = archive_entry_new();
	int r = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_size(e, (la_int64_t)rep->len);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (rep->len && archive_write_data(a, rep->data, rep->len) !=
	     (la_ssize_t)rep->len))
		r = tar_archive_error(a, name);
	archive_entry_free(e);
	return r;
}

/* Add the entry at `path` (already lstat'ed into st) named path+root_len. */
static int tar_add_entry(struct archive *a, struct buf *path, size_t root_len,
			 const struct stat *st, const struct tar_replace *rep)
{
	struct archive_entry *e = archive_entry_new();
	const char *name = path->ptr + root_len;
	char *target = NULL;
	int fd = -1;
	int r = CRS_ERR;

	if (rep->name && !strcmp(name, rep->name) &&
	    (rep->leading || !S_ISDIR(st->st_mode))) {
		archive_entry_free(e);
		return rep->leading ? 0 : tar_add_replacement(a, name, rep);
	}
	archive_entry_set_pathname(e, name);
	archive_entry_set_perm(e, st->st_mode & 07777);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_size(e, 0);
	if (S_ISREG(st->st_mode)) {
		struct stat fst;

		fd = open(path->ptr, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &fst) != 0) {
			r = crs_error_set(CRS_ERR, "%s: %s", path->ptr,
					  strerror(errno));
			goto out;
		}
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, fst.st_size);
	} else if (S_ISDIR(st->st_mode)) {
		archive_entry_set_filetype(e, AE_IFDIR);
	} else if (S_ISLNK(st->st_mode)) {
		size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 :
			PATH_MAX;
		ssize_t n;

		target = xmalloc(cap);
		n = readlink(path->ptr, target, cap);
		if (n < 0 || (size_t)n >= cap) {
			r = crs_error_set(CRS_ERR, "%s: readlink: %s",
					  path->ptr, n < 0 ? strerror(errno) :
					  "target changed");
			goto out;
		}
		target[n] = '\0';
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_symlink(e, target);
	} else if (S_ISFIFO(st->st_mode)) {
		archive_entry_set_filetype(e, AE_IFIFO);
	} else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		archive_entry_set_filetype(e, S_ISCHR(st->st_mode) ?
					   AE_IFCHR : AE_IFBLK);
		archive_entry_set_rdevmajor(e, major(st->st_rdev));
		archive_entry_set_rdevminor(e, minor(st->st_rdev));
	} else {
		r = 0;		/* a socket: tar has no such entry type */
		goto out;
	}
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		r = tar_archive_error(a, path->ptr);
		goto out;
	}
	r = 0;
	if (fd >= 0)
		r = tar_copy_data(a, path->ptr, fd, archive_entry_size(e));
	if (r == 0 && S_ISDIR(st->st_mode))
		r = tar_add_tree(a, path, root_len, rep);
out:
	if (fd >= 0)
		close(fd);
	free(target);
	archive_entry_free(e);
	return r;
}

/* Add every entry below the directory `path` (recursively). */
static int tar_add_tree(struct archive *a, struct buf *path, size_t root_len,
			const struct tar_replace *rep)
{
	char **names = NULL;
	size_t nr = 0, dir_len = path->len;
	int r;

	if ((r = tar_list_dir(path->ptr, &names, &nr)) != 0)
		return r;
	for (size_t i = 0; i < nr && r == 0; i++) {
		struct stat st;

		path->len = dir_len;
		path->ptr[dir_len] = '\0';
		buf_printf(path, "/%s", names[i]);
		if (lstat(path->ptr, &st) != 0)
			r = crs_error_set(CRS_ERR, "%s: %s", path->ptr,
					  strerror(errno));
		else
			r = tar_add_entry(a, path, root_len, &st, rep);
	}
	path->len = dir_len;
	path->ptr[dir_len] = '\0';
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return r;
}

static int tar_write_fd(const char *dir, int fd, const char *tar_path,
			const struct tar_replace *rep)
{
	struct archive *a = archive_write_new();
	struct buf path = BUF_INIT;
	struct stat st;
	int r = CRS_ERR;

	if (stat(dir, &st) != 0) {
		r = crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				  "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		r = crs_error_set(CRS_ERR, "%s: not a directory", dir);
		goto out;
	}
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		r = tar_archive_error(a, tar_path);
		goto out;
	}
	buf_adds(&path, dir);
	while (path.len > 1 && path.ptr[path.len - 1] == '/')
		path.ptr[--path.len] = '\0';
	if (rep->leading && (r = tar_add_replacement(a, rep->name, rep)) != 0)
		goto out;
	/* Entry names start after "<dir>/". */
	if ((r = tar_add_tree(a, &path, path.len + 1, rep)) != 0)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		r = tar_archive_error(a, tar_path);
		goto out;
	}
	r = 0;
out:
	archive_write_free(a);
	buf_release(&path);
	return r;
}

int tar_context_write(const char *dir, const char *tar_path,
		      const char *lead, const void *data, size_t len)
{
	struct tar_replace rep = { lead, data, len, lead != NULL };
	int fd = open(tar_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0600);
	int r;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", tar_path,
				     strerror(errno));
	r = tar_write_fd(dir, fd, tar_path, &rep);
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: close: %s", tar_path,
				  strerror(errno));
	return r;
}

int tar_context_temp_replacing(const char *dir, const char *name,
			       const void *data, size_t len, char **path_out)
{
	struct tar_replace rep = { name, data, len, 0 };
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/crs-ci-tar-XXXXXX.tar",
			       tmp && tmp[0] ? tmp : "/tmp");
	int fd = mkostemps(path, 4, O_CLOEXEC);
	int r = CRS_ERR;

	*path_out = NULL;
	if (fd < 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (rep.name && !strncmp(rep.name, "./", 2))
		rep.name += 2;
	r = tar_write_fd(dir, fd, path, &rep);
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: close: %s", path,
				  strerror(errno));
	if (r != 0) {
		unlink(path);
		goto out;
	}
	*path_out = path;
	path = NULL;
out:
	free(path);
	return r;
}
