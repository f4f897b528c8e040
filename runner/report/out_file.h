/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out_file.h - read the head of a file of the scan's output folder
 *
 * The reports read back what the scan wrote there (sanitizer reports,
 * PoVs, JSON records) by a relative path a finding names: only a safe
 * relative path, only a regular file, never through a link.
 */
#ifndef CRS_RUNNER_REPORT_OUT_FILE_H
#define CRS_RUNNER_REPORT_OUT_FILE_H

#include <stddef.h>

struct buf;

/*
 * Append at most `max` bytes of <dir>/<rel> (a regular file, opened
 * O_NOFOLLOW) to `b`, NUL-terminated; *truncated is set when the file is
 * longer, *size (NULL: not wanted) to its size. 0, or an error code with
 * no message kept (the caller leaves the part out).
 */
int out_file_head(struct buf *b, const char *dir, const char *rel, size_t max,
		  int *truncated, size_t *size);

#endif
