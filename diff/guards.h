/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guards.h - does a change remove or weaken a guard?
 *
 * The classic shape of a memory-safety regression is a check that goes
 * away (a deleted condition, call or jump, a turned comparison, a moved
 * bound or size). The run phase fuzzes such a change longer before it
 * calls it saturated. A line lexer: an atom of a removed line found on
 * no added line of the same file is a weakened guard (docs/cmd/scan.md).
 */
#ifndef CRS_DIFF_GUARDS_H
#define CRS_DIFF_GUARDS_H

#include <stddef.h>

struct diff_changeset;

/* The first guard a change weakened. */
struct diff_guard {
	char *path;		/* base-side path of the file */
	int line;		/* the removed line, base side */
	char *text;		/* that line, trimmed, at most 120 bytes */
	size_t nr;		/* removed lines that weakened a guard */
};
#define DIFF_GUARD_INIT { NULL, 0, NULL, 0 }

/*
 * Scan the change's C, C++ and Java files (its `patch`, read with
 * libgit2). Returns 1 and fills *out (release it with
 * diff_guard_release) when a removed line held a guard that no added
 * line of the same file holds again, 0 when none did (or there is no
 * patch), CRS_ERR when the patch does not parse.
 */
int diff_changeset_weakened_guard(struct diff_guard *out,
				  const struct diff_changeset *cs);
void diff_guard_release(struct diff_guard *g);

#ifdef UNIT_TESTS
/*
 * The guards of one removed line (`len` bytes) as NUL-separated
 * normalised atoms appended to `atoms` (spaces and comments dropped):
 * each comparison with the operands beside it, each if/while/assert
 * condition without a comparison, a for loop's header, a jump (goto,
 * return, break, continue), a subscript or array size, a called name
 * (a size-taking call's whole text), a #define's whole text. Returns how
 * many.
 */
struct buf;
size_t diff_guard_atoms(struct buf *atoms, const char *line, size_t len);
#endif

#endif
