/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fsutil.c - directories, bounded reads, atomic writes, hashing
 *
 * The trust rules are fsutil.h's: a named path is trusted up to its last
 * component; below it, everything goes through directory descriptors with
 * O_NOFOLLOW, type checks on the opened file, and new random temp names.
 */
#include "common/fsutil.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/num.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#define FS_TREE_DEPTH_MAX 256	/* folders deep, for the tree walkers */
#define FS_COPY_MAX ((size_t)1 << 30)

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

int fs_mkdir_new(const char *path)
{
	if (mkdir(path, 0700) == 0)
		return 0;
	return crs_error_set(errno == EEXIST ? CRS_ECONFLICT : CRS_ERR,
			     "mkdir '%s': %s", path, strerror(errno));
}

/* Read fd (a regular file per fstat) into out, at most max bytes. */
int fs_read_fd(struct buf *out, int fd, size_t max, const char *what)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return crs_error_set(CRS_EINPUT, "%s: not a regular file",
				     what);
	if ((unsigned long long)st.st_size > max)
		return crs_error_set(CRS_EINPUT, "%s: larger than %zu bytes",
				     what, max);
	return safe_read_buf(out, fd, max, what);
}

static int open_error(const char *what)
{
	if (errno == ENOENT)
		return crs_error_set(CRS_ENOTFOUND, "%s: %s", what,
				     strerror(errno));
	if (errno == ELOOP)
		return crs_error_set(CRS_EINPUT, "%s: is a link", what);
	return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
}

/* openat(dirfd, name, flags) for reading, then fs_read_fd. */
static int read_opened(struct buf *out, int dirfd, const char *name,
		       int flags, size_t max, const char *what)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY |
			O_CLOEXEC | flags);
	int r;

	if (fd < 0)
		return open_error(what);
	r = fs_read_fd(out, fd, max, what);
	close(fd);
	return r;
}

int fs_read_file(struct buf *out, const char *path, size_t max)
{
	return read_opened(out, AT_FDCWD, path, 0, max, path);
}

DIR *fs_dir_stream(int dirfd)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0), saved;
	DIR *d;

	if (fd < 0)
		return NULL;
	if (!(d = fdopendir(fd))) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	rewinddir(d);
	return d;
}

int fs_open_dir(int *fd_out, const char *path)
{
	*fd_out = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd_out < 0)
		return errno == ENOTDIR ?
			crs_error_set(CRS_EINPUT, "%s: not a folder (a link "
				      "or a file)", path) : open_error(path);
	return 0;
}

/*
 * A new temp file in dirfd with a random dot name (watchers such as the
 * exchange skip dot names): O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted
 * there beforehand is opened.
 */
static int tmp_create(int *fd_out, char name[48], int dirfd, mode_t mode)
{
	unsigned char rnd[12];

	for (int tries = 0; tries < 8; tries++) {
		if (RAND_bytes(rnd, sizeof(rnd)) != 1)
			return crs_error_set(CRS_ERR, "no random bytes for a "
					     "temp name");
		memcpy(name, ".crs-ci-tmp.", 12);
		for (size_t i = 0; i < sizeof(rnd); i++)
			snprintf(name + 12 + 2 * i, 3, "%02x", rnd[i]);
		*fd_out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
				 O_NOFOLLOW | O_CLOEXEC, mode);
		if (*fd_out >= 0)
			return 0;
		if (errno != EEXIST)
			return crs_error_set(CRS_ERR, "create '%s': %s", name,
					     strerror(errno));
	}
	return crs_error_set(CRS_ERR, "no free temp name");
}

