/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log.c - the logger escapes every line it writes
 *
 * Hostile text (file names with newlines, ANSI escapes, "::" and "##["
 * workflow commands, GitLab section markers) is passed to the logger, to
 * log_fprintf() and to the terminal verdict; the captured output must
 * hold no control byte and nothing a CI runner would run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sarif/change_cov.h"
#include "common/buf.h"
#include "common/log.h"
#include "runner/report/terminal.h"
#include "finding_builder.h"
#include "ci_commands.h"

/* A file name a pull request can create, and what it tries to do. */
#define HOSTILE "a\n::error file=x::pwned\r\x1b[2J\x7f\x01\xc2\x9b" "31m"
/* Runner commands in a function name (GitHub runs "##[" anywhere). */
#define HOSTILE_CMD HOSTILE_CI_STOP " " HOSTILE_CI_ERROR " " HOSTILE_CI_SECTION

static struct buf captured = BUF_INIT;

static void capture(enum log_level level, const char *file, const char *func,
		    int line, const char *msg, void *ctx)
{
	(void)level; (void)file; (void)func; (void)line; (void)ctx;
	buf_adds(&captured, msg);
	buf_addch(&captured, '\n');
}

/* Every line of `s` is free of control bytes and "::" at its start. */
static void assert_clean_lines(const char *s, size_t want_lines)
{
	size_t lines = 0;
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; p[i]; i++) {
		if (p[i] == '\n') {
			lines++;
			continue;
		}
		if (p[i] < 0x20 || p[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zu in \"%s\"", p[i],
				 i, s);
		if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu in \"%s\"", i, s);
	}
	if (ci_command_lines(s))
		fail_msg("a line starts with \"::\" in \"%s\"", s);
	if (ci_command_anywhere(s))
		fail_msg("a runner command (\"##[\", a GitLab section) in "
			 "\"%s\"", s);
	if (want_lines)
		assert_int_equal(lines, want_lines);
}

static void test_handler_gets_escaped(void **state)
{
	(void)state;
	buf_reset(&captured);
	log_set_handler(capture, NULL);
	log_info("reading %s", HOSTILE);
	log_warn("%s", "::warning::from a harness");
	log_error("%s", "ok: é stays UTF-8\ttab");
	log_warn("exchange: crs-x: %s: a link", HOSTILE_CMD);
	log_set_handler(NULL, NULL);
	assert_clean_lines(captured.ptr, 4);
	assert_string_equal(captured.ptr,
			    "reading a\\x0a::error file=x::pwned\\x0d\\x1b[2J"
			    "\\x7f\\x01\\xc2\\x9b31m\n"
			    "\\x3a:warning::from a harness\n"
			    "ok: é stays UTF-8\\x09tab\n"
			    "exchange: crs-x: ##\\x5bstop-commands]tok "
			    "::error::x \\x1b[0Ksection_start:1:x\\x0d"
			    "\\x1b[0K: a link\n");
	buf_release(&captured);
}

static const char *quote(char *out, size_t n, const char *s)
{
	return log_quote(out, n, s, strlen(s));
}

/* What each runner command becomes; C++ names and '#' stay readable. */
static void test_runner_commands(void **state)
{
	static const char *const cases[][2] = {
		{ HOSTILE_CI_STOP, "##\\x5bstop-commands]tok" },
		{ "x ##[error]y #[z] # [w]", "x ##\\x5berror]y #\\x5bz] # [w]" },
		{ HOSTILE_CI_ERROR, "\\x3a:error::x" },
		{ ":", "\\x3a" },
		{ "  ::warning::x", "  \\x3a:warning::x" },
		{ "\xc2\xa0\xe3\x80\x80::x", "\xc2\xa0\xe3\x80\x80\\x3a:x" },
		{ "a ::x ns::f std::vector<int>::at",
		  "a ::x ns::f std::vector<int>::at" },
		{ HOSTILE_CI_SECTION,
		  "\\x1b[0Ksection_start:1:x\\x0d\\x1b[0K" },
		{ "C#", "C\\x23" },
		{ "#0 0x4f5a2b in f /src/a.c:3", "#0 0x4f5a2b in f /src/a.c:3" },
	};
	char a[256], b[256], c[256], line[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(quote(a, sizeof(a), cases[i][0]),
				    cases[i][1]);
		/* quoting twice changes nothing more */
		assert_string_equal(quote(b, sizeof(b), a), a);
	}
	/* quoted texts side by side make no command either */
	snprintf(line, sizeof(line), "%s%s%s", quote(a, sizeof(a), "x#"),
		 quote(b, sizeof(b), "#"), quote(c, sizeof(c), "[stop]"));
	assert_null(strstr(line, "##["));
	snprintf(line, sizeof(line), "%s%s", quote(a, sizeof(a), " :"),
		 quote(b, sizeof(b), ":error::x"));
	assert_int_equal(ci_command_lines(line), 0);
	/* a text cut short ends with no '#' */
	assert_string_equal(log_quote(a, 10, "abc##[x]", 8), "abc");
}

