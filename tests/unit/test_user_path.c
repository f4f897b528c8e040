/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_user_path.c - a user's path into a checkout the pull request wrote
 *
 * The checkout holds links a pull request could plant (a folder that is
 * a link to the host, a link as the last component); the host folder
 * beside it holds a secret. user_path_open must reach the checkout's own
 * files, refuse every planted link, and still follow the user's links
 * outside the checkout, unless they lead back into it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/user_path.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char root[64];
	char *checkout;
};

static void mkfile(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);

	assert_int_equal(fs_write_file_atomic(p, "x", 1), 0);
	free(p);
}

static void mklink(const char *root, const char *rel, const char *to)
{
	char *p = xasprintf("%s/%s", root, rel);

	assert_int_equal(symlink(to, p), 0);
	free(p);
}

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	char *p;

	strcpy(f->root, "/tmp/crs-ci-user-path.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->checkout = xasprintf("%s/checkout", f->root);
	p = xasprintf("%s/checkout/fuzz/corpus", f->root);
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	p = xasprintf("%s/host/secret", f->root);
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	mkfile(f->root, "host/secret/key");
	mkfile(f->root, "checkout/fuzz/corpus/seed");
	mkfile(f->root, "checkout/fuzz/seeds.zip");
	/* what a pull request can plant */
	mklink(f->root, "checkout/evil", "../host");
	mklink(f->root, "checkout/fuzz/secret", "../../host/secret");
	/* the user's own links outside the checkout */
	mklink(f->root, "to-host", "host");
	mklink(f->root, "to-checkout", "checkout/fuzz");
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	assert_int_equal(fs_remove_tree(f->root), 0);
	free(f->checkout);
	free(f);
	return 0;
}

/* Open root/rel with the checkout as the tree: the result code. */
static int try_open(const struct fixture *f, const char *rel)
{
	char *p = rel[0] == '/' ? xstrdup(rel) :
		xasprintf("%s/%s", f->root, rel);
	int fd = -1, r = user_path_open(&fd, p, f->checkout);

	if (r == 0) {
		assert_true(fd >= 0);
		close(fd);
	} else {
		assert_int_equal(fd, -1);
	}
	crs_error_clear();
	free(p);
	return r;
}

static void test_checkout_own_files(void **st)
{
	struct fixture *f = *st;

	assert_int_equal(try_open(f, "checkout/fuzz/corpus"), 0);
	assert_int_equal(try_open(f, "checkout/fuzz/seeds.zip"), 0);
	assert_int_equal(try_open(f, "checkout/./fuzz//corpus/"), 0);
	assert_int_equal(try_open(f, "checkout/x/../fuzz/corpus"), 0);
	assert_int_equal(try_open(f, "checkout"), 0);
	assert_int_equal(try_open(f, "checkout/fuzz/none"), CRS_ENOTFOUND);
}

static void test_planted_links_refused(void **st)
{
	struct fixture *f = *st;

	/* a link as a folder on the way, and as the last component */
	assert_int_equal(try_open(f, "checkout/evil/secret"), CRS_EINPUT);
	assert_int_equal(try_open(f, "checkout/evil"), CRS_EINPUT);
	assert_int_equal(try_open(f, "checkout/fuzz/secret"), CRS_EINPUT);
	assert_int_equal(try_open(f, "checkout/fuzz/secret/key"),
			 CRS_EINPUT);
}

static void test_relative_to_cwd(void **st)
{
	struct fixture *f = *st;
	char cwd[4096];
	int fd = -1;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->checkout), 0);
	assert_int_equal(user_path_open(&fd, "evil/secret", "."), CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(user_path_open(&fd, "fuzz/corpus", "."), 0);
	close(fd);
	/* climbing out of the checkout names the host, which is the user's */
	assert_int_equal(user_path_open(&fd, "../host/secret", "."), 0);
	close(fd);
	assert_int_equal(chdir(cwd), 0);
}

static void test_outside_links(void **st)
{
	struct fixture *f = *st;
	char *p, *q;
	int fd = -1;

	assert_int_equal(try_open(f, "host/secret/key"), 0);
	assert_int_equal(try_open(f, "to-host/secret"), 0);
	/* a link of the user's that leads into the checkout */
	assert_int_equal(try_open(f, "to-checkout/corpus"), CRS_EINPUT);
	/* the tree named through a link: still walked without links */
	p = xasprintf("%s/to-checkout", f->root);
	assert_int_equal(user_path_open(&fd, f->checkout, p), 0);
	close(fd);
	free(p);
	p = xasprintf("%s/to-checkout", f->root);
	q = xasprintf("%s/checkout/fuzz/secret", f->root);
	assert_int_equal(user_path_open(&fd, q, p), CRS_EINPUT);
	crs_error_clear();
	free(q);
	free(p);
	/* no tree: a plain open */
	p = xasprintf("%s/checkout/evil/secret", f->root);
	assert_int_equal(user_path_open(&fd, p, NULL), 0);
	close(fd);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_checkout_own_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_planted_links_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_to_cwd, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_outside_links, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