/* Close the temp fd, then rename it over `name`; on error unlink it. */
static int tmp_commit(int fd, int dirfd, const char *tmp, const char *name,
		      int r)
{
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: close: %s", name,
				  strerror(errno));
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) != 0)
		r = crs_error_set(CRS_ERR, "rename to '%s': %s", name,
				  strerror(errno));
	if (r != 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

int fs_write_at(int dirfd, const char *name, const void *data, size_t len)
{
	char tmp[48];
	int fd = -1, r;

	if ((r = tmp_create(&fd, tmp, dirfd, 0644)) != 0)
		return crs_error_prefix("%s", name);
	r = safe_write_all(fd, data, len, name);
	return tmp_commit(fd, dirfd, tmp, name, r);
}

/* The parent of path, and a pointer to its last component (in `path`). */
static char *split_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* One component of a walked path: not empty, ".", ".." or too long. */
static int walk_component(char comp[NAME_MAX + 1], const char *p, size_t n,
			  const char *shown, const char *rel)
{
	if (!n || n > NAME_MAX || (n == 1 && p[0] == '.') ||
	    (n == 2 && p[0] == '.' && p[1] == '.'))
		return crs_error_set(CRS_EINPUT, "%s/%s: not a plain relative "
				     "path", shown, rel);
	memcpy(comp, p, n);
	comp[n] = '\0';
	return 0;
}

int fs_walk_beneath(int *parent_fd, const char **leaf, int rootfd,
		    const char *rel, int mkdirs, const char *shown)
{
	char comp[NAME_MAX + 1];
	const char *p = rel, *end;
	int cur = -1, next, r;

	*parent_fd = -1;
	*leaf = NULL;
	if ((cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return crs_error_set(CRS_ERR, "%s: dup: %s", shown,
				     strerror(errno));
	for (; (end = strchr(p, '/')); p = end + 1) {
		if ((r = walk_component(comp, p, (size_t)(end - p), shown,
					rel)) != 0)
			goto out;
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirs &&
		    (mkdirat(cur, comp, 0755) == 0 || errno == EEXIST))
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY |
				      O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			r = crs_error_set(e == ENOENT ? CRS_ENOTFOUND :
					  e == ELOOP || e == ENOTDIR ?
					  CRS_EINPUT : CRS_ERR, "%s/%.*s: %s",
					  shown, (int)(end - rel), rel,
					  e == ELOOP || e == ENOTDIR ?
					  "a link or a file, not a folder "
					  "(links are not followed here)" :
					  strerror(e));
			goto out;
		}
		close(cur);
		cur = next;
	}
	if ((r = walk_component(comp, p, strlen(p), shown, rel)) != 0)
		goto out;
	*parent_fd = cur;
	*leaf = p;
	cur = -1;	/* transferred */
out:
	if (cur >= 0)
		close(cur);
	return r;
}

int fs_write_file_atomic(const char *path, const void *data, size_t len)
{
	const char *base;
	char *parent = split_parent(path, &base);
	int dfd = -1, r;

	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		r = crs_error_set(CRS_ERR, "%s: %s", path, errno == ENOTDIR ||
				  errno == ELOOP ? "its folder is a link or a "
				  "file" : strerror(errno));
	else if ((r = fs_write_at(dfd, base, data, len)) != 0)
		crs_error_prefix("%s", path);
	if (dfd >= 0)
		close(dfd);
	free(parent);
	return r;
}

/* Remove `name` in dirfd: unlinked, or (a real folder) emptied first. */
static int remove_at(int dirfd, const char *name, const char *what,
		     int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 :
			crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) != 0 && errno != ENOENT)
			return crs_error_set(CRS_ERR, "unlink '%s': %s", what,
					     strerror(errno));
		return 0;
	}
	if (depth >= FS_TREE_DEPTH_MAX)
		return crs_error_set(CRS_EINPUT, "%s: more than %d folders "
				     "deep", what, FS_TREE_DEPTH_MAX);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	if (!(d = fdopendir(fd))) {
		close(fd);
		return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	}
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = remove_at(fd, de->d_name, what, depth + 1);
	}
	closedir(d);
	if (r == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0 &&
	    errno != ENOENT)
		r = crs_error_set(CRS_ERR, "rmdir '%s': %s", what,
				  strerror(errno));
	return r;
}

int fs_remove_at(int dirfd, const char *name, const char *shown)
{
	return remove_at(dirfd, name, shown ? shown : name, 0);
}

/* path without trailing slashes ("/" stays "/"); caller frees. */
static char *strip_slashes(const char *path)
{
	char *p = xstrdup(path);
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

int fs_remove_tree(const char *path)
{
	char *p = strip_slashes(path), *parent;
	const char *base;
	int dfd = -1, r;

	parent = split_parent(p, &base);
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		r = errno == ENOENT ? 0 : crs_error_set(CRS_ERR, "%s: %s",
							 parent,
							 strerror(errno));
	else
		r = remove_at(dfd, base, p, 0);
	if (dfd >= 0)
		close(dfd);
	free(parent);
	free(p);
	return r;
}

int fs_copy_file(const char *src, const char *dst)
{
	struct buf b = BUF_INIT;
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		      O_CLOEXEC);
	int r;

	if (fd < 0)
		return open_error(src);
	if ((r = fs_read_fd(&b, fd, FS_COPY_MAX, src)) == 0)
		r = fs_write_file_atomic(dst, b.ptr, b.len);
	close(fd);
	buf_release(&b);
	return r;
}

int fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

char *fs_self_exe(const char *fallback)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return fallback ? xstrdup(fallback) : NULL;
	exe[n] = '\0';
	return xstrdup(exe);
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

static int chunk_to_digest(void *ctx, const char *p, size_t n)
{
	EVP_DigestUpdate(ctx, p, n);
	return 0;
}

