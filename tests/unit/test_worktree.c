/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_worktree.c - a checkout's edits that HEAD does not hold: none in a
 * clean checkout; modified, staged, deleted and new source files listed
 * (sorted, capped, counted); untracked non-source files, untracked
 * folders and ignored files left out; nothing when the head scanned is
 * not HEAD; the root of the work tree a subfolder is in
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff/worktree.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/helper/git_group.h"
#include "tests/helper/scratch_dir.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

/* Run `cmd` in the test's repository; it must succeed. */
static void sh(const char *cmd)
{
	char *full = xasprintf("cd '%s' && %s", dir, cmd);
	int rc = system(full);

	if (rc != 0)
		print_error("command failed (%d): %s\n", rc, full);
	free(full);
	assert_int_equal(rc, 0);
}

/* HEAD's full id. */
static char *head_id(void)
{
	char *cmd = xasprintf("git -C '%s' rev-parse HEAD", dir);
	FILE *p = popen(cmd, "r");
	char id[64] = "";

	assert_non_null(p);
	assert_non_null(fgets(id, sizeof(id), p));
	pclose(p);
	free(cmd);
	id[strcspn(id, "\n")] = '\0';
	return xstrdup(id);
}

static void test_edits_listed(void **state)
{
	struct strvec v = STRVEC_INIT;
	size_t total = 9;
	char *head;

	(void)state;
	assert_int_equal(scratch_dir(dir, sizeof(dir), "worktree"), 0);
	sh("git init -q . && printf 'build/\\n' >.gitignore && "
	   "mkdir -p src && printf 'int a;\\n' >src/a.c && "
	   "printf 'int b;\\n' >src/b.c && printf 'x\\n' >README && "
	   "git add -A && git -c user.name=t -c user.email=t@t "
	   "-c commit.gpgsign=false commit -q -m base");
	head = head_id();
	/* clean: nothing */
	assert_int_equal(diff_worktree_uncommitted(dir, head, &v, 20, &total),
			 0);
	assert_int_equal(total, 0);
	assert_int_equal(v.nr, 0);
	/* a modified file, a staged one, a deleted one, a new C file; a new
	 * text file, a new folder and an ignored build are not listed */
	sh("printf 'int a2;\\n' >>src/a.c && printf 'y\\n' >>README && "
	   "git add README && rm src/b.c && printf 'int c;\\n' >src/c.c && "
	   "printf 'n\\n' >notes.txt && mkdir -p extra && "
	   "printf 'int d;\\n' >extra/d.c && mkdir -p build && "
	   "printf 'int o;\\n' >build/o.c");
	assert_int_equal(diff_worktree_uncommitted(dir, head, &v, 20, &total),
			 0);
	assert_int_equal(total, 4);
	assert_int_equal(v.nr, 4);
	assert_string_equal(v.v[0], "README");
	assert_string_equal(v.v[1], "src/a.c");
	assert_string_equal(v.v[2], "src/b.c");
	assert_string_equal(v.v[3], "src/c.c");
	strvec_release(&v);
	/* capped, still counted */
	assert_int_equal(diff_worktree_uncommitted(dir, head, &v, 2, &total),
			 0);
	assert_int_equal(total, 4);
	assert_int_equal(v.nr, 2);
	strvec_release(&v);
	/* the head scanned is not HEAD: the checkout's edits are not its */
	assert_int_equal(diff_worktree_uncommitted(
				 dir, "0123456789012345678901234567890123456789",
				 &v, 20, &total), 0);
	assert_int_equal(total, 0);
	free(head);
	sh("rm -rf \"$PWD\"");
}

static void test_not_a_repository(void **state)
{
	struct strvec v = STRVEC_INIT;
	size_t total = 9;

	(void)state;
	assert_int_equal(scratch_dir(dir, sizeof(dir), "not-a-repo"), 0);
	assert_int_not_equal(diff_worktree_uncommitted(dir, "00", &v, 20,
						       &total), 0);
	assert_int_equal(total, 0);
	sh("rm -rf \"$PWD\"");
}

/* The root of the work tree from a subfolder; none outside one. */
static void test_root(void **state)
{
	char *sub, *root, *real;

	(void)state;
	assert_int_equal(scratch_dir(dir, sizeof(dir), "root"), 0);
	sh("git init -q . && mkdir -p src/deep");
	real = realpath(dir, NULL);
	sub = xasprintf("%s/src/deep", dir);
	root = diff_worktree_root(sub);
	assert_non_null(root);
	assert_string_equal(root, real);
	free(root);
	root = diff_worktree_root(dir);
	assert_string_equal(root, real);
	free(root);
	free(sub);
	free(real);
	sh("rm -rf \"$PWD\"");
	assert_int_equal(scratch_dir(dir, sizeof(dir), "no-root"), 0);
	assert_null(diff_worktree_root(dir));
	sh("rm -rf \"$PWD\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edits_listed),
		cmocka_unit_test(test_not_a_repository),
		cmocka_unit_test(test_root),
	};

	return cmocka_run_group_tests(tests, git_group_setup,
				      git_group_teardown);
}
