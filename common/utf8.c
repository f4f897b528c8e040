/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.c - validate and repair UTF-8 from untrusted text
 *
 * Follows RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF. Repairs are lossy on purpose ('?' and ' '): the text is for
 * humans and for JSON, never round-tripped back to the producer.
 */
#include "common/utf8.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <string.h>

size_t utf8_seq(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t c;
	size_t need, i;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		c = p[0];
		need = 0;
	} else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		c = p[0] & 0x1f;
		need = 1;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		c = p[0] & 0x0f;
		need = 2;
		if (p[0] == 0xe0)
			lo = 0xa0;
		if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		c = p[0] & 0x07;
		need = 3;
		if (p[0] == 0xf0)
			lo = 0x90;
		if (p[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (need >= n)
		return 0;
	for (i = 1; i <= need; i++) {
		if (p[i] < lo || p[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (cp)
		*cp = c;
	return need + 1;
}

size_t utf8_clean_char(char *out, size_t *o, size_t max, const char *s,
		       size_t n)
{
	unsigned char c = (unsigned char)*s;
	size_t k;

	if (c < 0x20 || c == 0x7f) {
		out[(*o)++] = ' ';
		return 1;
	}
	k = utf8_seq(s, n, NULL);
	if (!k || *o + k > max) {
		out[(*o)++] = '?';
		return 1;
	}
	memcpy(out + *o, s, k);
	*o += k;
	return k;
}

char *utf8_clean(const char *s, size_t n, size_t max)
{
	char *out = xmalloc(st_add(n < max ? n : max, 1));
	size_t i = 0, o = 0;

	while (i < n && o < max)
		i += utf8_clean_char(out, &o, max, s + i, n - i);
	out[o] = '\0';
	return out;
}

int utf8_is_clean(const char *s)
{
	size_t n = strlen(s), i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t k;

		if (c < 0x20 || c == 0x7f)
			return 0;
		if (!(k = utf8_seq(s + i, n - i, NULL)))
			return 0;
		i += k;
	}
	return 1;
}

static void emit_cp(utf16_fn fn, void *ctx, uint32_t cp)
{
	if (cp > 0xffff) {
		cp -= 0x10000;
		fn(ctx, 0xd800 + (cp >> 10));
		fn(ctx, 0xdc00 + (cp & 0x3ff));
	} else {
		fn(ctx, cp);
	}
}

/*
 * Decode like the WHATWG UTF-8 decoder (what Node uses): one U+FFFD per
 * maximal invalid subpart, then emit UTF-16 code units.
 */
void utf8_to_utf16(const char *data, size_t n, utf16_fn fn, void *ctx)
{
	const unsigned char *s = (const unsigned char *)data;
	unsigned lo = 0x80, hi = 0xbf;
	uint32_t cp = 0;
	int need = 0, seen = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned b = s[i];

		if (!need) {
			if (b < 0x80) {
				fn(ctx, b);
			} else if (b >= 0xc2 && b <= 0xdf) {
				need = 1;
				cp = b & 0x1f;
			} else if (b >= 0xe0 && b <= 0xef) {
				if (b == 0xe0)
					lo = 0xa0;
				if (b == 0xed)
					hi = 0x9f;
				need = 2;
				cp = b & 0x0f;
			} else if (b >= 0xf0 && b <= 0xf4) {
				if (b == 0xf0)
					lo = 0x90;
				if (b == 0xf4)
					hi = 0x8f;
				need = 3;
				cp = b & 0x07;
			} else {
				fn(ctx, 0xfffd);
			}
			continue;
		}
		if (b < lo || b > hi) {
			cp = 0;
			need = seen = 0;
			lo = 0x80;
			hi = 0xbf;
			fn(ctx, 0xfffd);
			i--;	/* reprocess the byte; need > 0: i > 0 */
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		cp = (cp << 6) | (b & 0x3f);
		if (++seen == need) {
			emit_cp(fn, ctx, cp);
			cp = 0;
			need = seen = 0;
		}
	}
	if (need)
		fn(ctx, 0xfffd);
}
