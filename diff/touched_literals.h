/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touched_literals.h - the literals of the functions a change touched
 *
 * Fills a diff_touched's `body` and `callees` literal sets from one
 * file's head text (see diff/literals.h for what a literal is).
 */
#ifndef CRS_DIFF_TOUCHED_LITERALS_H
#define CRS_DIFF_TOUCHED_LITERALS_H

#include <stddef.h>

struct diff_touched;
struct diff_func_spans;

/*
 * The functions t->v[first_fn..] were all found in one file whose head
 * text is `src` (`len` bytes) with the function spans `spans`: scan each
 * one's lines into t->body, then the lines of every other function of
 * the file whose simple name one of them calls (`name(`; at most 16 per
 * file, in file order) into t->callees. Cannot fail; the caps of
 * diff/literals.h bound what is kept.
 */
void diff_touched_literals_scan(struct diff_touched *t, size_t first_fn,
				const char *src, size_t len,
				const struct diff_func_spans *spans);

#endif
