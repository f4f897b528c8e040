/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mailbox_proto.c - the sidecar mailbox's request kind names
 *
 * The one table of wire names shared by libCRS (the writer) and the
 * runner's sidecar (the reader). See mailbox_proto.h.
 */
#include "common/mailbox_proto.h"

#include <string.h>

static const char *const kind_names[MAILBOX_KINDS] = {
	[MAILBOX_BUILD] = "apply-patch-build",
	[MAILBOX_POV] = "run-pov",
	[MAILBOX_TEST] = "apply-patch-test",
	[MAILBOX_PROJECT] = "build-project",
};

const char *mailbox_kind_name(int kind)
{
	if (kind < 0 || kind >= MAILBOX_KINDS)
		return "?";
	return kind_names[kind];
}

int mailbox_kind_parse(const char *s)
{
	for (int k = 0; k < MAILBOX_KINDS; k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return -1;
}
