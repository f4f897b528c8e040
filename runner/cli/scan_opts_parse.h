/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts_parse.h - the command line of scan and its phase commands
 *
 * The option table (common/opt.h) that prints help, completes and parses
 * into the option set of runner/scan/scan_opts.h.
 */
#ifndef CRS_RUNNER_CLI_SCAN_OPTS_PARSE_H
#define CRS_RUNNER_CLI_SCAN_OPTS_PARSE_H

#include <stddef.h>
#include <stdio.h>

#include "runner/scan/scan_opts.h"

/* The commands that take scan options (struct opt_spec.groups). */
enum scan_cmd {
	SCAN_CMD_SCAN = 1 << 0,
	SCAN_CMD_CHECK = 1 << 1,
	SCAN_CMD_PREPARE = 1 << 2,
	SCAN_CMD_BUILD_TARGET = 1 << 3,
	SCAN_CMD_RUN = 1 << 4,
	SCAN_CMD_REPORT = 1 << 5,
	SCAN_CMD_HOOK = 1 << 6,
	SCAN_CMD_REPRODUCE = 1 << 7,
};

struct opt_spec;

/* The option table (borrowed, static; common/opt.h, ended by an entry
 * without a name; `groups` holds enum scan_cmd bits). Cannot fail. */
const struct opt_spec *scan_opts_table(void);

/* The SCAN_CMD_* bit of command `cmd`, 0 when it takes no scan options. */
unsigned scan_opts_cmd_bit(const char *cmd);

/* `synopsis`, then the options that apply to `cmd`, to `f`. */
void scan_opts_usage(FILE *f, const char *cmd, const char *synopsis);

/*
 * Parse argv (argv[0] is the command name). On -h prints `synopsis` and
 * the command's options (scan_opts_usage) to `out` and returns 1; on a
 * bad option prints one line to `err` (runner/cli/cli_usage.h) and returns
 * CRS_EINPUT; 0 on success. `o->harnesses`, `o->povs`, `o->sarifs` and
 * `o->allow_env` are allocated
 * (scan_opts_release).
 */
int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *synopsis, FILE *out, FILE *err);
void scan_opts_release(struct scan_opts *o);



#ifdef UNIT_TESTS
/*
 * Is `name` a --sarif-category: 1 to 100 characters of letters, digits
 * and . _ - / : = , not starting with '/'. Returns 0 or CRS_EINPUT.
 */
int scan_opts_check_category(const char *name);
#endif

#endif
