/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbol_ref.c - the symbol rule of symbol_match.h, one name at a time
 *
 * See symbol_ref.h: strstr of the whole encoding, as the old code did.
 */
#include "tests/helper/symbol_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "ns::Class::method" as "2ns5Class6method"; NULL if not plain. */
static char *encode(const char *name)
{
	char *out = strdup(""), *t;
	const char *p = name;

	for (;;) {
		const char *e = strstr(p, "::");
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!out || !n || is_digit(*p) || memchr(p, '~', n) ||
		    memchr(p, ' ', n) || memchr(p, '<', n) ||
		    !strncmp(p, "operator", 8)) {
			free(out);
			return NULL;
		}
		if (asprintf(&t, "%s%zu%.*s", out, n, (int)n, p) < 0)
			abort();
		free(out);
		out = t;
		if (!e)
			return out;
		p = e + 2;
	}
}

int symbol_ref_matches(const char *sym, const char *name)
{
	size_t n = strlen(name);
	char *enc;
	const char *p;
	int ok = 0;

	if (!n)
		return 0;
	if (!strstr(name, "::") && !strncmp(sym, name, n) &&
	    (sym[n] == '\0' || sym[n] == '.'))
		return 1;
	if (strncmp(sym, "_Z", 2) != 0 || !(enc = encode(name)))
		return 0;
	for (p = sym + 2; !ok && (p = strstr(p, enc)) != NULL; p++)
		ok = !is_digit(p[-1]);
	free(enc);
	return ok;
}
