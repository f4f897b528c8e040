/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fsutil.c - file-system helpers against a hostile folder
 *
 * Each test lays out what a container could plant in a folder it can
 * write (links at temp names and at targets, linked parents, FIFOs,
 * set-uid files, deep trees) and checks that common/fsutil.c neither
 * follows, blocks on, nor writes through any of it. A "sentinel" file
 * and folder outside the hostile folder stand for the host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SENTINEL "host secret: must stay as it is\n"

struct fixture {
	char root[64];
	char *hostile;		/* the container-writable folder */
	char *host;		/* a folder outside it */
	char *sentinel;		/* a host file */
};

static char *pathf(const struct fixture *f, const char *rel)
{
	return xasprintf("%s/%s", f->root, rel);
}

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void assert_sentinel(const struct fixture *f)
{
	struct buf b = BUF_INIT;

	assert_int_equal(fs_read_file(&b, f->sentinel, 1 << 20), 0);
	assert_int_equal(b.len, strlen(SENTINEL));
	assert_memory_equal(b.ptr, SENTINEL, b.len);
	buf_release(&b);
}

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/crs-ci-fsutil.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->hostile = pathf(f, "hostile");
	f->host = pathf(f, "host");
	f->sentinel = pathf(f, "host/secret");
	assert_int_equal(fs_mkdir_p(f->hostile), 0);
	assert_int_equal(fs_mkdir_p(f->host), 0);
	put(f->sentinel, SENTINEL);
	/* a FIFO opened without O_NONBLOCK would hang: make that a failure */
	alarm(20);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	alarm(0);
	assert_int_equal(fs_remove_tree(f->root), 0);
	free(f->hostile);
	free(f->host);
	free(f->sentinel);
	free(f);
	return 0;
}

/* Links at every temp name the writer could pick today: pid-based ones. */
static void test_write_ignores_links_at_temp_names(void **st)
{
	struct fixture *f = *st;
	char *target = xasprintf("%s/results.json", f->hostile);
	struct buf b = BUF_INIT;

	for (long pid = getpid() - 2; pid <= getpid() + 2; pid++) {
		char *l1 = xasprintf("%s/.results.json.tmp.%ld", f->hostile,
				     pid);
		char *l2 = xasprintf("%s/results.json.tmp.%ld", f->hostile,
				     pid);

		assert_int_equal(symlink(f->sentinel, l1), 0);
		assert_int_equal(symlink(f->sentinel, l2), 0);
		free(l1);
		free(l2);
	}
	assert_int_equal(fs_write_file_atomic(target, "{}", 2), 0);
	assert_sentinel(f);
	assert_int_equal(fs_read_file(&b, target, 64), 0);
	assert_int_equal(b.len, 2);
	buf_release(&b);
	free(target);
}

