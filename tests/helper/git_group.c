/* SPDX-License-Identifier: Apache-2.0 */
/*
 * git_group.c - libgit2 for a whole cmocka group, as main() holds it for
 * the product, with git's user and system configuration kept out
 */
#include "tests/helper/git_group.h"

#include <git2.h>
#include <stdlib.h>

int git_group_setup(void **state)
{
	(void)state;
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return git_libgit2_init() > 0 ? 0 : -1;
}

int git_group_teardown(void **state)
{
	(void)state;
	git_libgit2_shutdown();
	return 0;
}
