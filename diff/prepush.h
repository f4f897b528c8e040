/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prepush.h - the refs a `git push` is about to update, from its pre-push
 * hook's standard input
 *
 * git feeds the hook one line per ref: "<local ref> <local oid> <remote
 * ref> <remote oid>". An all-zero remote oid means the remote does not
 * have the ref yet (a new branch); an all-zero local oid (local ref
 * "(delete)") means the push deletes it. Parsing is memory-only.
 */
#ifndef CRS_DIFF_PREPUSH_H
#define CRS_DIFF_PREPUSH_H

#include <stddef.h>

struct diff_changeset;

#define DIFF_OID_HEX_MAX 64	/* SHA-256 repositories; SHA-1 is 40 */

struct diff_prepush_ref {
	char *local_ref;		/* "refs/heads/topic" or "(delete)" */
	char local_oid[DIFF_OID_HEX_MAX + 1];	/* lowercase hex */
	char *remote_ref;		/* "refs/heads/topic" */
	char remote_oid[DIFF_OID_HEX_MAX + 1];
	int is_new;		/* remote oid all zero: a new remote ref */
	int is_delete;		/* local oid all zero: the push deletes it */
};

struct diff_prepush {
	struct diff_prepush_ref *v;
	size_t nr, alloc;
};

/*
 * Parse the hook's input (`len` bytes; blank lines are skipped; no lines
 * is a push of nothing). CRS_EINPUT with "pre-push input:LINE: what is
 * wrong" when a line does not have four fields, an oid is not 40 or 64
 * hex digits, or a line's two oids differ in length. The caller owns
 * *out (set on success only).
 */
int diff_prepush_parse(const char *buf, size_t len, struct diff_prepush **out);
void diff_prepush_free(struct diff_prepush *p);

#endif