/* The default sink, stderr: one line per message, prefix first. */
static void test_stderr_sink(void **state)
{
	char path[] = "/tmp/test_log.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	char text[4096];
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	log_info("%s", "::error::pwned");
	log_warn("file %s", HOSTILE);
	log_info("%s", HOSTILE_CI_STOP);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	text[n] = '\0';
	assert_clean_lines(text, 3);
	assert_string_equal(text, "crs-ci: \\x3a:error::pwned\n"
			    "crs-ci: warning: file a\\x0a::error file=x::pwned"
			    "\\x0d\\x1b[2J\\x7f\\x01\\xc2\\x9b31m\n"
			    "crs-ci: ##\\x5bstop-commands]tok\n");
}

/* Usage errors are printed outside the logger, escaped the same way. */
static void test_log_fprintf(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	log_fprintf(f, "crs-ci: ", "'%s' is not a crs-ci command", HOSTILE);
	log_fprintf(f, "", "%s", HOSTILE_CI_ERROR " " HOSTILE_CMD);
	fclose(f);
	assert_clean_lines(text, 2);
	assert_non_null(strstr(text, "crs-ci: 'a\\x0a::error file=x::pwned"));
	free(text);
}

/* The verdict names files, functions, CRSs: none breaks a line. */
static void test_terminal_report(void **state)
{
	struct finding_set fs;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	finding_set_init(&fs);
	fs.summary.project = strdup(HOSTILE);
	finding_add(&fs, "id1", "heap-buffer-overflow\n::error::x", 1,
		    "src/" HOSTILE ".c", 3, "parse\n::error::y", "fuzz\nx",
		    5, 5, "new")->found_by = strdup("crs\n::warning::z");
	finding_add(&fs, "id2", HOSTILE_CI_ERROR, 1, HOSTILE_CMD ".c", 4,
		    HOSTILE_CMD, HOSTILE_CI_STOP, 5, 5, "new")->found_by =
		strdup(HOSTILE_CI_SECTION);
	terminal_report(f, &fs, "out");
	fclose(f);
	assert_null(strstr(text, "fuzzing executed"));	/* full mode */
	assert_clean_lines(text, 0);
	assert_non_null(strstr(text, "\\x3a:error::x in ##\\x5bstop-commands]"
			       "tok ::error::x"));
	free(text);
	/* the coverage of the change names the change's (hostile) paths */
	fs.change_coverage = change_cov_new();
	change_cov_add(fs.change_coverage, "src/" HOSTILE ".c", 7,
		       CHANGE_COV_MISSED);
	change_cov_add(fs.change_coverage, "src/ok.c", 1, CHANGE_COV_HIT);
	change_cov_finish(fs.change_coverage);
	f = open_memstream(&text, &len);
	terminal_report(f, &fs, "out");
	fclose(f);
	finding_set_release(&fs);
	assert_clean_lines(text, 0);
	assert_null(strstr(text, "\x1b"));
	assert_non_null(strstr(text, "\n  fuzzing executed 1 of 2 changed "
			       "lines; not reached: src/a"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handler_gets_escaped),
		cmocka_unit_test(test_runner_commands),
		cmocka_unit_test(test_stderr_sink),
		cmocka_unit_test(test_log_fprintf),
		cmocka_unit_test(test_terminal_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
