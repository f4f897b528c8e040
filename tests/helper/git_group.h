/* SPDX-License-Identifier: Apache-2.0 */
/*
 * git_group.h - libgit2 for a whole cmocka group, as main() holds it for
 * the product, with git's user and system configuration kept out
 */
#ifndef CRS_TESTS_HELPER_GIT_GROUP_H
#define CRS_TESTS_HELPER_GIT_GROUP_H

/* cmocka group setup: no global or system git config; libgit2 up. */
int git_group_setup(void **state);
/* cmocka group teardown: libgit2 down (its caches freed). */
int git_group_teardown(void **state);

#endif
