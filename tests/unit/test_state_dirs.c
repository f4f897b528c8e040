/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_state_dirs.c - crs-ci's own folders and the checkout under test
 *
 * A folder inside --source's git work tree (also one reached through a
 * link and '..'), a link, and one holding links is refused with the
 * option's name; the .git folder and a folder outside are fine; an
 * output folder is emptied only when it is crs-ci's, and never follows
 * a link while emptying.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/scan/state_dirs.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static char *at(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void touch(const char *rel, const char *text)
{
	char *p = at(rel);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static void mkdirs(const char *rel)
{
	char *p = at(rel);

	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
}

static void link_to(const char *target, const char *rel)
{
	char *p = at(rel);

	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static int setup(void **state)
{
	git_repository *repo = NULL;
	char *p;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test-state-dirs.XXXXXX");
	assert_non_null(mkdtemp(root));
	git_libgit2_init();
	p = at("repo");
	assert_int_equal(git_repository_init(&repo, p, 0), 0);
	git_repository_free(repo);
	free(p);
	mkdirs("repo/sub");
	mkdirs("outside");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(root);
	git_libgit2_shutdown();
	return 0;
}

/* state_dir_check's result for PATH (relative to root unless absolute)
 * with --source root/repo/sub; the message must hold WANT. */
static void expect(const char *path, enum state_dir_kind kind, int want_r,
		   const char *want)
{
	char *src = at("repo/sub");
	char *p = path[0] == '/' ? xstrdup(path) : at(path);
	int r = state_dir_check("--out", p, src, kind);

	assert_int_equal(r, want_r);
	if (want)
		assert_non_null(strstr(crs_error_last(), want));
	crs_error_clear();
	free(src);
	free(p);
}

static void test_inside(void **state)
{
	(void)state;
	expect("repo/sub/o", STATE_DIR_OUT, CRS_EINPUT, "lies inside the git "
	       "work tree");
	expect("repo/new/deeper", STATE_DIR_WORK, CRS_EINPUT, "--out");
	expect("repo", STATE_DIR_CACHE, CRS_EINPUT, "lies inside");
	expect("repo/.git/crs-ci/work", STATE_DIR_WORK, 0, NULL);
	expect("outside/o", STATE_DIR_OUT, 0, NULL);
	expect("outside/../repo/x", STATE_DIR_OUT, CRS_EINPUT, "lies inside");
	expect("missing/../x", STATE_DIR_OUT, CRS_EINPUT,
	       "'..' after a folder that does not exist");
	/* lexically outside, inside as the kernel climbs from the target */
	link_to("../repo/sub", "outside/l");
	expect("outside/l/../c", STATE_DIR_CACHE, CRS_EINPUT, "lies inside");
	/* a --source in no git work tree (crs-ci check from /) is no
	 * checkout: its default folders below it are fine */
	{
		char *src = at("outside"), *p = at("outside/crs-ci-out");

		assert_int_equal(state_dir_check("--out", p, src,
						 STATE_DIR_OUT), 0);
		assert_int_equal(state_dir_check("--out", p, "/",
						 STATE_DIR_OUT), 0);
		free(src);
		free(p);
	}
}

static void test_links(void **state)
{
	(void)state;
	link_to("outside", "out-link");
	expect("out-link", STATE_DIR_OUT, CRS_EINPUT, "is a link");
	expect("out-link", STATE_DIR_CACHE, CRS_EINPUT, "is a link");
	mkdirs("o2/reports/deep");
	link_to("../../../repo/.git", "o2/reports/deep/git");
	expect("o2", STATE_DIR_OUT, CRS_EINPUT, "(reports/deep/git)");
	/* the work folder: top-level links only (exports hold links) */
	expect("o2", STATE_DIR_WORK, 0, NULL);
	mkdirs("w");
	link_to("/", "w/source");
	expect("w", STATE_DIR_WORK, CRS_EINPUT, "(source)");
	touch("w-file", "x");
	expect("w-file", STATE_DIR_WORK, CRS_EINPUT, "is not a folder");
}

static void test_out_fresh(void **state)
{
	char *o = at("fresh"), *mine = at("mine"), *old = at("old");
	struct stat st;

	(void)state;
	/* new: made and marked */
	assert_int_equal(state_dir_out_fresh(o), 0);
	assert_int_equal(lstat(o, &st), 0);
	/* crs-ci's: emptied, the mark left */
	mkdirs("fresh/povs/x");
	touch("fresh/povs/x/pov", "crash");
	assert_int_equal(state_dir_out_fresh(o), 0);
	free(o);
	o = at("fresh/povs");
	assert_int_not_equal(lstat(o, &st), 0);
	/* an older crs-ci's results: emptied */
	mkdirs("old");
	touch("old/results.json", "{}");
	assert_int_equal(state_dir_out_fresh(old), 0);
	free(o);
	o = at("old/results.json");
	assert_int_not_equal(lstat(o, &st), 0);
	/* someone else's files: refused, kept */
	mkdirs("mine");
	touch("mine/notes.txt", "keep");
	assert_int_equal(state_dir_out_fresh(mine), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "holds files crs-ci did not "
			       "write"));
	crs_error_clear();
	free(o);
	o = at("mine/notes.txt");
	assert_int_equal(lstat(o, &st), 0);
	/* a link planted after the check: refused, its target untouched */
	touch("old/results.json", "{}");
	link_to("../mine", "old/reports");
	assert_int_equal(state_dir_out_fresh(old), CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(lstat(o, &st), 0);
	free(o);
	free(mine);
	free(old);
}

static void test_default(void **state)
{
	char *src = at("repo"), *d;
	char cwd[4096];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	/* run from inside the checkout: RUNNER_TEMP's crs-ci folder */
	assert_int_equal(chdir(src), 0);
	setenv("RUNNER_TEMP", "/runner/tmp", 1);
	d = state_dir_default(src, "out");
	assert_int_equal(strncmp(d, "/runner/tmp/crs-ci/repo-", 24), 0);
	assert_string_equal(d + strlen(d) - 4, "/out");
	free(d);
	/* from outside: the current folder's crs-ci-out */
	assert_int_equal(chdir(root), 0);
	d = state_dir_default(src, "out");
	assert_string_equal(d, "crs-ci-out");
	free(d);
	unsetenv("RUNNER_TEMP");
	assert_int_equal(chdir(cwd), 0);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_out_fresh),
		cmocka_unit_test(test_default),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
