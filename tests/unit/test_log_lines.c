/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_lines.c - a failed build's last output lines stay lines
 *
 * log_lines_tail() and log_msg_lines(): colour codes stripped, progress
 * redraws folded, each line escaped on its own, the count and size
 * capped, and a harness printing runner commands ("::error", "##[", a
 * GitLab section) in its build output still injects none.
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

#include "common/buf.h"
#include "common/log.h"
#include "common/log_lines.h"
#include "ci_commands.h"
#include "log_capture.h"

static char *tail(const char *s, size_t lines, size_t cap)
{
	return log_lines_tail(s, strlen(s), lines, cap);
}

static void test_strip_ansi(void **state)
{
	char s[] = "\x1b[91mred\x1b[0m \x1b]0;title\x07ok \x1b(Bx \xc2\x9b" "1mC1"
		   " \x1b[0Ksection";
	size_t n;

	(void)state;
	n = log_strip_ansi(s, strlen(s));
	s[n] = '\0';
	assert_string_equal(s, "red ok x C1 section");
}

static void test_tail_lines(void **state)
{
	char *t;

	(void)state;
	t = tail("one\ntwo\n\x1b[91mthree\x1b[0m\r\n\n", 20, 1000);
	assert_string_equal(t, "one\ntwo\nthree");
	free(t);
	/* the last N lines; a progress bar shows its last state */
	t = tail("a\nb\n10%\r50%\r100%\nc\n", 2, 1000);
	assert_string_equal(t, "100%\nc");
	free(t);
	/* control bytes escaped per line, tabs too */
	t = tail("x\ty\x01\nz\x7f", 5, 1000);
	assert_string_equal(t, "x\\x09y\\x01\nz\\x7f");
	free(t);
	t = tail("", 5, 1000);
	assert_string_equal(t, "");
	free(t);
	/* the cap drops the oldest lines first */
	t = tail("aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\n", 10, 25);
	assert_string_equal(t, "bbbbbbbbbb\ncccccccccc");
	free(t);
	/* and cuts a last line longer than it */
	t = tail("0123456789abcdef\n", 10, 6);
	assert_string_equal(t, "abcdef");
	free(t);
}

/* A harness's build output with runner commands: printed as lines, none
 * of which a CI runner takes for a command. */
static void test_hostile_build_output(void **state)
{
	const char *out =
		"Step 3/3 : RUN ./build.sh\n"
		"::error file=a.c,line=1::pwned\n"
		"  ::add-mask::secret\n"
		"\x1b[91m##[error]red\x1b[0m\n"
		"::stop-commands::tok\n"
		HOSTILE_CI_SECTION "\n"
		"##[group]x\n"
		"cc: error: boom\n";
	char *t = tail(out, 20, 1200);
	struct logged l = { BUF_INIT, 0 };

	(void)state;
	assert_null(strstr(t, "\x1b"));
	assert_null(strstr(t, "\\x1b["));	/* colours stripped, not shown */
	log_set_handler(capture, &l);
	log_error_lines("build 'x': failed (log /w/x.log)\nlast output:\n%s",
			t);
	log_set_handler(NULL, NULL);
	free(t);
	/* one message a line: '\x01' ends each */
	for (char *p = l.text.ptr; (p = strchr(p, '\x01')) != NULL; p++)
		*p = '\n';
	assert_int_equal(ci_command_lines(l.text.ptr), 0);
	assert_int_equal(ci_command_anywhere(l.text.ptr), 0);
	assert_null(strstr(l.text.ptr, "##["));
	assert_string_equal(l.text.ptr,
		"build 'x': failed (log /w/x.log)\n"
		LOG_MORE_PREFIX "last output:\n"
		LOG_MORE_PREFIX "Step 3/3 : RUN ./build.sh\n"
		LOG_MORE_PREFIX "\\x3a:error file=a.c,line=1::pwned\n"
		LOG_MORE_PREFIX "  \\x3a:add-mask::secret\n"
		LOG_MORE_PREFIX "##\\x5berror]red\n"
		LOG_MORE_PREFIX "\\x3a:stop-commands::tok\n"
		LOG_MORE_PREFIX "section_start:1:x\n"
		LOG_MORE_PREFIX "##\\x5bgroup]x\n"
		LOG_MORE_PREFIX "cc: error: boom\n");
	buf_release(&l.text);
}

/* On stderr: the later lines under the first, the count capped. */
static void test_lines_on_stderr(void **state)
{
	char path[] = "/tmp/test_log_lines.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct buf msg = BUF_INIT;
	char text[8192];
	size_t lines = 0;
	ssize_t n;

	(void)state;
	for (int i = 0; i < LOG_LINES_MAX + 10; i++)
		buf_printf(&msg, "\nline %d ::x", i);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	log_error_lines("head%s", msg.ptr);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	unlink(path);
	buf_release(&msg);
	assert_true(n > 0);
	text[n] = '\0';
	for (char *p = text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	assert_int_equal(lines, LOG_LINES_MAX + 1);
	assert_true(!strncmp(text, "crs-ci: error: head\n"
			     "crs-ci:" LOG_MORE_PREFIX "line 0 ::x\n",
			     strlen("crs-ci: error: head\ncrs-ci:"
				    LOG_MORE_PREFIX "line 0 ::x\n")));
	/* the rest is one escaped line */
	assert_non_null(strstr(text, "line 39 ::x\\x0aline 40 ::x\\x0a"));
	assert_int_equal(ci_command_lines(text), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_ansi),
		cmocka_unit_test(test_tail_lines),
		cmocka_unit_test(test_hostile_build_output),
		cmocka_unit_test(test_lines_on_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