/* A link at the file's own name is replaced, not written through. */
static void test_write_replaces_link_at_target(void **st)
{
	struct fixture *f = *st;
	char *target = xasprintf("%s/container.log", f->hostile);
	struct stat sb;

	assert_int_equal(symlink(f->sentinel, target), 0);
	assert_int_equal(fs_write_file_atomic(target, "log", 3), 0);
	assert_sentinel(f);
	assert_int_equal(lstat(target, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	free(target);
}

/* A parent folder swapped for a link is refused. */
static void test_write_refuses_linked_parent(void **st)
{
	struct fixture *f = *st;
	char *dir = xasprintf("%s/base", f->hostile);
	char *target = xasprintf("%s/secret", dir);

	assert_int_equal(symlink(f->host, dir), 0);
	assert_int_not_equal(fs_write_file_atomic(target, "x", 1), 0);
	crs_error_clear();
	assert_sentinel(f);
	free(dir);
	free(target);
}

static void test_copy_file_refuses_link_and_fifo(void **st)
{
	struct fixture *f = *st;
	char *link = xasprintf("%s/pov", f->hostile);
	char *fifo = xasprintf("%s/fifo", f->hostile);
	char *dst = pathf(f, "copy");

	assert_int_equal(symlink(f->sentinel, link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_not_equal(fs_copy_file(link, dst), 0);
	crs_error_clear();
	assert_false(fs_exists(dst));
	assert_int_equal(fs_copy_file(fifo, dst), CRS_EINPUT);
	crs_error_clear();
	assert_false(fs_exists(dst));
	free(link);
	free(fifo);
	free(dst);
}

static void test_read_at_checks_the_opened_file(void **st)
{
	struct fixture *f = *st;
	struct buf b = BUF_INIT;
	char *p;
	int dfd = -1;

	p = xasprintf("%s/run.1.log", f->hostile);
	put(p, "crash");
	free(p);
	p = xasprintf("%s/run.2.log", f->hostile);
	assert_int_equal(symlink(f->sentinel, p), 0);
	free(p);
	p = xasprintf("%s/run.3.log", f->hostile);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	p = xasprintf("%s/run.4.log", f->hostile);
	put(p, "0123456789");
	free(p);
	assert_int_equal(fs_open_dir(&dfd, f->hostile), 0);
	assert_int_equal(fs_read_regular_at(&b, dfd, "run.1.log", "1", 64,
					    NULL), 0);
	assert_int_equal(b.len, 5);
	buf_reset(&b);
	assert_int_not_equal(fs_read_regular_at(&b, dfd, "run.2.log", "2", 64,
						NULL), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(fs_read_regular_at(&b, dfd, "run.3.log", "3", 64,
					    NULL),
			 CRS_EINPUT);
	assert_int_equal(fs_read_regular_at(&b, dfd, "run.4.log", "4", 4, NULL),
			 CRS_EINPUT);
	assert_int_equal(b.len, 0);
	assert_int_equal(fs_read_regular_at(&b, dfd, "missing", "5", 4, NULL),
			 CRS_ENOTFOUND);
	crs_error_clear();
	close(dfd);
	/* the folder itself swapped for a link */
	p = xasprintf("%s/io", f->hostile);
	assert_int_equal(symlink(f->host, p), 0);
	assert_int_equal(fs_open_dir(&dfd, p), CRS_EINPUT);
	assert_int_equal(dfd, -1);
	crs_error_clear();
	assert_int_equal(b.len, 0);
	free(p);
	buf_release(&b);
}

/* rm -rf never descends a link, not even one planted as a folder. */
static void test_remove_tree_keeps_link_targets(void **st)
{
	struct fixture *f = *st;
	char *a = xasprintf("%s/a", f->hostile);
	char *l = xasprintf("%s/a/host", f->hostile);

	assert_int_equal(fs_mkdir_p(a), 0);
	assert_int_equal(symlink(f->host, l), 0);
	assert_int_equal(fs_remove_tree(f->hostile), 0);
	assert_false(fs_exists(f->hostile));
	assert_sentinel(f);
	free(a);
	free(l);
}

/* Links copied as links, FIFOs passed over, set-uid bits dropped. */
static void test_copy_tree_hostile(void **st)
{
	struct fixture *f = *st;
	char *p = xasprintf("%s/sub", f->hostile);
	char *dst = pathf(f, "copy");
	struct stat sb;

	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	p = xasprintf("%s/sub/tool", f->hostile);
	put(p, "#!/bin/sh\n");
	assert_int_equal(chmod(p, 04755), 0);
	free(p);
	p = xasprintf("%s/etc", f->hostile);
	assert_int_equal(symlink(f->host, p), 0);
	free(p);
	p = xasprintf("%s/fifo", f->hostile);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	assert_int_equal(fs_copy_tree(f->hostile, dst), 0);
	p = xasprintf("%s/etc", dst);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	free(p);
	p = xasprintf("%s/fifo", dst);
	assert_false(fs_exists(p));
	free(p);
	p = xasprintf("%s/sub/tool", dst);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0755);
	free(p);
	/* a destination folder swapped for a link is not written through */
	assert_int_equal(fs_remove_tree(dst), 0);
	assert_int_equal(symlink(f->host, dst), 0);
	assert_int_not_equal(fs_copy_tree(f->hostile, dst), 0);
	crs_error_clear();
	p = xasprintf("%s/sub", f->host);
	assert_false(fs_exists(p));
	free(p);
	assert_sentinel(f);
	free(dst);
}

static void test_mkdir_new(void **st)
{
	struct fixture *f = *st;
	char *d = xasprintf("%s/base", f->hostile);
	char *l = xasprintf("%s/linked", f->hostile);

	assert_int_equal(fs_mkdir_new(d), 0);
	assert_int_equal(fs_mkdir_new(d), CRS_ECONFLICT);
	assert_int_equal(symlink(f->host, l), 0);
	assert_int_equal(fs_mkdir_new(l), CRS_ECONFLICT);
	{
		struct stat sb;

		assert_int_equal(lstat(d, &sb), 0);
		assert_int_equal(sb.st_mode & 0777, 0700);
	}
	free(d);
	free(l);
}

/*
 * fs_walk_beneath: a linked or file parent anywhere on the way is refused
 * (also with mkdirs: nothing is created behind it), missing folders are
 * made only when asked, and "..", "." and empty components are refused.
 */
static void test_walk_beneath(void **st)
{
	struct fixture *f = *st;
	char *link = pathf(f, "hostile/.github"), *made = NULL;
	const char *leaf = NULL;
	struct stat sb;
	int root = -1, pfd = -1;

	assert_int_equal(fs_open_dir(&root, f->hostile), 0);
	assert_int_equal(symlink(f->host, link), 0);
	assert_int_equal(fs_walk_beneath(&pfd, &leaf, root,
					 ".github/workflows/x.yml", 1,
					 f->hostile), CRS_EINPUT);
	assert_int_equal(pfd, -1);
	assert_non_null(strstr(crs_error_last(), ".github: a link"));
	made = pathf(f, "host/workflows");
	assert_int_equal(lstat(made, &sb), -1);	/* nothing behind the link */
	free(made);
	made = pathf(f, "hostile/file");
	put(made, "x");
	assert_int_equal(fs_walk_beneath(&pfd, &leaf, root, "file/x", 1,
					 f->hostile), CRS_EINPUT);
	assert_int_equal(fs_walk_beneath(&pfd, &leaf, root, "new/dir/x.yml",
					 0, f->hostile), CRS_ENOTFOUND);
	assert_int_equal(fs_walk_beneath(&pfd, &leaf, root, "new/dir/x.yml",
					 1, f->hostile), 0);
	assert_string_equal(leaf, "x.yml");
	assert_int_equal(fs_write_at(pfd, leaf, "y", 1), 0);
	close(pfd);
	assert_int_equal(fs_walk_beneath(&pfd, &leaf, root, "x.yml", 0,
					 f->hostile), 0);
	assert_string_equal(leaf, "x.yml");
	close(pfd);
	for (const char *const *bad = (const char *const[]){ "../x", "a/../x",
	     "./x", "a//x", "", "a/", NULL }; *bad; bad++)
		assert_int_equal(fs_walk_beneath(&pfd, &leaf, root, *bad, 1,
						 f->hostile), CRS_EINPUT);
	assert_sentinel(f);
	close(root);
	free(link);
	free(made);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_write_ignores_links_at_temp_names, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_write_replaces_link_at_target, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_write_refuses_linked_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_copy_file_refuses_link_and_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_read_at_checks_the_opened_file, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_remove_tree_keeps_link_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_tree_hostile, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_new, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_walk_beneath, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
