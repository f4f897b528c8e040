/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_help.c - crs-ci help [command]
 */
#include "runner/cmd.h"

#include <string.h>

int cmd_help(int argc, char **argv, struct runner_ctx *ctx)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **, struct runner_ctx *);
	} with_usage[] = {
		{ "build-target", cmd_build_target }, { "check", cmd_check },
		{ "crs", cmd_crs },
		{ "gateway", cmd_gateway }, { "init", cmd_init },
		{ "merge", cmd_merge },
		{ "plan", cmd_plan }, { "prepare", cmd_prepare },
		{ "report", cmd_report },
		{ "run", cmd_run }, { "scan", cmd_scan },
	};

	if (argc > 1) {
		char *args[] = { argv[1], "--help", NULL };

		for (size_t i = 0; i < sizeof(with_usage) / sizeof(with_usage[0]); i++)
			if (!strcmp(argv[1], with_usage[i].name))
				return with_usage[i].fn(2, args, ctx);
	}
	cmd_list(ctx->out);
	return EXIT_OK;
}
