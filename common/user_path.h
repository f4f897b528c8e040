/* SPDX-License-Identifier: Apache-2.0 */
/*
 * user_path.h - open a path the user named that may lie in a hostile tree
 *
 * A user's option may name a place inside the pull request's checkout,
 * whose folders and links the pull request wrote (DESIGN decision 10).
 * There the path is walked from the checkout's root with no link
 * followed; elsewhere the user's own links are followed.
 */
#ifndef CRS_COMMON_USER_PATH_H
#define CRS_COMMON_USER_PATH_H

/*
 * Open `path` (a folder or a file; O_RDONLY, O_NONBLOCK, close-on-exec)
 * into *fd. When `path` names a place below the folder `tree` (compared
 * after "." and ".." are taken out, against `tree` as named and as
 * resolved), every component below `tree` is opened O_NOFOLLOW: a link
 * there is CRS_EINPUT. Outside `tree` links are followed, but what is
 * opened must not end up inside `tree` (CRS_EINPUT: name it by its path
 * in the tree). `tree` NULL: a plain open. Missing: CRS_ENOTFOUND.
 * Errors name `path`.
 */
int user_path_open(int *fd, const char *path, const char *tree);

#endif
