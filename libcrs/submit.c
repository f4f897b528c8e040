/* SPDX-License-Identifier: Apache-2.0 */
/*
 * submit.c - `libCRS submit`: artifacts into SUBMIT_DIR under md5 names
 *
 * The exchange deduplicates by file name only (contract 6.1), so libCRS
 * names each artifact by its content: "<md5 hex><suffix>". The content is
 * hashed while it is copied, into a hidden temporary file (the exchange
 * skips dotfiles), which is then renamed without replacing: a name that
 * already exists means the same content was submitted before.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The one-shot MD5 functions, deprecated in OpenSSL 3 in favour of EVP,
 * are used on purpose: EVP pulls the provider machinery (dlopen,
 * getaddrinfo) into the static libCRS and grows it fivefold.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>

#define NAME_LIMIT 255

/* Python's PurePath.suffix: the last ".ext", not a leading dot. */
static const char *name_suffix(const char *base)
{
	const char *dot = strrchr(base, '.');
	size_t len = strlen(base);

	if (dot && dot > base && (size_t)(dot - base) < len - 1)
		return dot;
	return base + len;
}

static void md5_update(const void *data, size_t len, void *ctx)
{
	MD5_Update(ctx, data, len);
}

/* Copy fd into the temporary `tmpfd`, computing the md5 as hex. */
static int copy_hashing(int fd, int tmpfd, char hex[33], const char *shown)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[MD5_DIGEST_LENGTH];
	MD5_CTX ctx;
	int r;

	MD5_Init(&ctx);
	if ((r = lcrs_copy_fd(fd, tmpfd, shown, shown, md5_update,
			      &ctx)) != 0)
		return r;
	MD5_Final(md, &ctx);
	for (unsigned i = 0; i < MD5_DIGEST_LENGTH; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[32] = '\0';
	return 0;
}

/* Rename tmp to base, then base's stem + "_N" + suffix, until one is free. */
static int place_report(int dirfd, const char *tmp, const char *base,
			char *name_out)
{
	const char *suffix;
	size_t stem;
	int r;

	while (*base == '.')
		base++;
	if (!*base)
		base = "report";
	suffix = name_suffix(base);
	/* "x.tar.gz" collides as "x_1.tar.gz", as OSS-CRS names it */
	if (!strcmp(suffix, ".gz") && suffix - base > 4 &&
	    !strncmp(suffix - 4, ".tar", 4))
		suffix -= 4;
	stem = (size_t)(suffix - base);
	if (strlen(base) + 6 > NAME_LIMIT)
		return crs_error_set(CRS_EINPUT, "report name '%.32s...' is "
				     "too long", base);
	for (unsigned n = 0; n < 100000; n++) {
		if (n == 0)
			snprintf(name_out, CRS_NAME_MAX, "%s", base);
		else
			snprintf(name_out, CRS_NAME_MAX, "%.*s_%u%s",
				 (int)stem, base, n, suffix);
		r = lcrs_rename_noreplace(dirfd, tmp, name_out);
		if (r != CRS_ECONFLICT)
			return r;
	}
	return crs_error_set(CRS_ERR, "report '%s': too many with that name",
			     base);
}

int lcrs_submit_fd(const char *submit_dir, enum crs_type type, int fd,
		   const char *base, char *name_out, int *existed)
{
	char typedir[LCRS_PATH_MAX], tmp[64], hex[33];
	const char *suffix = name_suffix(base);
	int dirfd = -1, tmpfd = -1, r = CRS_ERR;

	*existed = 0;
	name_out[0] = '\0';
	tmp[0] = '\0';
	if ((r = lcrs_path_fmt(typedir, sizeof(typedir), submit_dir, "%s/%s",
			       submit_dir, crs_type_dir(type))) != 0 ||
	    (r = lcrs_open_dir(typedir, 1, &dirfd)) != 0)
		goto out;
	if ((r = lcrs_tmp_create(dirfd, tmp, &tmpfd)) != 0) {
		crs_error_prefix("'%s'", typedir);
		goto out;
	}
	if ((r = copy_hashing(fd, tmpfd, hex, base)) != 0)
		goto out;
	if (fchmod(tmpfd, 0644) != 0 || close(tmpfd) != 0) {
		tmpfd = -1;
		r = crs_error_set(CRS_ERR, "write '%s/%s': %s", typedir, tmp,
				  strerror(errno));
		goto out;
	}
	tmpfd = -1;
	if (type == CRS_TYPE_REPORT) {
		r = place_report(dirfd, tmp, base, name_out);
	} else {
		if (32 + strlen(suffix) > NAME_LIMIT)
			suffix = "";
		snprintf(name_out, CRS_NAME_MAX, "%s%s", hex, suffix);
		r = lcrs_rename_noreplace(dirfd, tmp, name_out);
		if (r == CRS_ECONFLICT) {
			*existed = 1;
			r = 0;
			goto out;	/* tmp is removed below */
		}
	}
	if (r != 0)
		goto out;
	tmp[0] = '\0';
out:
	lcrs_tmp_discard(dirfd, tmp, tmpfd);
	if (dirfd >= 0)
		close(dirfd);
	return r;
}

