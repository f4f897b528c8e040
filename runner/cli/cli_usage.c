/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_usage.c - the one-line usage errors of every command
 *
 * Every command reports a bad command line the same way (one line, the
 * command's help named, exit 2), so the shapes live here. The words come
 * from the user's command line and are escaped like any logged text.
 */
#include "runner/cli/cli_usage.h"
#include "runner/cli/cli_suggest.h"
#include "runner/cli/cmd.h"
#include "common/log.h"

#include <getopt.h>
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

/* The entry of `opts` named word[0..n) ("--" stripped), or NULL. */
static const struct option *option_named(const struct option *opts,
					 const char *word, size_t n)
{
	for (const struct option *o = opts; o && o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, word, n))
			return o;
	return NULL;
}

int cli_option_error(FILE *err, const char *cmd, int c, char **argv,
		     const struct option *opts)
{
	char shortopt[3] = { '-', (char)optopt, 0 };
	const char *word = argv[optind - 1];
	const struct option *o;
	struct cli_suggest sg;
	char what[256];

	/* an unknown short option inside a group: argv names the group */
	if (c == '?' && optopt > 0 && optopt < 128)
		word = shortopt;
	if (c == ':')
		return cli_usage_error(err, cmd, "option '%s' needs a value",
				       word);
	if (strncmp(word, "--", 2) || !word[2])
		return cli_usage_error(err, cmd, "unknown option '%s' for "
				       "'%s'", word, cmd);
	cli_suggest_init(&sg, word + 2);
	o = option_named(opts, sg.word, sg.word_len);
	if (o && o->has_arg == no_argument)	/* "--flag=value" */
		return cli_usage_error(err, cmd, "option '--%s' takes no "
				       "value", o->name);
	for (o = opts; o && o->name; o++)
		cli_suggest_offer(&sg, o->name);
	snprintf(what, sizeof(what), "unknown option '--%.*s' for '%s'",
		 (int)sg.word_len, sg.word, cmd);
	return cli_unknown_error(err, cmd, what, "--", &sg);
}

int cli_unknown_error(FILE *err, const char *cmd, const char *what,
		      const char *dashes, const struct cli_suggest *sg)
{
	char hint[CLI_SUGGEST_MAX + 32] = "";

	if (sg->best)
		snprintf(hint, sizeof(hint), "; did you mean '%s%s'?", dashes,
			 sg->best);
	log_fprintf(err, "crs-ci: ", "%s%s (crs-ci help%s%s)", what, hint,
		    cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}
