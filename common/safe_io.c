/* SPDX-License-Identifier: Apache-2.0 */
/*
 * safe_io.c - the bounded read and write loops, the relative-path check
 *
 * The only read(2) loop of the tree's file readers: every capped read of
 * something a container, a pull request or a report may have written goes
 * through safe_read_full, so the cap, EINTR and short reads are handled
 * once. See safe_io.h.
 */
#include "common/safe_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"

#define SAFE_CHUNK 65536

int safe_read_full(int fd, void *dst, size_t cap, size_t *len_out,
		   const char *what)
{
	char *p = dst;
	size_t len = 0;

	*len_out = 0;
	while (len < cap) {
		ssize_t n = read(fd, p + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*len_out = len;
			return crs_error_set(CRS_ERR, "%s: read: %s", what,
					     strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*len_out = len;
	return 0;
}

int safe_read_chunks(int fd, size_t max, const char *what, safe_chunk_fn fn,
		     void *ctx)
{
	char chunk[SAFE_CHUNK];
	size_t done = 0, n = 0;
	int r;

	do {
		if ((r = safe_read_full(fd, chunk, sizeof(chunk), &n,
					what)) != 0)
			return r;
		if (n > max - done)
			return crs_error_set(CRS_EINPUT, "%s: larger than "
					     "%zu bytes", what, max);
		done += n;
		if (n && (r = fn(ctx, chunk, n)) != 0)
			return r;
	} while (n == sizeof(chunk));
	return 0;
}

static int chunk_to_buf(void *ctx, const char *p, size_t n)
{
	buf_add(ctx, p, n);
	return 0;
}

int safe_read_buf(struct buf *out, int fd, size_t max, const char *what)
{
	return safe_read_chunks(fd, max, what, chunk_to_buf, out);
}

int safe_write_all(int fd, const void *data, size_t len, const char *what)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return crs_error_set(CRS_ERR, "%s: write: %s", what,
					     strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int safe_relpath_ok(const char *p)
{
	if (!p || !*p || *p == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

int safe_mkdirat_open(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0755) != 0)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
}
