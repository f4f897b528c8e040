/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cache_root.c - --cache-dir walked by descriptor
 * (runner/scan/cache_root.c)
 *
 * A cache folder that is a link is refused; a link at any component of a
 * path below it is refused, never followed, and mkdirs makes nothing
 * through it; copying corpus files takes regular files only (no link, no
 * FIFO, no socket, nothing over the cap), never overwrites, and never
 * writes through a link planted in the destination.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/scan/cache_root.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static char dir[] = "/tmp/test_cache_root.XXXXXX";

static char *at(const char *rel)
{
	static char bufs[4][512];
	static int n;
	char *p = bufs[n++ % 4];

	snprintf(p, 512, "%s/%s", dir, rel);
	return p;
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int count(const char *rel)
{
	char cmd[600];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", at(rel));
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void test_root(void **st)
{
	int fd;

	(void)st;
	assert_int_equal(mkdir(at("host"), 0755), 0);
	assert_int_equal(symlink(at("host"), at("linked")), 0);
	assert_int_equal(cache_root_open(at("linked"), &fd), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "is a link"));
	crs_error_clear();
	assert_int_equal(cache_root_open(at("fresh"), &fd), 0);
	assert_true(fd >= 3);
	close(fd);
	assert_int_equal(cache_root_open(at("fresh"), &fd), 0);	/* again */
	close(fd);
}

static void test_walk(void **st)
{
	int root, fd;

	(void)st;
	assert_int_equal(mkdir(at("c"), 0755), 0);
	assert_int_equal(mkdir(at("c/corpus"), 0755), 0);
	assert_int_equal(mkdir(at("outside"), 0755), 0);
	assert_int_equal(mkdir(at("outside/h"), 0755), 0);
	assert_int_equal(symlink(at("outside"), at("c/corpus/p")), 0);
	assert_int_equal(mkdir(at("c/corpus/q"), 0755), 0);
	assert_int_equal(symlink(at("outside"), at("c/corpus/q/h")), 0);
	assert_int_equal(cache_root_open(at("c"), &root), 0);
	/* a link in the middle, at the end; with mkdirs too */
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/p/h", 0, &fd),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "c/corpus/p"));
	crs_error_clear();
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/p/new", 1, &fd),
			 CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/q/h", 1, &fd),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "c/corpus/q/h: a link"));
	crs_error_clear();
	assert_int_equal(fd, -1);
	assert_int_equal(count("outside"), 1);	/* only h: nothing made */
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/r/h", 0, &fd),
			 CRS_ENOTFOUND);
	crs_error_clear();
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/r/h", 1, &fd), 0);
	close(fd);
	assert_true(fs_exists(at("c/corpus/r/h")));
	assert_int_equal(cache_root_dir_at(root, "c", "corpus/../x", 1, &fd),
			 CRS_EINPUT);
	crs_error_clear();
	close(root);
}

static void test_copy(void **st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int from, to, sock;
	size_t n;
	char big[2048];

	(void)st;
	assert_int_equal(mkdir(at("from"), 0755), 0);
	assert_int_equal(mkdir(at("to"), 0755), 0);
	put("from/a", "new a");
	put("to/a", "old a");
	put("from/b", "b");
	put("secret", "host file");
	assert_int_equal(symlink(at("secret"), at("from/link")), 0);
	assert_int_equal(mkfifo(at("from/fifo"), 0644), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("from/sock"));
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	put("from/big", big);
	put("from/.dot", "dot");
	put("from/planted", "through a link?");
	put("victim", "victim");
	assert_int_equal(symlink(at("victim"), at("to/planted")), 0);
	assert_int_equal(fs_open_dir(&from, at("from")), 0);
	assert_int_equal(fs_open_dir(&to, at("to")), 0);
	assert_int_equal(cache_copy_files(from, to, "from", 1, 100, 1024, &n),
			 0);
	assert_int_equal(n, 1);		/* b only */
	assert_true(fs_exists(at("to/b")));
	assert_false(fs_exists(at("to/link")));
	assert_false(fs_exists(at("to/fifo")));
	assert_false(fs_exists(at("to/sock")));
	assert_false(fs_exists(at("to/big")));
	assert_false(fs_exists(at("to/.dot")));
	{
		struct buf b = BUF_INIT;

		assert_int_equal(fs_read_file(&b, at("to/a"), 64), 0);
		assert_memory_equal(b.ptr, "old a", 5);	/* not overwritten */
		buf_release(&b);
		assert_int_equal(fs_read_file(&b, at("victim"), 64), 0);
		assert_memory_equal(b.ptr, "victim", 6);
		buf_release(&b);
	}
	/* the cap on files */
	assert_int_equal(mkdir(at("to2"), 0755), 0);
	close(to);
	assert_int_equal(fs_open_dir(&to, at("to2")), 0);
	assert_int_equal(cache_copy_files(from, to, "from", 0, 1, 1024, &n),
			 0);
	assert_true(n <= 1);
	assert_true(count("to2") <= 1);
	close(sock);
	close(from);
	close(to);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_copy),
	};
	int r;

	if (!mkdtemp(dir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	fs_remove_tree(dir);
	return r;
}
