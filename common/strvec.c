/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strvec.c - NULL-terminated string arrays (see strvec.h)
 */
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push_owned(struct strvec *sv, char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	push_owned(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		s = xstrdup("");
	push_owned(sv, s);
}

const char *const *strvec_list(struct strvec *sv)
{
	static const char *const empty[] = { NULL };

	return sv->nr ? (const char *const *)sv->v : empty;
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

int strvec_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(char **v, size_t nr)
{
	if (nr > 1)
		qsort(v, nr, sizeof(*v), strvec_cmp);
}
