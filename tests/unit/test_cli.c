/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cli.c - the command table, per-command help and one-line errors
 *
 * In-process: every command in the table answers `help CMD` with its own
 * usage; a phase command's help lists only the options whose entry names
 * it; a bad option or help topic is one line; the table is sorted and
 * every scan option is listed by scan's help; a mistyped option or
 * command is answered with the nearest name of its table ("did you
 * mean"), through one helper for every command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "runner/cli/cmd.h"
#include "common/suggest.h"
#include "runner/cli/phase_cmd.h"
#include "runner/cli/scan_opts_parse.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct io {
	char *out, *err;
	size_t out_len, err_len;
};

/* Run fn(argc, argv) with both streams captured. */
static int run(int (*fn)(int, char **, struct runner_ctx *), int argc,
	       char **argv, struct io *io)
{
	volatile int stop = 0;
	FILE *o = open_memstream(&io->out, &io->out_len);
	FILE *e = open_memstream(&io->err, &io->err_len);
	struct runner_ctx ctx = { .out = o, .err = e, .interrupted = &stop };
	int rc = fn(argc, argv, &ctx);

	fclose(o);
	fclose(e);
	return rc;
}

/* The scan command, a phase row of the table. */
static int scan_cmd(int argc, char **argv, struct runner_ctx *ctx)
{
	return cmd_exec(cmd_lookup("scan"), argc, argv, ctx);
}

/* The report command, another phase row. */
static int cmd_exec_report(int argc, char **argv, struct runner_ctx *ctx)
{
	return cmd_exec(cmd_lookup("report"), argc, argv, ctx);
}

static void io_release(struct io *io)
{
	free(io->out);
	free(io->err);
	io->out = io->err = NULL;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_table_sorted(void **state)
{
	const struct cmd *c;
	size_t nr;

	(void)state;
	c = cmd_table(&nr);
	assert_true(nr >= 16);
	for (size_t i = 1; i < nr; i++)
		assert_true(strcmp(c[i - 1].name, c[i].name) < 0);
	for (size_t i = 0; i < nr; i++)
		assert_ptr_equal(cmd_lookup(c[i].name), &c[i]);
	assert_null(cmd_lookup("nosuch"));
}

/* Each row runs one thing: its own fn, or a phase through phase_cmd.c;
 * the six phase commands are rows, not cmd_* files. */
static void test_phase_commands_are_rows(void **state)
{
	static const char *const phases[] = { "build-target", "check",
		"prepare", "report", "run", "scan" };
	const struct cmd *c;
	size_t nr, n = 0;

	(void)state;
	c = cmd_table(&nr);
	for (size_t i = 0; i < nr; i++) {
		assert_true(!c[i].fn != !c[i].phase);
		if (!c[i].phase)
			continue;
		assert_true(!c[i].phase->fn != !c[i].phase->step);
		assert_non_null(c[i].phase->usage);
		assert_string_equal(c[i].name, phases[n]);
		n++;
	}
	assert_int_equal(n, sizeof(phases) / sizeof(phases[0]));
}

static void test_help_every_command(void **state)
{
	const struct cmd *c;
	size_t nr;

	(void)state;
	c = cmd_table(&nr);
	for (size_t i = 0; i < nr; i++) {
		char *argv[] = { "help", (char *)c[i].name, NULL };
		char want[64];
		struct io io = { 0 };

		snprintf(want, sizeof(want), "usage: crs-ci %s", c[i].name);
		assert_int_equal(run(cmd_help, 2, argv, &io), EXIT_OK);
		if (strncmp(io.out, want, strlen(want)))
			fail_msg("help %s printed: %.80s", c[i].name, io.out);
		assert_int_equal(io.err_len, 0);
		io_release(&io);
	}
}

static void test_help_unknown_is_one_line(void **state)
{
	char *argv[] = { "help", "nosuch", NULL };
	struct io io = { 0 };

	(void)state;
	assert_int_equal(run(cmd_help, 2, argv, &io), EXIT_USAGE);
	assert_int_equal(io.out_len, 0);
	assert_int_equal(lines(io.err), 1);
	assert_non_null(strstr(io.err, "'nosuch' is not a crs-ci command"));
	io_release(&io);
}

static void test_phase_help_lists_own_options(void **state)
{
	char *report[] = { "help", "report", NULL };
	char *scan[] = { "help", "scan", NULL };
	const struct opt_spec *so;
	struct io io = { 0 };

	(void)state;
	assert_int_equal(run(cmd_help, 2, report, &io), EXIT_OK);
	assert_non_null(strstr(io.out, "--fail-on"));
	assert_null(strstr(io.out, "--harness"));
	assert_null(strstr(io.out, "--keep-going"));
	io_release(&io);
	/* scan lists every option of the table */
	assert_int_equal(run(cmd_help, 2, scan, &io), EXIT_OK);
	for (so = scan_opts_table(); so->name; so++) {
		char want[64];

		if (!strcmp(so->name, "help"))	/* "-h, --help" */
			continue;
		assert_true(so->groups & SCAN_CMD_SCAN);
		snprintf(want, sizeof(want), "\n  --%s", so->name);
		assert_non_null(strstr(io.out, want));
	}
	io_release(&io);
}

static void test_unknown_option_is_one_line(void **state)
{
	char *argv[] = { "scan", "--x", NULL };
	char *merge[] = { "merge", "--bogus", NULL };
	struct io io = { 0 };

	(void)state;
	assert_int_equal(run(scan_cmd, 2, argv, &io), EXIT_USAGE);
	assert_string_equal(io.err, "crs-ci: unknown option '--x' for 'scan' "
			    "(crs-ci help scan)\n");
	io_release(&io);
	assert_int_equal(run(cmd_merge, 2, merge, &io), EXIT_USAGE);
	assert_int_equal(lines(io.err), 1);
	assert_non_null(strstr(io.err, "(crs-ci help merge)"));
	io_release(&io);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_edit_distance("timeout", 7, "timeout", 7), 0);
	assert_int_equal(suggest_edit_distance("timout", 6, "timeout", 7), 1);
	assert_int_equal(suggest_edit_distance("tiemout", 7, "timeout", 7), 1);
	assert_int_equal(suggest_edit_distance("sacn", 4, "scan", 4), 1);
	assert_int_equal(suggest_edit_distance("", 0, "pov", 3), 3);
	assert_int_equal(suggest_edit_distance("kitten", 6, "sitting", 7), 3);
}

