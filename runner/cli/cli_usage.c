/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_usage.c - the one-line usage errors of every command
 *
 * Every command reports a bad command line the same way (one line, the
 * command's help named, exit 2), so the shapes live here. The words come
 * from the user's command line and are escaped like any logged text.
 */
#include "runner/cli/cli_usage.h"
#include "runner/cli/cmd.h"
#include "common/log.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

int cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fprintf(err, "crs-ci: ", "%s (crs-ci help %s)", msg, cmd);
	return EXIT_USAGE;
}

int cli_option_error(FILE *err, const char *cmd, int c, char **argv)
{
	char shortopt[3] = { '-', (char)optopt, 0 };
	const char *word = argv[optind - 1];

	/* an unknown short option inside a group: argv names the group */
	if (c == '?' && optopt > 0 && optopt < 128)
		word = shortopt;
	if (c == ':')
		return cli_usage_error(err, cmd, "option '%s' needs a value",
				       word);
	return cli_usage_error(err, cmd, "unknown option '%s' for '%s'",
			       word, cmd);
}