/* SHA-256 of a file, as 64 lowercase hex characters in out[65]. */
static int fs_sha256_file(char out[65], const char *path)
{
	unsigned char md[32];
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
	if ((r = safe_read_chunks(fd, SIZE_MAX, path, chunk_to_digest,
				  ctx)) != 0)
		goto out;
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

struct chunk_sink {
	int fd;
	const char *what;
};

static int chunk_to_fd(void *ctx, const char *p, size_t n)
{
	struct chunk_sink *sink = ctx;

	return safe_write_all(sink->fd, p, n, sink->what);
}

/* Copy regular file `fd` (fstat'ed by the caller) to `name` in dstfd. */
static int copy_reg_at(int fd, const struct stat *st, int dstfd,
		       const char *name, const char *what)
{
	char tmp[48];
	struct chunk_sink sink = { -1, what };
	int out = -1, r;

	if ((r = tmp_create(&out, tmp, dstfd, 0600)) != 0)
		return crs_error_prefix("%s", what);
	sink.fd = out;
	r = safe_read_chunks(fd, FS_COPY_MAX, what, chunk_to_fd, &sink);
	/* no set-uid/set-gid bits from a tree a container wrote */
	if (r == 0 && fchmod(out, st->st_mode & 0777) != 0)
		r = crs_error_set(CRS_ERR, "chmod '%s': %s", what,
				  strerror(errno));
	return tmp_commit(out, dstfd, tmp, name, r);
}

int fs_copy_fd_at(int fd, int dstfd, const char *name, const char *what)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return crs_error_set(CRS_ERR, "%s: not a regular file", what);
	return copy_reg_at(fd, &st, dstfd, name, what);
}

static int copy_at(int srcfd, const char *sname, int dstfd,
		   const char *dname, const char *what, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d = NULL;
	int fd = -1, out = -1, r = 0;

	if (fstatat(srcfd, sname, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(srcfd, sname, target,
				       sizeof(target) - 1);

		if (n < 0)
			return crs_error_set(CRS_ERR, "readlink '%s': %s",
					     what, strerror(errno));
		target[n] = '\0';
		unlinkat(dstfd, dname, 0);
		if (symlinkat(target, dstfd, dname) != 0)
			return crs_error_set(CRS_ERR, "symlink '%s': %s", what,
					     strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;	/* sockets, fifos, devices: not source */
	fd = openat(srcfd, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC | (S_ISDIR(st.st_mode) ?
					    O_DIRECTORY : 0));
	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
	if (fstat(fd, &st) != 0) {	/* what was opened, not what was seen */
		r = crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		r = copy_reg_at(fd, &st, dstfd, dname, what);
		goto out;
	}
	if (!S_ISDIR(st.st_mode))
		goto out;
	if (depth >= FS_TREE_DEPTH_MAX) {
		r = crs_error_set(CRS_EINPUT, "%s: more than %d folders deep",
				  what, FS_TREE_DEPTH_MAX);
		goto out;
	}
	if (mkdirat(dstfd, dname, 0755) != 0 && errno != EEXIST) {
		r = crs_error_set(CRS_ERR, "mkdir '%s': %s", what,
				  strerror(errno));
		goto out;
	}
	out = openat(dstfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (out < 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
		goto out;
	}
	if (!(d = fdopendir(fd))) {
		r = crs_error_set(CRS_ERR, "%s: %s", what, strerror(errno));
		goto out;
	}
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = copy_at(fd, de->d_name, out, de->d_name, what, depth + 1);
	}
out:
	if (d)
		closedir(d);	/* closes fd */
	else if (fd >= 0)
		close(fd);
	if (out >= 0)
		close(out);
	return r;
}

int fs_copy_tree(const char *src, const char *dst)
{
	char *s = strip_slashes(src), *d = strip_slashes(dst);
	const char *sbase, *dbase;
	char *sparent = split_parent(s, &sbase);
	char *dparent = split_parent(d, &dbase);
	int sfd = -1, dfd = -1, r;

	sfd = open(sparent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		r = crs_error_set(CRS_ERR, "%s: %s", s, strerror(errno));
	else if ((r = fs_mkdir_p(dparent)) == 0 &&
		 (r = fs_open_dir(&dfd, dparent)) == 0)
		r = copy_at(sfd, sbase, dfd, dbase, s, 0);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	free(sparent);
	free(dparent);
	free(s);
	free(d);
	return r;
}

int fs_read_regular_at(struct buf *out, int dirfd, const char *name,
		       const char *shown, size_t max, struct stat *st_out)
{
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
	r = safe_read_buf(out, fd, max, shown);
	close(fd);
	if (r == 0 && st_out)
		*st_out = fst;
	return r;
}

long fs_read_count_at(int dirfd, const char *name)
{
	struct buf b = BUF_INIT;
	long v = -1;

	if (fs_read_regular_at(&b, dirfd, name, name, 31, NULL) != 0 ||
	    num_parse_long_n(b.ptr, num_trim_newline(b.ptr, b.len), 0,
			     LONG_MAX, &v) != 0)
		v = -1;
	crs_error_clear();
	buf_release(&b);
	return v;
}
