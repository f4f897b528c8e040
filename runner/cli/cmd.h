/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd.h - the subcommands and what the dispatcher hands them
 *
 * Each cmd_* lives in its own runner/cli/cmd_<name>.c and returns an exit code
 * (0 policy ok, 1 findings, 2 usage/config, 3 infrastructure, 4
 * incomplete). Its streams and interrupt flag come through runner_ctx;
 * the environment does not: the config, engine, gateway and reporters
 * read their variables with getenv(3) where they use them.
 */
#ifndef CRS_RUNNER_CLI_CMD_H
#define CRS_RUNNER_CLI_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "runner/scan/ctx.h"
#include "common/opt.h"

struct phase_cmd;

int cmd_completion(int argc, char **argv, struct runner_ctx *ctx);
int cmd_crs(int argc, char **argv, struct runner_ctx *ctx);
int cmd_decrypt(int argc, char **argv, struct runner_ctx *ctx);
int cmd_gateway(int argc, char **argv, struct runner_ctx *ctx);
int cmd_help(int argc, char **argv, struct runner_ctx *ctx);
int cmd_hook(int argc, char **argv, struct runner_ctx *ctx);
int cmd_init(int argc, char **argv, struct runner_ctx *ctx);
int cmd_label_check(int argc, char **argv, struct runner_ctx *ctx);
int cmd_merge(int argc, char **argv, struct runner_ctx *ctx);
int cmd_plan(int argc, char **argv, struct runner_ctx *ctx);
int cmd_pre_push(int argc, char **argv, struct runner_ctx *ctx);
int cmd_publish(int argc, char **argv, struct runner_ctx *ctx);
int cmd_reproduce(int argc, char **argv, struct runner_ctx *ctx);
int cmd_version(int argc, char **argv, struct runner_ctx *ctx);

/*
 * One entry of the command table (runner/cli/cmd_table.c). The dispatcher,
 * `crs-ci help`, `help CMD` and the bash completion read only this.
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct runner_ctx *ctx);
	const char *summary;
	/* its own options (common/opt.h table) or NULL; an option with a
	 * value completes as a file name */
	const struct opt_spec *opts;
	/* words allowed as its first argument ("install uninstall"), or
	 * NULL; the scan options it takes come from runner/cli/scan_opts_parse.c */
	const char *subcmds;
	unsigned flags;		/* CMD_* */
	/* a phase command (fn is NULL): phase_cmd.c runs this */
	const struct phase_cmd *phase;
};

/* main.c does not initialise libcurl, OpenSSL and libgit2 for it: it
 * does not need them, or calls lib_init.h when it does */
#define CMD_LAZY_LIBS (1u << 0)

/* The sorted table (borrowed, static) and its size. Cannot fail. */
const struct cmd *cmd_table(size_t *nr);

/* Run the command `c` (its fn, or its phase); returns the exit code. */
int cmd_exec(const struct cmd *c, int argc, char **argv,
	     struct runner_ctx *ctx);

/* The entry named `name`, NULL when there is none. */
const struct cmd *cmd_lookup(const char *name);

/*
 * The one line for a word that names no command, with the nearest name
 * when one is near ("did you mean"), to `err`. Returns 2 (EXIT_USAGE).
 */
int cmd_unknown(FILE *err, const char *word);

/* Print the command table (crs-ci help). */
void cmd_list(FILE *f);

/* The long options of the commands that parse their own (for the table). */
extern const struct opt_spec cmd_crs_opts[], cmd_gateway_opts[],
	cmd_decrypt_opts[], cmd_hook_opts[], cmd_init_opts[], cmd_merge_opts[],
	cmd_label_check_opts[], cmd_plan_opts[], cmd_publish_opts[];

#endif
