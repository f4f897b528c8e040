/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_help.c - crs-ci help [command]
 *
 * Without a command: the command table. With one: that command's own
 * usage, which every command prints for "--help" (so the text lives
 * beside the command's options). Any name in the table works; a name
 * that is not there is one line and exit 2.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "common/log.h"

#include <string.h>

static const char help_usage[] =
"usage: crs-ci help [COMMAND]\n"
"\nWithout COMMAND, list the commands; with it, print COMMAND's usage and\n"
"options (the same as 'crs-ci COMMAND --help').\n";

int cmd_help(int argc, char **argv, struct runner_ctx *ctx)
{
	const struct cmd *c = NULL;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		cmd_list(ctx->out);
		return EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(ctx->err, "help", "unexpected argument "
				       "'%s'", argv[2]);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		fputs(help_usage, ctx->out);
		return EXIT_OK;
	}
	if (!(c = cmd_lookup(argv[1])))
		return cmd_unknown(ctx->err, argv[1]);
	args[0] = (char *)c->name;
	return cmd_exec(c, 2, args, ctx);
}
