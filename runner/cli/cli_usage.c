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
#include "common/error.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/suggest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int cli_opt_error(FILE *err, const char *cmd)
{
	cli_usage_error(err, cmd, "%s", crs_error_last());
	crs_error_clear();
	return EXIT_USAGE;
}

void cli_help(FILE *out, const char *text, const struct opt_spec *opts,
	      const char *tail)
{
	fputs(text, out);
	fputs("\noptions:\n", out);
	opt_help(out, opts, 0);
	if (tail)
		fputs(tail, out);
}

int cli_unknown_error(FILE *err, const char *cmd, const char *what,
		      const char *dashes, const struct suggest *sg)
{
	char hint[SUGGEST_MAX + 32] = "";

	if (sg->best)
		snprintf(hint, sizeof(hint), "; did you mean '%s%s'?", dashes,
			 sg->best);
	log_fprintf(err, "crs-ci: ", "%s%s (crs-ci help%s%s)", what, hint,
		    cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}
