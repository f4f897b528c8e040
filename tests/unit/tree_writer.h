/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree_writer.h - write a file, and the folders above it, in a temporary
 * test tree (tests only)
 *
 * Included by one test file per binary; fails the test on any error.
 */
#ifndef CRS_TESTS_TREE_WRITER_H
#define CRS_TESTS_TREE_WRITER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

/* dir/rel := text, creating rel's folders. */
static void write_at(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(path), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

#endif
