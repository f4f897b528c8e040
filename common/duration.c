/* SPDX-License-Identifier: Apache-2.0 */
/*
 * duration.c - "900", "90s", "15m", "1h" as seconds, for every option
 * and configuration field that takes a duration
 */
#include "common/duration.h"
#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int parse_duration(const char *s, long *out)
{
	char *end = NULL;
	long v, mult = 1;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || v < 0)
		goto bad;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else
		goto bad;
	if (v > 7 * 24 * 3600 / mult)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	return crs_error_set(CRS_EINPUT, "'%s' is not a duration "
			     "(examples: 900, 90s, 15m, 1h)", s);
}
