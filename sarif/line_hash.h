/* SPDX-License-Identifier: Apache-2.0 */
/*
 * line_hash.h - GitHub's primaryLocationLineHash of a source line
 */
#ifndef CRS_SARIF_LINE_HASH_H
#define CRS_SARIF_LINE_HASH_H

#include <stddef.h>

/*
 * GitHub's primaryLocationLineHash of line `line` (1-based) of a file's
 * `len` bytes (codeql-action src/fingerprints.ts): a rolling hash, base 37
 * with wrapping 64-bit arithmetic, over the next 100 UTF-16 code units
 * that are not space or tab, starting at the line; CR and CRLF count as
 * LF. Writes "<hex>:<occurrence>" into out. Returns 0, or CRS_ENOTFOUND
 * when the file has fewer lines.
 */
int sarif_line_hash(char out[40], const char *data, size_t len, int line);

#endif
