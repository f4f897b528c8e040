/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff_file.h - one changed file of a ChangeSet: status, lines, line map
 *
 * The types only: changeset.c fills them, line_map.c keeps their line
 * map, and neither needs the other's header for them.
 */
#ifndef CRS_DIFF_DIFF_FILE_H
#define CRS_DIFF_DIFF_FILE_H

#include <limits.h>
#include <stddef.h>

/* Append-only: values are never renumbered. */
enum diff_status {
	DIFF_ADDED, DIFF_MODIFIED, DIFF_DELETED, DIFF_RENAMED, DIFF_OTHER,
	DIFF_COPIED,		/* path is a copy of old_path (similarity) */
	DIFF_MODE_CHANGED,	/* only the file mode changed */
	DIFF_TYPECHANGE,	/* e.g. a regular file became a symlink */
};

/* Unchanged head lines [head, head + len) are base lines [base, ...). */
struct diff_run {
	int head;
	int base;
	int len;		/* DIFF_RUN_OPEN: to the end of the file */
};
#define DIFF_RUN_OPEN INT_MAX

/* A hunk's head lines [start, end], context included; end < start: the
 * hunk only removes lines. */
struct diff_hunk_span {
	int start;
	int end;
};

struct diff_file {
	char *path;		/* head-side path, repo-relative */
	char *old_path;		/* base-side path (== path unless renamed) */
	enum diff_status status;
	int binary;		/* no line information for binary files */
	int *lines;		/* head lines added or modified, ascending */
	size_t lines_nr, lines_alloc;
	int similarity;		/* percent, for DIFF_RENAMED/DIFF_COPIED */
	unsigned old_mode;	/* git modes (0100644, 0100755, 0120000 ...); */
	unsigned new_mode;	/* 0: no such side, or unknown (plain diff) */
	int *removed;		/* base lines removed, ascending */
	size_t removed_nr, removed_alloc;
	struct diff_run *runs;	/* the line map, ascending; none for added, */
	size_t runs_nr, runs_alloc; /* deleted and binary files */
	struct diff_hunk_span *hunks;	/* in diff order; for an mbox, every */
	size_t hunks_nr, hunks_alloc;	/* patch's hunks, each in its own head */
};

#endif
