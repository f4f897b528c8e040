/* SPDX-License-Identifier: Apache-2.0 */
/*
 * num.c - a whole decimal number from user or file input, strictly
 *
 * The text is checked to be digits before strtol/strtoull see it, so
 * their leniencies (leading space, '+', "0x" with base 0, trailing text)
 * never apply; ERANGE and the caller's range are the only other refusals.
 */
#include "common/num.h"
#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Is `s` one or more decimal digits and nothing else? */
static int all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int num_parse_long(const char *s, long min, long max, long *out)
{
	long v;

	if (!s || !all_digits(s[0] == '-' && min < 0 ? s + 1 : s))
		return CRS_EINPUT;
	errno = 0;
	v = strtol(s, NULL, 10);
	if (errno || v < min || v > max)
		return CRS_EINPUT;
	*out = v;
	return 0;
}

int num_parse_long_n(const char *s, size_t len, long min, long max,
		     long *out)
{
	char text[32];	/* more than any long's digits */

	if (!s || len >= sizeof(text) || memchr(s, '\0', len))
		return CRS_EINPUT;
	memcpy(text, s, len);
	text[len] = '\0';
	return num_parse_long(text, min, max, out);
}

size_t num_trim_newline(const char *s, size_t len)
{
	return len && s[len - 1] == '\n' ? len - 1 : len;
}

int num_parse_u64(const char *s, unsigned long long max,
		  unsigned long long *out)
{
	unsigned long long v;

	if (!s || !all_digits(s))
		return CRS_EINPUT;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno || v > max)
		return CRS_EINPUT;
	*out = v;
	return 0;
}
