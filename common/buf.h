/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.h - a growable byte buffer
 *
 * Invariant: `ptr` is never NULL after BUF_INIT and always NUL-terminated,
 * so it can be used as a C string when the content is text.
 */
#ifndef CRS_COMMON_BUF_H
#define CRS_COMMON_BUF_H

#include <stddef.h>

struct buf {
	char *ptr;
	size_t len;
	size_t alloc;
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_init(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Append `s` as one POSIX sh word: in single quotes, each ' written as
 * '\'' (close, an escaped quote, reopen), so spaces, $, ` and newlines
 * stay literal. Cannot fail.
 */
void buf_add_sh_word(struct buf *b, const char *s);
void buf_reset(struct buf *b);
/* Hand the storage to the caller (free() it); the buffer is reset. */
char *buf_detach(struct buf *b, size_t *len_out);
void buf_release(struct buf *b);

#endif
