/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.h - "did you mean" for a mistyped command or option
 *
 * The word the user typed is offered every name it could have meant (a
 * command table, an option table); the nearest by edit distance, when it
 * is near enough, is the suggestion. Nothing is allocated.
 */
#ifndef CRS_COMMON_SUGGEST_H
#define CRS_COMMON_SUGGEST_H

#include <stddef.h>

/* The longest word compared; a longer one gets no suggestion. */
#define SUGGEST_MAX 64

struct suggest {
	const char *word;	/* what was typed (borrowed) */
	size_t word_len;	/* its length up to '=' ("--opt=value") */
	const char *best;	/* the nearest name offered so far, or NULL */
	size_t best_dist;
};

/* Start for `word` (borrowed; an option without its leading "--"). */
void suggest_init(struct suggest *sg, const char *word);

/*
 * Offer `name` (borrowed until the suggestion is read). It becomes the
 * suggestion when it is nearer than every earlier one, not the word
 * itself, and within the allowance for the word's length (none up to 2
 * letters, 1 edit up to 4, 2 up to 8, then 3); a swap of neighbours is
 * one edit. Cannot fail.
 */
void suggest_offer(struct suggest *sg, const char *name);

#ifdef UNIT_TESTS
/* Edits (insert, delete, change, swap of neighbours) from a[0..an) to
 * b[0..bn); both at most SUGGEST_MAX, else a large number. */
size_t suggest_edit_distance(const char *a, size_t an, const char *b,
			     size_t bn);
#endif

#endif
