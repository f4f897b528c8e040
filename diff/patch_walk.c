/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_walk.c - a ChangeSet's patch, one file at a time, through libgit2
 *
 * diff_patch_walk (patch_walk.h): the patch text crs-ci parsed, read
 * again by git_diff_from_buffer, one git_patch per file.
 */
#include "diff/patch_walk.h"
#include "diff/changeset.h"
#include "common/error.h"

int diff_patch_git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(CRS_ERR, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

size_t diff_patch_line_len(const git_diff_line *dl)
{
	size_t n = dl->content_len;

	while (n > 0 && (dl->content[n - 1] == '\n' ||
			 dl->content[n - 1] == '\r'))
		n--;
	return n;
}

int diff_patch_walk(const struct diff_changeset *cs,
		    int (*fn)(git_patch *p, void *arg), void *arg)
{
	git_diff *diff = NULL;
	int r = 0;

	if (!cs->patch || !cs->patch_len)
		return 0;
	if (git_diff_from_buffer(&diff, cs->patch, cs->patch_len) != 0)
		return diff_patch_git_fail("reading the change's patch");
	for (size_t i = 0; i < git_diff_num_deltas(diff) && r == 0; i++) {
		git_patch *p = NULL;

		if (git_patch_from_diff(&p, diff, i) != 0)
			r = diff_patch_git_fail("reading the change's patch");
		else if (p)
			r = fn(p, arg);
		git_patch_free(p);
	}
	git_diff_free(diff);
	return r;
}
