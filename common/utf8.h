/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.h - UTF-8 checks and repairs for text that reaches JSON
 *
 * jansson refuses strings that are not valid UTF-8, and crash reports,
 * paths and function names come from hostile output. These helpers make
 * such text safe to keep and to serialise (SARIF, JUnit, logs); SARIF
 * columns count UTF-16 code units, so the decoder to them is here too.
 */
#ifndef CRS_COMMON_UTF8_H
#define CRS_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (1-4) of the valid UTF-8 sequence at s (n bytes available), or 0
 * when the bytes there are not one (overlong, surrogate, truncated, ...).
 * Stores the code point in *cp when cp is not NULL. Cannot fail.
 */
size_t utf8_seq(const char *s, size_t n, uint32_t *cp);

/*
 * A copy of at most `max` bytes of s (n bytes) that is valid UTF-8 with no
 * control characters: invalid bytes become '?', controls become ' '. The
 * copy never ends inside a sequence. Caller frees.
 */
char *utf8_clean(const char *s, size_t n, size_t max);

/*
 * One step of utf8_clean(): the character at s (n > 0 bytes available)
 * cleaned into out at *o, which it advances, never past out[max - 1]
 * (*o < max on entry). Returns how many bytes of s it used (>= 1).
 */
size_t utf8_clean_char(char *out, size_t *o, size_t max, const char *s,
		       size_t n);

/* 1 when s (NUL-terminated) is valid UTF-8 with no control characters. */
int utf8_is_clean(const char *s);

/* Receives one UTF-16 code unit. */
typedef void (*utf16_fn)(void *ctx, uint32_t unit);

/*
 * Decode `n` bytes as the WHATWG UTF-8 decoder does (what Node uses): one
 * U+FFFD per maximal invalid subpart; each UTF-16 code unit to `fn`.
 */
void utf8_to_utf16(const char *data, size_t n, utf16_fn fn, void *ctx);

#endif
