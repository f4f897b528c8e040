/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_json.h - the change as a machine-readable file for CRSs
 *
 * Renders a ChangeSet, the functions it touched and the literals its
 * added lines hold as the JSON document CRSs find at
 * FETCH_DIR/diffs/change.json (docs/change-file.md). Memory in, text
 * out: where it is written is the caller's business.
 */
#ifndef CRS_DIFF_CHANGE_JSON_H
#define CRS_DIFF_CHANGE_JSON_H

#include <stddef.h>

struct diff_changeset;
struct diff_touched;
struct diff_literals;

#define DIFF_CHANGE_JSON_VERSION 1

/*
 * The document for `cs`, `touched` (NULL: no functions) and `lit` (NULL:
 * no literals), NUL-terminated, indented JSON; *len_out (may be NULL)
 * gets its length. Paths that are not UTF-8 are repaired ('?'); literals
 * that are not UTF-8 or hold a NUL byte are left out (they are in the
 * dictionary only).
 * Returns 0, or CRS_ERR when jansson fails. The caller frees *out.
 */
int diff_change_json(char **out, size_t *len_out,
		     const struct diff_changeset *cs,
		     const struct diff_touched *touched,
		     const struct diff_literals *lit);

#endif
