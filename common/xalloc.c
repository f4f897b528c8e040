/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xalloc.c - allocation wrappers that exit on out-of-memory
 *
 * The exit code is 3 (infrastructure error), matching docs/decisions.md (decision 8).
 */
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t n)
{
	fprintf(stderr, "crs-ci: out of memory allocating %zu bytes\n", n);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom(st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die_oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die_oom(n + 1);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_oom(0);
	return s;
}

size_t st_add(size_t a, size_t b)
{
	if (SIZE_MAX - a < b) {
		fprintf(stderr, "crs-ci: size overflow (%zu + %zu)\n", a, b);
		exit(3);
	}
	return a + b;
}

size_t st_mult(size_t a, size_t b)
{
	if (a && SIZE_MAX / a < b) {
		fprintf(stderr, "crs-ci: size overflow (%zu * %zu)\n", a, b);
		exit(3);
	}
	return a * b;
}
