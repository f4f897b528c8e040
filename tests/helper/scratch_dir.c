/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scratch_dir.c - a fresh folder for a unit test, on tmpfs when there is one
 *
 * See scratch_dir.h.
 */
#include "tests/helper/scratch_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int scratch_dir(char *buf, size_t size, const char *name)
{
	const char *base = access("/dev/shm", W_OK | X_OK) == 0 ?
		"/dev/shm" : "/tmp";
	int n = snprintf(buf, size, "%s/%s.XXXXXX", base, name);

	if (n < 0 || (size_t)n >= size)
		return -1;
	return mkdtemp(buf) ? 0 : -1;
}
