/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_usage.h - the one-line usage errors of every command
 *
 * A bad command line gets one line on the command's error stream that
 * says what was wrong and where the help is, then exit 2; never the
 * whole usage text.
 */
#ifndef CRS_RUNNER_CLI_CLI_USAGE_H
#define CRS_RUNNER_CLI_CLI_USAGE_H

#include <stdio.h>

/*
 * Print "crs-ci: <message> (crs-ci help <cmd>)" to `err`, the message
 * escaped (log_quote). Returns 2 (EXIT_USAGE). Cannot fail.
 */
int cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct option;
struct cli_suggest;

/*
 * The one line for what getopt_long returned as `c` ('?' an unknown
 * option, ':' a missing value; optstring must start with "+:" or ":")
 * while parsing `argv` of command `cmd` with the getopt table `opts`
 * (NULL-terminated; may be NULL). An unknown long option near one of
 * `opts` ends "; did you mean '--NAME'?" (cli_suggest.h); "--flag=value"
 * of a flag says it takes no value. Returns 2. Cannot fail.
 */
int cli_option_error(FILE *err, const char *cmd, int c, char **argv,
		     const struct option *opts);

/*
 * "crs-ci: <what>; did you mean '<dashes><name>'? (crs-ci help <cmd>)"
 * to `err`, without the question when `sg` found no near name and
 * without <cmd> when it is NULL (an unknown command). Returns 2.
 */
int cli_unknown_error(FILE *err, const char *cmd, const char *what,
		      const char *dashes, const struct cli_suggest *sg);

#endif
