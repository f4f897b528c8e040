/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fsutil.c - directories, bounded reads, atomic writes, hashing
 *
 * Nothing here trusts a path: callers that handle container output confine
 * paths first (see libcrs/ and the triage phase).
 */
#include "common/fsutil.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

int fs_mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				r = crs_error_set(CRS_ERR, "mkdir '%s': %s", p,
						  strerror(errno));
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return r;
}

int fs_read_file(struct buf *out, const char *path, size_t max)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "%s: %s", path, strerror(errno));
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: read: %s", path,
					  strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (out->len + (size_t)n > max) {
			r = crs_error_set(CRS_EINPUT,
					  "%s: larger than %zu bytes", path, max);
			break;
		}
		buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	return r;
}

int fs_write_file_atomic(const char *path, const void *data, size_t len)
{
	/* a dot name: watchers of the folder (the exchange) skip it */
	const char *slash = strrchr(path, '/');
	char *tmp = slash ?
		xasprintf("%.*s/.%s.tmp.%ld", (int)(slash - path), path,
			  slash + 1, (long)getpid()) :
		xasprintf(".%s.tmp.%ld", path, (long)getpid());
	const char *p = data;
	int fd = -1, r = CRS_ERR;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: write: %s", path,
					  strerror(errno));
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0) {
		fd = -1;
		r = crs_error_set(CRS_ERR, "%s: close: %s", path,
				  strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		r = crs_error_set(CRS_ERR, "rename to '%s': %s", path,
				  strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (r != 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int fs_remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 :
			crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) != 0 && errno != ENOENT)
			return crs_error_set(CRS_ERR, "unlink '%s': %s", path,
					     strerror(errno));
		return 0;
	}
	if (!(d = opendir(path)))
		return crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	while (r == 0 && (de = readdir(d))) {
		char *child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = xasprintf("%s/%s", path, de->d_name);
		r = fs_remove_tree(child);
		free(child);
	}
	closedir(d);
	if (r == 0 && rmdir(path) != 0 && errno != ENOENT)
		r = crs_error_set(CRS_ERR, "rmdir '%s': %s", path,
				  strerror(errno));
	return r;
}

int fs_copy_file(const char *src, const char *dst)
{
	struct buf b = BUF_INIT;
	int r;

	if ((r = fs_read_file(&b, src, (size_t)1 << 30)) == 0)
		r = fs_write_file_atomic(dst, b.ptr, b.len);
	buf_release(&b);
	return r;
}

int fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

char *fs_abspath(const char *path)
{
	struct buf b = BUF_INIT;
	char cwd[PATH_MAX];
	char *copy, *save = NULL, *tok;
	char **parts = NULL;
	size_t nr = 0, alloc = 0;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			strcpy(cwd, "/");
		copy = xasprintf("%s/%s", cwd, path);
	} else {
		copy = xstrdup(path);
	}
	for (tok = strtok_r(copy, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (nr)
				nr--;
			continue;
		}
		ALLOC_GROW(parts, nr + 1, alloc);
		parts[nr++] = tok;
	}
	for (size_t i = 0; i < nr; i++) {
		buf_addch(&b, '/');
		buf_adds(&b, parts[i]);
	}
	if (!nr)
		buf_addch(&b, '/');
	free(parts);
	free(copy);
	return buf_detach(&b, NULL);
}

static void hex_digest(char out[65], const unsigned char *md)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

void sha256_hex(char out[65], const void *data, size_t len)
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	hex_digest(out, md);
}

