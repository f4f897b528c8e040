/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xalloc.h - allocation that never returns NULL
 *
 * Out-of-memory is not an error path in runner/, diff/ and sarif/: these
 * print one line and exit(3). libcrs's public API does not use them.
 */
#ifndef CRS_COMMON_XALLOC_H
#define CRS_COMMON_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a + b, dying on overflow. */
size_t st_add(size_t a, size_t b);
/* a * b, dying on overflow. */
size_t st_mult(size_t a, size_t b);

/* Grow array `p` of `nr` used, `alloc` allocated, to hold at least `want`. */
#define ALLOC_GROW(p, want, alloc) do { \
	if ((size_t)(want) > (size_t)(alloc)) { \
		size_t grow_ = (alloc) ? st_mult((alloc), 2) : 8; \
		if (grow_ < (size_t)(want)) grow_ = (want); \
		(p) = xrealloc((p), st_mult(grow_, sizeof(*(p)))); \
		(alloc) = grow_; \
	} \
} while (0)

#endif
