/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out_file.c - read the head of a file of the scan's output folder
 *
 * One open with O_NOFOLLOW and a type check on the descriptor; the read
 * is bounded by the caller's cap, whatever the file's size.
 */
#include "runner/report/out_file.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int out_file_head(struct buf *b, const char *dir, const char *rel, size_t max,
		  int *truncated, size_t *size)
{
	char *path = NULL;
	struct stat st;
	size_t n = 0, start = b->len;
	int fd = -1, r = CRS_ERR;

	*truncated = 0;
	if (!dir || !safe_relpath_ok(rel))
		return CRS_EINPUT;
	path = xasprintf("%s/%s", dir, rel);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto out;
	buf_grow(b, max + 1);
	if (safe_read_full(fd, b->ptr + b->len, max + 1, &n, rel) != 0) {
		crs_error_clear();
		goto out;
	}
	b->len += n;
	if (n > max) {
		b->len = start + max;
		*truncated = 1;
	}
	b->ptr[b->len] = '\0';
	if (size)
		*size = (size_t)st.st_size;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}
