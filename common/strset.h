/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strset.h - a set of owned strings, hashed (open addressing)
 *
 * For the names and digests crs-ci has already handled while it reads a
 * folder a container fills: membership costs O(1) however many entries
 * a hostile container makes, where a list would make every scan
 * quadratic. Start from STRSET_INIT; out-of-memory exits (xalloc).
 */
#ifndef CRS_COMMON_STRSET_H
#define CRS_COMMON_STRSET_H

#include <stddef.h>

struct strset {
	char **slot;		/* cap slots, NULL when free */
	size_t nr, cap;		/* cap is 0 or a power of two */
};
#define STRSET_INIT { NULL, 0, 0 }

/* 1 when s was added, 0 when it was there already. */
int strset_add(struct strset *set, const char *s);
/* 1 when s is in the set, else 0. Cannot fail. */
int strset_has(const struct strset *set, const char *s);
void strset_release(struct strset *set);

#endif
