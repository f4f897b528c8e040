/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_walk.h - a ChangeSet's patch, one file at a time, through libgit2
 *
 * Internal to diff/: the line scanners (literals.c, guards.c) read the
 * change's own patch text file by file with this one walk.
 */
#ifndef CRS_DIFF_PATCH_WALK_H
#define CRS_DIFF_PATCH_WALK_H

#include <git2.h>

struct diff_changeset;

/*
 * Call fn(p, arg) for each file of cs->patch, in order, until one
 * returns non-zero (that value is returned). 0 when every call returned
 * 0 or there is no patch; CRS_ERR when the patch does not parse.
 */
int diff_patch_walk(const struct diff_changeset *cs,
		    int (*fn)(git_patch *p, void *arg), void *arg);

/* The length of a patch line's text without its line end. */
size_t diff_patch_line_len(const git_diff_line *dl);

/* crs_error_set(CRS_ERR, "WHAT: libgit2's last message"); returns it. */
int diff_patch_git_fail(const char *what);

#endif
