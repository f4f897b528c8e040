/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_exchange.c - the artifact exchange between CRSs (runner/exchange.c)
 *
 * Real folders and inotify: files two "CRSs" submit reach the exchange,
 * nested folders are kept, identical content is kept once, and what a
 * hostile CRS could plant (symlinks, dot files, FIFOs) is not copied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exchange.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fixture {
	char root[64];
	char *a, *b, *x;
	struct exchange *ex;
};

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *roots[2], *names[2] = { "crs-a", "crs-b" };

	strcpy(f->root, "/tmp/crs-ci-exchange.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->a = xasprintf("%s/a", f->root);
	f->b = xasprintf("%s/b", f->root);
	f->x = xasprintf("%s/x", f->root);
	roots[0] = f->a;
	roots[1] = f->b;
	assert_int_equal(fs_mkdir_p(f->x), 0);
	/* a file submitted before the exchange starts is synced at once */
	assert_int_equal(fs_mkdir_p(f->a), 0);
	assert_int_equal(fs_mkdir_p(f->a), 0);
	{
		char *d = xasprintf("%s/seeds", f->a), *p;

		assert_int_equal(fs_mkdir_p(d), 0);
		p = xasprintf("%s/early", d);
		assert_int_equal(fs_write_file_atomic(p, "early", 5), 0);
		free(p);
		free(d);
	}
	assert_int_equal(exchange_new(&f->ex, f->x, roots, names, 2), 0);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	exchange_free(f->ex);
	fs_remove_tree(f->root);
	free(f->a);
	free(f->b);
	free(f->x);
	free(f);
	return 0;
}

static void put(const char *root, const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(p, content, strlen(content)), 0);
	free(p);
}

/* Poll and sync until `rel` exists in the exchange or 2 s pass. */
static double wait_for(struct fixture *f, const char *rel)
{
	char *p = xasprintf("%s/%s", f->x, rel);
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 200 && !fs_exists(p); i++) {
		struct pollfd pfd = { exchange_fd(f->ex), POLLIN, 0 };

		if (poll(&pfd, 1, 10) > 0)
			exchange_sync(f->ex);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(p);
	return (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

static int in_exchange(struct fixture *f, const char *rel)
{
	char *p = xasprintf("%s/%s", f->x, rel);
	int yes = fs_exists(p);

	free(p);
	return yes;
}

static void test_initial_sync(void **st)
{
	struct fixture *f = *st;

	assert_true(in_exchange(f, "seeds/early"));
	assert_int_equal(exchange_copied(f->ex, 1), 1);
}

static void test_seed_reaches_exchange_fast(void **st)
{
	struct fixture *f = *st;
	double ms;

	put(f->a, "seeds/s1", "seed one");
	ms = wait_for(f, "seeds/s1");
	assert_true(in_exchange(f, "seeds/s1"));
	assert_true(ms < 1000.0);
	fprintf(stderr, "exchange latency: %.1f ms\n", ms);
	/* the other CRS submits a PoV; it lands under povs */
	put(f->b, "povs/p1", "crash");
	wait_for(f, "povs/p1");
	assert_true(in_exchange(f, "povs/p1"));
}

static void test_same_content_kept_once(void **st)
{
	struct fixture *f = *st;

	put(f->a, "povs/from-a", "same bytes");
	wait_for(f, "povs/from-a");
	put(f->b, "povs/from-b", "same bytes");
	wait_for(f, "povs/from-b");
	assert_true(in_exchange(f, "povs/from-a"));
	assert_false(in_exchange(f, "povs/from-b"));
	assert_int_equal(exchange_copied(f->ex, 0), 1);
}

static void test_nested_folders_kept(void **st)
{
	struct fixture *f = *st;

	put(f->a, "bug-candidates/sarif/deep/report.sarif", "{}");
	wait_for(f, "bug-candidates/sarif/deep/report.sarif");
	assert_true(in_exchange(f, "bug-candidates/sarif/deep/report.sarif"));
}

static void test_hostile_entries_not_copied(void **st)
{
	struct fixture *f = *st;
	char *link = xasprintf("%s/povs/link", f->a);
	char *fifo = xasprintf("%s/povs/fifo", f->a);

	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	put(f->a, "povs/.hidden", "dot");
	put(f->a, "povs/after", "marker");
	wait_for(f, "povs/after");
	assert_true(in_exchange(f, "povs/after"));
	assert_false(in_exchange(f, "povs/link"));
	assert_false(in_exchange(f, "povs/fifo"));
	assert_false(in_exchange(f, "povs/.hidden"));
	free(link);
	free(fifo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initial_sync, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_seed_reaches_exchange_fast,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_content_kept_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_folders_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_entries_not_copied,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
