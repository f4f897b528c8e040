/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strvec.h - a NULL-terminated, growable array of owned strings
 *
 * Used for argv, environment and label lists handed to the engine
 * client, which wants `const char *const *` terminated by NULL.
 */
#ifndef CRS_COMMON_STRVEC_H
#define CRS_COMMON_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;		/* always NULL-terminated once anything is pushed */
	size_t nr, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The list for APIs taking `const char *const *`; never NULL. */
const char *const *strvec_list(struct strvec *sv);
void strvec_release(struct strvec *sv);

/* qsort/bsearch comparator of `char *` elements, by strcmp. */
int strvec_cmp(const void *a, const void *b);
/* Sort the nr strings of v in place by strcmp (nr may be 0). */
void strvec_sort(char **v, size_t nr);

#endif
