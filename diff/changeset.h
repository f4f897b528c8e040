/* SPDX-License-Identifier: Apache-2.0 */
/*
 * changeset.h - what a change touched, by file and head-side line
 *
 * A ChangeSet comes from two commits of a git repository (three-dot: the
 * merge-base of base and head against head) or from a unified diff. For
 * each file it records the head-side lines the change added or modified,
 * which is what blame-on-the-change needs. Knows nothing of Docker/SARIF.
 */
#ifndef CRS_DIFF_CHANGESET_H
#define CRS_DIFF_CHANGESET_H

#include <stddef.h>

enum diff_status {
	DIFF_ADDED, DIFF_MODIFIED, DIFF_DELETED, DIFF_RENAMED, DIFF_OTHER,
};

struct diff_file {
	char *path;		/* head-side path, repo-relative */
	char *old_path;		/* base-side path */
	enum diff_status status;
	int binary;
	int *lines;		/* head lines added or modified, ascending */
	size_t lines_nr, lines_alloc;
};

struct diff_changeset {
	char *base_commit;	/* merge-base, or NULL for --diff input */
	char *head_commit;	/* or NULL for --diff input */
	struct diff_file *files;
	size_t nr, alloc;
	char *patch;		/* the unified diff text (NUL-terminated) */
	size_t patch_len;
};

/*
 * Compare merge-base(base, head)..head in the repository at `repo_path`.
 * CRS_EINPUT when a revision does not resolve (message names it).
 */
int diff_changeset_from_git(struct diff_changeset **out,
			    const char *repo_path, const char *base,
			    const char *head);
/* Parse a unified diff (git diff / format-patch output) from memory. */
int diff_changeset_from_patch(struct diff_changeset **out, const char *buf,
			      size_t len, const char *name);
void diff_changeset_free(struct diff_changeset *cs);

/* 1 when head line `line` of `path` was added or modified by the change. */
int diff_changeset_touches(const struct diff_changeset *cs,
			   const char *path, int line);
/* The file entry for a head path, borrowed, or NULL. */
const struct diff_file *diff_changeset_file(const struct diff_changeset *cs,
					    const char *path);

#endif