/*
 * A report (file or folder) as OSS-CRS submits it: a gzip tar, the file or
 * the folder's contents at its root, written by the image's own `tar`
 * (libCRS stays a small static binary without an archive library). No
 * shell is involved: names go to tar as separate arguments, after "--".
 */
static int report_tarball(const char *path, int is_dir, int *fd_out)
{
	char tmp[] = "/tmp/.libcrs-report-XXXXXX";
	char parent[LCRS_PATH_MAX], base[NAME_LIMIT + 1];
	int fd = mkstemp(tmp), status = 0, r;
	pid_t pid;

	*fd_out = -1;
	if (fd < 0)
		return crs_error_set(CRS_ERR, "report: temporary file: %s",
				     strerror(errno));
	if (lcrs_base_name(base, sizeof(base), path) != 0 ||
	    snprintf(parent, sizeof(parent), "%s", path) >= (int)sizeof(parent)) {
		r = crs_error_set(CRS_EINPUT, "'%s': name too long", path);
		goto out;
	}
	if (strrchr(parent, '/'))
		*strrchr(parent, '/') = '\0';
	else
		strcpy(parent, ".");
	if (!*parent)
		strcpy(parent, "/");
	if ((pid = fork()) < 0) {
		r = crs_error_set(CRS_ERR, "report: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (is_dir)
			execlp("tar", "tar", "-czf", tmp, "-C", path, "--",
			       ".", (char *)NULL);
		else
			execlp("tar", "tar", "-czf", tmp, "-C", parent, "--",
			       base, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		r = crs_error_set(CRS_ERR, "report '%s': tar failed (exit %d%s)",
				  path, WIFEXITED(status) ?
				  WEXITSTATUS(status) : -1,
				  WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
				  ": no tar in this image" : "");
		goto out;
	}
	*fd_out = fd;
	fd = -1; /* transferred */
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	unlink(tmp);	/* the open descriptor keeps the content */
	return r;
}

/* report: <file stem>.tar.gz or <folder name>.tar.gz */
static int submit_report(const struct crs_env *env, const char *path,
			 int is_dir, char name_out[CRS_NAME_MAX])
{
	char base[NAME_LIMIT + 1], name[NAME_LIMIT + 16];
	const char *suffix;
	int fd = -1, existed = 0, r;

	if (lcrs_base_name(base, sizeof(base), path) != 0)
		return crs_error_set(CRS_EINPUT, "'%s': name too long", path);
	suffix = is_dir ? base + strlen(base) : name_suffix(base);
	snprintf(name, sizeof(name), "%.*s.tar.gz", (int)(suffix - base), base);
	if ((r = report_tarball(path, is_dir, &fd)) != 0)
		return r;
	r = lcrs_submit_fd(env->submit_dir, CRS_TYPE_REPORT, fd, name,
			   name_out, &existed);
	close(fd);
	return r;
}

int crs_submit(const struct crs_env *env, enum crs_type type,
	       const char *path, char name_out[CRS_NAME_MAX], int *existed)
{
	char base[NAME_LIMIT + 1];
	struct stat st;
	int fd = -1, r = CRS_ERR;

	*existed = 0;
	name_out[0] = '\0';
	if (!crs_type_allows(type, CRS_USE_SUBMIT))
		return crs_error_set(CRS_EINPUT, "type '%s' cannot be "
				     "submitted", crs_type_name(type) ?
				     crs_type_name(type) : "?");
	if ((r = lcrs_need(env->submit_dir, "OSS_CRS_SUBMIT_DIR")) != 0)
		return r;
	if (stat(path, &st) != 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "'%s': %s", path, strerror(errno));
	if (type == CRS_TYPE_REPORT &&
	    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return submit_report(env, path, S_ISDIR(st.st_mode), name_out);
	if (!S_ISREG(st.st_mode))
		return crs_error_set(CRS_EINPUT, "'%s': not a regular file",
				     path);
	if (lcrs_base_name(base, sizeof(base), path) != 0)
		return crs_error_set(CRS_EINPUT, "'%s': name too long", path);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		r = crs_error_set(CRS_ERR, "'%s': %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = crs_error_set(CRS_EINPUT, "'%s': not a regular file",
				  path);
		goto out;
	}
	r = lcrs_submit_fd(env->submit_dir, type, fd, base, name_out,
			   existed);
out:
	if (fd >= 0)
		close(fd);
	return r;
}