int fs_sha256_file(char out[65], const char *path)
{
	unsigned char md[32], chunk[65536];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = NULL;
	int fd, r = CRS_ERR;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	if (!(ctx = EVP_MD_CTX_new()) ||
	    !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		r = crs_error_set(CRS_ERR, "sha256: init failed");
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: read: %s", path,
					  strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		EVP_DigestUpdate(ctx, chunk, (size_t)n);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	hex_digest(out, md);
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return r;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory (without . and ..). */
static int list_dir(char ***out, size_t *nr_out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	*out = NULL;
	*nr_out = 0;
	if (!d)
		return crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_names);
	*out = names;
	*nr_out = nr;
	return 0;
}

static int hash_tree_into(EVP_MD_CTX *ctx, const char *root, const char *rel)
{
	char *path = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	char **names = NULL;
	size_t nr = 0;
	struct stat st;
	int r = 0;

	if (lstat(path, &st) != 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
		goto out;
	}
	{
		char head[64];
		int n = snprintf(head, sizeof(head), "%o\n", (unsigned)st.st_mode);

		EVP_DigestUpdate(ctx, rel, strlen(rel) + 1);
		EVP_DigestUpdate(ctx, head, (size_t)n);
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target));

		if (n > 0)
			EVP_DigestUpdate(ctx, target, (size_t)n);
	} else if (S_ISREG(st.st_mode)) {
		char sum[65];

		if ((r = fs_sha256_file(sum, path)) != 0)
			goto out;
		EVP_DigestUpdate(ctx, sum, 64);
	} else if (S_ISDIR(st.st_mode)) {
		if ((r = list_dir(&names, &nr, path)) != 0)
			goto out;
		for (size_t i = 0; i < nr && r == 0; i++) {
			char *child = *rel ? xasprintf("%s/%s", rel, names[i]) :
				xstrdup(names[i]);

			r = hash_tree_into(ctx, root, child);
			free(child);
		}
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(path);
	return r;
}

int fs_sha256_tree(char out[65], const char *dir)
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int r;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return crs_error_set(CRS_ERR, "sha256: init failed");
	}
	r = hash_tree_into(ctx, dir, "");
	if (r == 0) {
		EVP_DigestFinal_ex(ctx, md, &mdlen);
		hex_digest(out, md);
	}
	EVP_MD_CTX_free(ctx);
	return r;
}

int fs_copy_tree(const char *src, const char *dst)
{
	struct stat st;
	char **names = NULL;
	size_t nr = 0;
	int r = 0;

	if (lstat(src, &st) != 0)
		return crs_error_set(CRS_ERR, "%s: %s", src, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof(target) - 1);

		if (n < 0)
			return crs_error_set(CRS_ERR, "readlink '%s': %s", src,
					     strerror(errno));
		target[n] = '\0';
		unlink(dst);
		if (symlink(target, dst) != 0)
			return crs_error_set(CRS_ERR, "symlink '%s': %s", dst,
					     strerror(errno));
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		if ((r = fs_copy_file(src, dst)) == 0 &&
		    chmod(dst, st.st_mode & 07777) != 0)
			r = crs_error_set(CRS_ERR, "chmod '%s': %s", dst,
					  strerror(errno));
		return r;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;	/* sockets, fifos, devices: not source */
	if ((r = fs_mkdir_p(dst)) != 0 || (r = list_dir(&names, &nr, src)) != 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		if (r == 0) {
			char *s = xasprintf("%s/%s", src, names[i]);
			char *d = xasprintf("%s/%s", dst, names[i]);

			r = fs_copy_tree(s, d);
			free(s);
			free(d);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int fs_read_regular_at(struct buf *out, int dirfd, const char *name,
		       const char *shown, size_t max, struct stat *st_out)
{
	char chunk[65536];
	struct stat st, fst;
	int fd, r = 0;

	if (!shown)
		shown = name;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND :
				     CRS_EINPUT, "%s: %s", shown,
				     strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)max)
		return crs_error_set(CRS_EINPUT, "%s: not a regular file of "
				     "at most %zu bytes", shown, max);
	/* the entry may have been swapped since: check what was opened */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND :
				     CRS_EINPUT, "%s: %s", shown,
				     strerror(errno));
	if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) ||
	    fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
		close(fd);
		return crs_error_set(CRS_EINPUT, "%s: replaced while it was "
				     "opened", shown);
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				r = crs_error_set(CRS_EINPUT, "%s: %s", shown,
						  strerror(errno));
			break;
		}
		if (out->len + (size_t)n > max) {
			r = crs_error_set(CRS_EINPUT, "%s: grew past %zu "
					  "bytes", shown, max);
			break;
		}
		buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	if (r == 0 && st_out)
		*st_out = fst;
	return r;
}
