/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strset.c - a set of owned strings, hashed (open addressing)
 *
 * FNV-1a over the bytes, linear probing, at most half full: entries are
 * never removed, so no tombstones are needed.
 */
#include "common/strset.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot holding s, or the free slot where it belongs. */
static size_t find(const struct strset *set, const char *s)
{
	size_t i = (size_t)hash(s) & (set->cap - 1);

	while (set->slot[i] && strcmp(set->slot[i], s))
		i = (i + 1) & (set->cap - 1);
	return i;
}

static void grow(struct strset *set)
{
	struct strset bigger = { NULL, set->nr, set->cap ?
				 st_mult(set->cap, 2) : 64 };

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (size_t i = 0; i < set->cap; i++)
		if (set->slot[i])
			bigger.slot[find(&bigger, set->slot[i])] =
				set->slot[i];
	free(set->slot);
	*set = bigger;
}

int strset_add(struct strset *set, const char *s)
{
	size_t i;

	if ((set->nr + 1) * 2 > set->cap)
		grow(set);
	i = find(set, s);
	if (set->slot[i])
		return 0;
	set->slot[i] = xstrdup(s);
	set->nr++;
	return 1;
}

int strset_has(const struct strset *set, const char *s)
{
	return set->cap && set->slot[find(set, s)] != NULL;
}

void strset_release(struct strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	set->slot = NULL;
	set->nr = set->cap = 0;
}
