/* SPDX-License-Identifier: Apache-2.0 */
/*
 * literals.h - the constants a change's added lines compare against
 *
 * String and character literals and the numeric constants of comparisons
 * (`x == 0x7f`, `case 42:`) on the head lines a change added, for a
 * fuzzer's dictionary. The added lines are the pull request's text:
 * every literal is bounded in size and count, de-duplicated, and kept
 * as bytes; rendering escapes it for its sink (JSON, dictionary).
 */
#ifndef CRS_DIFF_LITERALS_H
#define CRS_DIFF_LITERALS_H

#include <stddef.h>
#include <stdint.h>

#include "common/strset.h"

struct diff_changeset;

#define DIFF_LITERAL_LEN_MAX 64	 /* longer literals are dropped */
#define DIFF_LITERALS_MAX    256 /* the rest are counted, not kept */

enum diff_literal_kind {
	DIFF_LIT_STRING, /* "..." decoded: escapes turned into bytes */
	DIFF_LIT_CHAR,	 /* '...' decoded */
	DIFF_LIT_NUMBER, /* a comparison constant as written: "0x7f" */
};

struct diff_literal {
	enum diff_literal_kind kind;
	char *bytes; /* len bytes, NUL-terminated (may hold NULs) */
	size_t len;
	int64_t value; /* DIFF_LIT_NUMBER: its value */
};

struct diff_literals {
	struct diff_literal *v; /* in the order first seen */
	size_t nr, alloc;
	size_t dropped;	    /* occurrences not kept: too long, or new
				   ones over DIFF_LITERALS_MAX */
	size_t comparisons; /* against a constant but 0, 1 and '\0' */
	struct strset seen; /* de-duplication keys */
};
#define DIFF_LITERALS_INIT                    \
	{                                     \
		NULL, 0, 0, 0, 0, STRSET_INIT \
	}

/*
 * Scan one added line of C, C++ or Java source (`len` bytes, need not be
 * NUL-terminated) into `l`. `*in_comment` carries a block comment over
 * from one line to the next (start a file with 0). Cannot fail.
 */
void diff_literals_scan_line(struct diff_literals *l, const char *line,
			     size_t len, int *in_comment);

/*
 * The literals of every line the change added to a C, C++ or Java file
 * (its `patch`, read with libgit2). Returns 0, or CRS_ERR when the patch
 * does not parse. `out` is initialised with DIFF_LITERALS_INIT and is
 * released by the caller on success and on failure.
 */
int diff_changeset_literals(struct diff_literals *out,
			    const struct diff_changeset *cs);

/*
 * The literals of `n` sets (NULL entries skipped), in their order, as
 * one libFuzzer / AFL++ dictionary: one `"..."` line per entry, each
 * entry once, every byte outside printable ASCII and every quote or
 * backslash written as \xNN. A number gives its text, its decimal text,
 * its hex digits (upper and lower case) when it is written in hex, and
 * its little- and big-endian bytes in the smallest width that holds it.
 * NULL when there is no entry. Caller frees.
 */
char *diff_literals_dict(const struct diff_literals *const *sets, size_t n);

void diff_literals_release(struct diff_literals *l);

#endif
