/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_parse.h - check a unified diff line by line, split it for libgit2
 *
 * Internal to diff/. The input may be git diff output, a git format-patch
 * mail or mbox, or plain diff -u output. diff_patch_split() walks it once
 * with a small state machine, reports the first malformed line with its
 * 1-based number, and returns git-style sections (one per mail) that
 * git_diff_from_buffer() accepts, each line tagged with its input line.
 */
#ifndef CRS_DIFF_PATCH_PARSE_H
#define CRS_DIFF_PATCH_PARSE_H

#include "common/buf.h"

#include <stddef.h>

struct diff_patch_section {
	struct buf text;	/* git-style diff text, '\n'-terminated lines */
	int *line_of;		/* input line number of each text line */
	size_t lines_nr, lines_alloc;
};

/* A plain diff's "Binary files A and B differ": not git-parsable. */
struct diff_patch_binary {
	char *old_path;
	char *path;
};

struct diff_patch_split {
	struct diff_patch_section *v;
	size_t nr, alloc;
	struct diff_patch_binary *bin;
	size_t bin_nr, bin_alloc;
};
#define DIFF_PATCH_SPLIT_INIT { NULL, 0, 0, NULL, 0, 0 }

/*
 * Split `buf` (named `name` in messages) into sections. Returns 0, or
 * CRS_EINPUT with "NAME:LINE: what is wrong". `out` must be initialised
 * with DIFF_PATCH_SPLIT_INIT; release it with diff_patch_split_release()
 * on success and on failure.
 */
int diff_patch_split(struct diff_patch_split *out, const char *buf,
		     size_t len, const char *name);
void diff_patch_split_release(struct diff_patch_split *ps);

/* The input line of 1-based `text_line` of a section (its first line
 * when out of range). */
int diff_patch_section_line(const struct diff_patch_section *s,
			    long text_line);

#endif
