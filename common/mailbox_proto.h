/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mailbox_proto.h - the sidecar mailbox's request kinds, on both sides
 *
 * libcrs/mailbox.c writes "kind=<name>" into a request's request.txt and
 * runner/sidecar.c reads it back (docs/decisions.md, decision 4): the names live
 * here once so the two sides cannot drift. The order is that of
 * enum crs_sidecar_kind (libcrs.h) and enum sidecar_kind (sidecar.h).
 * What the CRS wrote is untrusted: mailbox_kind_parse only matches.
 */
#ifndef CRS_COMMON_MAILBOX_PROTO_H
#define CRS_COMMON_MAILBOX_PROTO_H

enum mailbox_kind {
	MAILBOX_BUILD,		/* apply-patch-build */
	MAILBOX_POV,		/* run-pov */
	MAILBOX_TEST,		/* apply-patch-test */
	MAILBOX_PROJECT,	/* build-project */
	MAILBOX_KINDS		/* how many */
};

/* The wire name of `kind`; "?" when out of range. Cannot fail. */
const char *mailbox_kind_name(int kind);

/*
 * The kind whose wire name is `s` (NUL-terminated), or -1 when none is.
 * Cannot fail.
 */
int mailbox_kind_parse(const char *s);

#endif
