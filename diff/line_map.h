/* SPDX-License-Identifier: Apache-2.0 */
/*
 * line_map.h - building and combining a diff_file's line sets and map
 *
 * Internal to diff/: changeset.c feeds hunks and lines in diff order;
 * line_map.c keeps the added/removed sets and the unchanged-line runs,
 * answers lookups (declared in changeset.h) and composes two file diffs
 * applied one after the other (an mbox of several patches).
 */
#ifndef CRS_DIFF_LINE_MAP_H
#define CRS_DIFF_LINE_MAP_H

struct diff_file;

/* Next unconsumed head and base line while walking one file's hunks. */
struct diff_map_state {
	int head;
	int base;
};
#define DIFF_MAP_STATE_INIT { 1, 1 }

/*
 * A hunk starts (header numbers as printed): records the unchanged lines
 * since the previous hunk and moves the state past this hunk.
 */
void diff_map_hunk(struct diff_file *f, struct diff_map_state *st,
		   int old_start, int old_lines, int new_start, int new_lines);
/* A context line inside a hunk. */
void diff_map_context(struct diff_file *f, int head, int base);
/* After the last hunk: the rest of the file is unchanged. */
void diff_map_finish(struct diff_file *f, const struct diff_map_state *st);
/* Record an added head line / a removed base line (any order). */
void diff_map_added(struct diff_file *f, int head);
void diff_map_removed(struct diff_file *f, int base);
/* Sort and de-duplicate the line sets (after out-of-order adds). */
void diff_map_normalize(struct diff_file *f);

/*
 * `first` diffs base->mid, `then` diffs mid->head: make `first` diff
 * base->head (line sets and runs; status and paths are the caller's).
 * `then` is left unchanged.
 */
void diff_map_compose(struct diff_file *first, const struct diff_file *then);

/* 1 when head line `head_line` of `f` was added or modified. */
int diff_file_changed(const struct diff_file *f, int head_line);
/*
 * The base line that unchanged head line `head_line` was, or 0 when the
 * line is new (added, modified, or the file is added or binary).
 */
int diff_file_base_line(const struct diff_file *f, int head_line);
/* The head line that base line `base_line` became, or 0 if removed. */
int diff_file_head_line(const struct diff_file *f, int base_line);

#endif
