/* SPDX-License-Identifier: Apache-2.0 */
/*
 * num.h - a whole decimal number from user or file input, strictly
 *
 * strtol(3) alone accepts "12abc", " 12", "" (as 0) and saturates out of
 * range; every option value, config field and file that holds one number
 * is read with this instead. Parsers that read a number at the start of a
 * longer text ("15m", "@@ -3,4") keep strtol and say so.
 */
#ifndef CRS_COMMON_NUM_H
#define CRS_COMMON_NUM_H

#include <stddef.h>

/*
 * `s` is an optional '-' (only when min < 0) and decimal digits, nothing
 * else (no space, '+', or trailing text), within [min, max]: stored in
 * *out and 0. Otherwise CRS_EINPUT, *out untouched and no error message
 * set: the caller names the file, line or option. Cannot fail otherwise.
 */
int num_parse_long(const char *s, long min, long max, long *out);

/*
 * The same for the `len` bytes at `s` (a field inside a longer text, or
 * a file's content without its newline: see num_trim_newline).
 */
int num_parse_long_n(const char *s, size_t len, long min, long max,
		     long *out);

/* `len` less one for a final '\n' of s[0..len): a one-number file's. */
size_t num_trim_newline(const char *s, size_t len);

/* The same for an unsigned 64-bit value in [0, max]. */
int num_parse_u64(const char *s, unsigned long long max,
		  unsigned long long *out);

#endif