/* The nearest name of `names` for `word`, or NULL. */
static const char *suggest(const char *word, const char *const *names)
{
	struct suggest sg;

	suggest_init(&sg, word);
	for (; *names; names++)
		suggest_offer(&sg, *names);
	return sg.best;
}

static void test_suggest_nearest_only(void **state)
{
	static const char *const opts[] = { "timeout", "out", "pov",
					    "fail-on", "deadline", NULL };

	(void)state;
	assert_string_equal(suggest("deadlline", opts), "deadline");
	assert_string_equal(suggest("timout=5m", opts), "timeout");
	assert_string_equal(suggest("fial-on", opts), "fail-on");
	assert_string_equal(suggest("pvo", opts), "pov");
	assert_null(suggest("x", opts));	/* too short to guess */
	assert_null(suggest("ou", opts));
	assert_null(suggest("harness", opts));	/* nothing near */
	assert_null(suggest("timeout", opts));	/* the word itself */
}

/* A misspelled option of each kind of command names the nearest. */
static void test_unknown_option_did_you_mean(void **state)
{
	static char *scan[] = { "scan", "--timout", "5m", NULL };
	static char *scan_eq[] = { "scan", "--fial-on=any", NULL };
	static char *flag[] = { "scan", "--keep-going=yes", NULL };
	static char *report[] = { "report", "--sarif-categroy", "x", NULL };
	static char *merge[] = { "merge", "--fial-on", "any", NULL };
	static char *init[] = { "init", "--projetc", "p", NULL };
	static const struct {
		int (*fn)(int, char **, struct runner_ctx *);
		int argc;
		char **argv;
		const char *want;
	} cases[] = {
		{ scan_cmd, 3, scan, "crs-ci: unknown option '--timout' for "
		  "'scan'; did you mean '--timeout'? (crs-ci help scan)\n" },
		{ scan_cmd, 2, scan_eq, "'--fial-on' for 'scan'; did you mean "
		  "'--fail-on'?" },
		{ scan_cmd, 2, flag, "option '--keep-going' takes no value" },
		{ cmd_exec_report, 3, report, "did you mean "
		  "'--sarif-category'? (crs-ci help report)" },
		{ cmd_merge, 3, merge, "did you mean '--fail-on'? (crs-ci help "
		  "merge)" },
		{ cmd_init, 3, init, "did you mean '--project'? (crs-ci help "
		  "init)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct io io = { 0 };

		assert_int_equal(run(cases[i].fn, cases[i].argc,
				     cases[i].argv, &io), EXIT_USAGE);
		assert_non_null(strstr(io.err, cases[i].want));
		assert_int_equal(lines(io.err), 1);
		io_release(&io);
	}
}

static void test_unknown_command_did_you_mean(void **state)
{
	char *argv[] = { "help", "sacn", NULL };
	char *far[] = { "help", "zzzzzz", NULL };
	struct io io = { 0 };

	(void)state;
	assert_int_equal(run(cmd_help, 2, argv, &io), EXIT_USAGE);
	assert_string_equal(io.err, "crs-ci: 'sacn' is not a crs-ci command; "
			    "did you mean 'scan'? (crs-ci help)\n");
	io_release(&io);
	assert_int_equal(run(cmd_help, 2, far, &io), EXIT_USAGE);
	assert_null(strstr(io.err, "did you mean"));
	io_release(&io);
}

static void test_completion_has_every_command(void **state)
{
	char *argv[] = { "completion", "bash", NULL };
	const struct cmd *c;
	struct io io = { 0 };
	size_t nr;

	(void)state;
	assert_int_equal(run(cmd_completion, 2, argv, &io), EXIT_OK);
	assert_non_null(strstr(io.out, "complete -o filenames -F _crs_ci "
			       "crs-ci\n"));
	c = cmd_table(&nr);
	for (size_t i = 0; i < nr; i++) {
		char want[64];

		snprintf(want, sizeof(want), "\t%s)\n", c[i].name);
		assert_non_null(strstr(io.out, want));
	}
	io_release(&io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted),
		cmocka_unit_test(test_phase_commands_are_rows),
		cmocka_unit_test(test_help_every_command),
		cmocka_unit_test(test_help_unknown_is_one_line),
		cmocka_unit_test(test_phase_help_lists_own_options),
		cmocka_unit_test(test_unknown_option_is_one_line),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_suggest_nearest_only),
		cmocka_unit_test(test_unknown_option_did_you_mean),
		cmocka_unit_test(test_unknown_command_did_you_mean),
		cmocka_unit_test(test_completion_has_every_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
