/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bind_source.c - bind sources reached through links are refused
 *
 * The layout of a work folder after a hostile harness ran: a link at
 * triage/<pov>/base to a host folder, a link among the parents, a FIFO as
 * a source. Sources outside the work root are the user's and pass; a
 * source in --cache-dir is refused outright (unless it is in the work or
 * output folder too).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/bind_source.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check(const char *root, const char *bind)
{
	const char *roots[] = { root, NULL };
	const char *binds[] = { bind, NULL };
	int r = bind_source_check_roots(roots, binds);

	crs_error_clear();
	return r;
}

static void test_links_below_the_root(void **st)
{
	char root[64] = "/tmp/crs-ci-bind.XXXXXX", *p, *b;

	(void)st;
	assert_non_null(mkdtemp(root));
	p = xasprintf("%s/triage/fuzz-1/head/io", root);
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	/* what the harness planted at /triage/base */
	p = xasprintf("%s/triage/fuzz-1/head/io/base", root);
	assert_int_equal(symlink("/var/run", p), 0);
	b = xasprintf("%s:/triage", p);
	assert_int_equal(check(root, b), CRS_EINPUT);
	free(b);
	free(p);
	/* a link among the parents, with a real folder below it */
	p = xasprintf("%s/triage/linked", root);
	assert_int_equal(symlink(root, p), 0);
	b = xasprintf("%s/triage/linked/triage:/x:ro", root);
	assert_int_equal(check(root, b), CRS_EINPUT);
	free(b);
	free(p);
	/* ".." would climb out of a checked folder */
	b = xasprintf("%s/triage/../triage:/x", root);
	assert_int_equal(check(root, b), CRS_EINPUT);
	free(b);
	/* a FIFO is neither a folder nor a file */
	p = xasprintf("%s/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	b = xasprintf("%s:/testcase:ro", p);
	assert_int_equal(check(root, b), CRS_EINPUT);
	free(b);
	free(p);
	/* real folders, a missing tail, and sources outside the root pass */
	b = xasprintf("%s/triage/fuzz-1/head/io:/triage", root);
	assert_int_equal(check(root, b), 0);
	free(b);
	b = xasprintf("%s/triage/fuzz-1/base/io:/triage", root);
	assert_int_equal(check(root, b), 0);
	free(b);
	assert_int_equal(check(root, "/etc/ssl/certs:/etc/ssl/certs:ro"), 0);
	{
		char *rootslash = xasprintf("%s/", root);

		b = xasprintf("%s/triage/fuzz-1/head/io/base:/triage", root);
		assert_int_equal(check(rootslash, b), CRS_EINPUT);
		free(b);
		free(rootslash);
	}
	assert_int_equal(fs_remove_tree(root), 0);
}

static void test_cache_refused(void **st)
{
	const char *own[] = { "/ci/work", "/ci/out", NULL };
	const char *cached[] = { "/ci/work/x:/a", "/ci/cache/corpus/p/h:/c:ro",
				 NULL };
	const char *fine[] = { "/ci/work/x:/a", "/ci/cache-other:/b",
			       "/ci/project:/p:ro", NULL };
	const char *root[] = { "/ci/cache:/x", NULL };
	const char *inner[] = { "/ci/cache/work/x:/a", NULL };
	const char *own_inner[] = { "/ci/cache/work", NULL };

	(void)st;
	assert_int_equal(bind_source_not_in("/ci/cache", own, cached),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "/ci/cache/corpus/p/h"));
	crs_error_clear();
	assert_int_equal(bind_source_not_in("/ci/cache/", own, root),
			 CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(bind_source_not_in("/ci/cache", own, fine), 0);
	assert_int_equal(bind_source_not_in(NULL, own, cached), 0);
	/* a work folder inside the cache folder stays crs-ci's own */
	assert_int_equal(bind_source_not_in("/ci/cache", own_inner, inner), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_below_the_root),
		cmocka_unit_test(test_cache_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
