/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dense_text.h - text that tokenizes densely, for the gateway's budget
 * unit tests (header only)
 *
 * Random bytes (each byte as U+0001..U+00FF), rare CJK (U+20000 on,
 * four UTF-8 bytes each) and hex dumps: a real tokenizer bills them at
 * about one token per byte, not one per four as for English.
 */
#ifndef CRS_TESTS_UNIT_DENSE_TEXT_H
#define CRS_TESTS_UNIT_DENSE_TEXT_H

#include <stdlib.h>

#include "common/buf.h"

enum { DENSE_BYTES, DENSE_CJK, DENSE_HEX, DENSE_KINDS };

/* Append `n` characters of `kind` to b as UTF-8. */
static inline void dense_text(struct buf *b, int kind, size_t n,
			      unsigned *seed)
{
	for (size_t i = 0; i < n; i++) {
		unsigned r = (unsigned)rand_r(seed), c;

		c = kind == DENSE_BYTES ? 1 + r % 0xff :
		    kind == DENSE_CJK ? 0x20000 + r % 0xa6df :
		    (unsigned char)"0123456789abcdef"[r & 15];
		if (c < 0x80) {
			buf_addch(b, (char)c);
		} else if (c < 0x800) {
			buf_addch(b, (char)(0xc0 | c >> 6));
			buf_addch(b, (char)(0x80 | (c & 0x3f)));
		} else {	/* no BMP code point above U+07FF is used */
			buf_addch(b, (char)(0xf0 | c >> 18));
			buf_addch(b, (char)(0x80 | ((c >> 12) & 0x3f)));
			buf_addch(b, (char)(0x80 | ((c >> 6) & 0x3f)));
			buf_addch(b, (char)(0x80 | (c & 0x3f)));
		}
	}
}

#endif
