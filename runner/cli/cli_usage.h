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

struct opt_spec;
struct suggest;

/*
 * The line for the bad command line common/opt.h's parser refused (its
 * crs_error_last(), then cleared) to `err`. Returns 2.
 */
int cli_opt_error(FILE *err, const char *cmd);

/*
 * A command's help: `text` (synopsis and description), "options:" and
 * the options of `opts` (opt_help), then `tail` (or NULL) to `out`.
 */
void cli_help(FILE *out, const char *text, const struct opt_spec *opts,
	      const char *tail);

/*
 * "crs-ci: <what>; did you mean '<dashes><name>'? (crs-ci help <cmd>)"
 * to `err`, without the question when `sg` found no near name and
 * without <cmd> when it is NULL (an unknown command). Returns 2.
 */
int cli_unknown_error(FILE *err, const char *cmd, const char *what,
		      const char *dashes, const struct suggest *sg);

#endif
