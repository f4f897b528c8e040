/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - crs-ci entry point and subcommand table
 *
 * Thin by design (like curl's tool_main.c): set up, dispatch from the
 * table in cmd_table.c, check stdout, clean up.
 *
 * Details: docs/internals.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/interrupt.h"
#include "runner/cli/lib_init.h"
#include "runner/cli/scan_opts_parse.h"
#include "common/error.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/suggest.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_fds(void)
{
	struct stat st;

	for (int fd = 0; fd <= 2; fd++)
		if (fstat(fd, &st) != 0 &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
			_exit(EXIT_INFRA);
}

static int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "crs-ci: error: write failure on standard output\n");
		return EXIT_INFRA;
	}
	return rc;
}

/* A global option: 'v' verbose, 'q' quiet, 'h' help; 0 for other words. */
static int global_option(const char *w)
{
	if (!strcmp(w, "-v") || !strcmp(w, "--verbose"))
		return 'v';
	if (!strcmp(w, "-q") || !strcmp(w, "--quiet"))
		return 'q';
	if (!strcmp(w, "-h") || !strcmp(w, "--help"))
		return 'h';
	return 0;
}

/* The one line for an unknown option before the command; returns 2. */
static int unknown_global(const char *w)
{
	static const char *const names[] = { "verbose", "quiet", "help",
					     "version" };
	struct suggest sg;
	char what[256];

	suggest_init(&sg, w + strspn(w, "-"));
	for (size_t i = 0; w[1] == '-' && i < sizeof(names) / sizeof(*names);
	     i++)
		suggest_offer(&sg, names[i]);
	snprintf(what, sizeof(what), "unknown option '%s'", w);
	return cli_unknown_error(stderr, NULL, what, "--", &sg);
}

/* Does word `w` of command `c` take the next word as its value
 * ("--out DIR")? Then that word is never a global option. */
static int takes_value(const struct cmd *c, const char *w)
{
	const struct opt_spec *o = NULL;

	if (strncmp(w, "--", 2) || strchr(w, '='))
		return 0;
	if (scan_opts_cmd_bit(c->name))
		o = opt_spec_named(scan_opts_table(), w + 2);
	if (!o)
		o = opt_spec_named(c->opts, w + 2);
	return o && o->kind != OPT_FLAG;
}

/*
 * The command line without the global options, which may stand anywhere
 * before "--" (as git's and curl's do); sets the log level and *help.
 * Returns the command's entry and argv from the command on (in `args`);
 * NULL with *rc untouched when there is no command, NULL with *rc 2 after
 * printing one line for an unknown command or option.
 */
static const struct cmd *parse_line(int argc, char **argv, char **args,
				    int *nargs, int *help, int *rc)
{
	const struct cmd *c = NULL;
	int n = 0, value = 0, rest = 0;

	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		int g = rest || value ? 0 : global_option(w);

		if (g == 'v')
			log_set_level(LOG_DEBUG);
		else if (g == 'q')
			log_set_level(LOG_WARN);
		else if (g == 'h')
			*help = 1;
		if (g)
			continue;
		if (!c) {
			if (!strcmp(w, "--version"))
				w = "version";
			if (w[0] == '-') {
				*rc = unknown_global(w);
				return NULL;
			}
			if (!(c = cmd_lookup(w))) {
				*rc = cmd_unknown(stderr, w);
				return NULL;
			}
		} else if (!strcmp(w, "--")) {
			rest = 1;
		} else {
			value = !value && takes_value(c, w);
		}
		args[n++] = (char *)w;
	}
	*nargs = n;
	return c;
}

int main(int argc, char **argv)
{
	struct runner_ctx ctx = { .out = stdout, .err = stderr };
	const struct cmd *c = NULL;
	char **args = NULL;
	char *help_args[] = { "help", NULL, NULL };
	int nargs = 0, help = 0, rc = -1;

	check_fds();
	signal(SIGPIPE, SIG_IGN);
	args = xcalloc((size_t)argc + 1, sizeof(*args));
	c = parse_line(argc, argv, args, &nargs, &help, &rc);
	if (!c) {
		if (rc < 0 && help) {		/* crs-ci [-v|-q] --help */
			cmd_list(stdout);
			rc = finish_stdout(EXIT_OK);
		} else if (rc < 0) {		/* no command at all */
			cmd_list(stderr);
			rc = EXIT_USAGE;
		}
		free(args);
		return rc;
	}
	if (help) {
		/* "crs-ci CMD ... --help" is "crs-ci help CMD" */
		help_args[1] = (char *)c->name;
		c = cmd_lookup("help");
		args[0] = help_args[0];
		args[1] = help_args[1];
		nargs = 2;
	}
	if (!(c->flags & CMD_LAZY_LIBS) && lib_init_all() != 0) {
		log_fprintf(stderr, "crs-ci: error: ", "%s", crs_error_last());
		free(args);
		return EXIT_INFRA;
	}
	ctx.interrupted = interrupt_install();
	rc = cmd_exec(c, nargs, args, &ctx);
	lib_init_cleanup();
	free(args);
	return finish_stdout(rc);
}
