/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_safe_io.c - the bounded read loop and relative-path check
 *
 * common/safe_io.c is what every trust-boundary reader shares: a writer
 * that trickles bytes (a pipe) is read whole, a cap is never exceeded and
 * its overrun is CRS_EINPUT, a write goes out whole, and a path that
 * leaves its folder is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/safe_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A pipe holding `text`, its write end closed: reads come in pieces. */
static int pipe_with(const char *text)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], text, strlen(text)),
			 (ssize_t)strlen(text));
	close(p[1]);
	return p[0];
}

static void test_read_full(void **st)
{
	char dst[8];
	size_t n = 99;
	int fd = pipe_with("0123456789");

	(void)st;
	/* fills to the cap, leaves the rest */
	assert_int_equal(safe_read_full(fd, dst, sizeof(dst), &n, "p"), 0);
	assert_int_equal(n, 8);
	assert_memory_equal(dst, "01234567", 8);
	/* short at end of file */
	assert_int_equal(safe_read_full(fd, dst, sizeof(dst), &n, "p"), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(dst, "89", 2);
	assert_int_equal(safe_read_full(fd, dst, sizeof(dst), &n, "p"), 0);
	assert_int_equal(n, 0);
	close(fd);
	/* a read error names what was read */
	assert_int_equal(safe_read_full(-1, dst, sizeof(dst), &n, "gone.log"),
			 CRS_ERR);
	assert_int_equal(n, 0);
	assert_non_null(strstr(crs_error_last(), "gone.log: read: "));
	crs_error_clear();
}

static void test_read_buf_cap(void **st)
{
	struct buf b = BUF_INIT;
	int fd = pipe_with("abcdef");

	(void)st;
	assert_int_equal(safe_read_buf(&b, fd, 6, "six"), 0);
	assert_int_equal(b.len, 6);
	assert_string_equal(b.ptr, "abcdef");
	close(fd);
	buf_reset(&b);
	fd = pipe_with("abcdefg");
	assert_int_equal(safe_read_buf(&b, fd, 6, "seven"), CRS_EINPUT);
	assert_int_equal(b.len, 0);	/* nothing past the cap handed on */
	assert_non_null(strstr(crs_error_last(),
			       "seven: larger than 6 bytes"));
	crs_error_clear();
	close(fd);
	buf_release(&b);
}

static void test_write_all(void **st)
{
	char dst[16];
	size_t n = 0;
	int p[2];

	(void)st;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(safe_write_all(p[1], "hello world", 11, "w"), 0);
	close(p[1]);
	assert_int_equal(safe_read_full(p[0], dst, sizeof(dst), &n, "r"), 0);
	assert_int_equal(n, 11);
	assert_memory_equal(dst, "hello world", 11);
	close(p[0]);
	assert_int_equal(safe_write_all(-1, "x", 1, "out.log"), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "out.log: write: "));
	crs_error_clear();
}

static void test_relpath(void **st)
{
	static const char *const ok[] = {
		"a", "a/b", "src/x.c", "..a/b", "a/..b", "a/b..", ".", "a/./b",
		"a//b", "a/", NULL
	};
	static const char *const bad[] = {
		"", "/", "/etc/passwd", "..", "../x", "a/..", "a/../b",
		"a/b/..", NULL
	};

	(void)st;
	for (size_t i = 0; ok[i]; i++)
		assert_true(safe_relpath_ok(ok[i]));
	for (size_t i = 0; bad[i]; i++)
		assert_false(safe_relpath_ok(bad[i]));
	assert_false(safe_relpath_ok(NULL));
}

/* a new folder is made and opened; a name already there (a folder or a
 * link a container planted) is refused, never followed */
static void test_mkdirat_open(void **st)
{
	char tmpl[] = "/tmp/crs-ci-safe-io.XXXXXX", path[64];
	struct stat sb;
	int root, fd;

	(void)st;
	assert_non_null(mkdtemp(tmpl));
	root = open(tmpl, O_RDONLY | O_DIRECTORY);
	assert_true(root >= 0);
	fd = safe_mkdirat_open(root, "new");
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	close(fd);
	errno = 0;
	assert_int_equal(safe_mkdirat_open(root, "new"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(symlinkat("/", root, "planted"), 0);
	errno = 0;
	assert_int_equal(safe_mkdirat_open(root, "planted"), -1);
	assert_int_equal(errno, EEXIST);
	unlinkat(root, "planted", 0);
	unlinkat(root, "new", AT_REMOVEDIR);
	close(root);
	snprintf(path, sizeof(path), "%s", tmpl);
	assert_int_equal(rmdir(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_full),
		cmocka_unit_test(test_read_buf_cap),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_relpath),
		cmocka_unit_test(test_mkdirat_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
