/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.c - growable byte buffer (see buf.h for the invariants)
 */
#include "common/buf.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char buf_empty[1];

void buf_init(struct buf *b)
{
	b->ptr = buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t want = st_add(st_add(b->len, extra), 1);

	if (want <= b->alloc)
		return;
	if (want < b->alloc * 2)
		want = b->alloc * 2;
	if (b->alloc == 0) {
		b->ptr = xmalloc(want);
		b->ptr[0] = '\0';
	} else {
		b->ptr = xrealloc(b->ptr, want);
	}
	b->alloc = want;
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->ptr[0] = '\0';
}

char *buf_detach(struct buf *b, size_t *len_out)
{
	char *p;

	if (len_out)
		*len_out = b->len;
	p = b->alloc ? b->ptr : xstrdup("");
	buf_init(b);
	return p;
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->ptr);
	buf_init(b);
}

void buf_add_sh_word(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}
