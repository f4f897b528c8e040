/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - the one logger: levels, a swappable sink, and quoting
 *
 * The logger is the only mutable global in the product. Messages go to
 * stderr by default; tests and the gateway swap the sink. log_msg()
 * escapes every message with log_quote(), so no caller emits a raw
 * control byte or a CI runner command; other printers of untrusted text
 * use log_quote() or ask log_must_escape() which bytes to escape.
 */
#ifndef CRS_COMMON_LOG_H
#define CRS_COMMON_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

typedef void (*log_handler_fn)(enum log_level level, const char *file,
			       const char *func, int line, const char *msg,
			       void *ctx);

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_set_handler(log_handler_fn fn, void *ctx);
void log_msg(enum log_level level, const char *file, const char *func,
	     int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * log_msg() for a message whose line breaks are meant (a failed build's
 * last output lines): each line is escaped on its own (log_quote), the
 * first printed as log_msg() prints it, each later one as
 * "crs-ci:" LOG_MORE_PREFIX "<line>" (to a handler: LOG_MORE_PREFIX
 * "<line>"), so no line holds a control byte or a CI runner command and
 * none reads as a message of its own. Line LOG_LINES_MAX + 1 and the rest
 * are one escaped line. The whole message is at most 4 KiB, as in
 * log_msg().
 */
#define LOG_MORE_PREFIX "   | "
#define LOG_LINES_MAX 40
void log_msg_lines(enum log_level level, const char *file, const char *func,
		   int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define log_error(...) log_msg(LOG_ERROR, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_error_lines(...) log_msg_lines(LOG_ERROR, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_warn_lines(...) log_msg_lines(LOG_WARN, __FILE__, __func__, __LINE__, __VA_ARGS__)

/*
 * 1 when byte i of the `len` bytes at s must not reach a CI log as it is,
 * wherever s lands in a line and whatever text is put beside it:
 *   - a control byte: C0 (newline, CR, tab, ESC), DEL, UTF-8 C1 controls;
 *   - the first ':' after only whitespace (spaces, tabs, Unicode spaces):
 *     GitHub's runner runs "::cmd::" at a line's start after trimming it;
 *   - a '[' right after '#': GitHub's runner runs "##[cmd]" anywhere;
 *   - a '#' that ends s, so "#" + "#[" side by side make no "##[".
 * GitLab's "section_start:T:NAME\r\e[0K" needs a CR and an ESC: control
 * bytes. Callers escape such a byte in their sink's form (\xNN, %XX).
 */
int log_must_escape(const char *s, size_t len, size_t i);

/*
 * Escape `len` bytes of untrusted text into `out` (of size `outsz`, always
 * NUL-terminated; cut when full, and a cut drops the '#'s it leaves at
 * the end): each byte log_must_escape() names becomes \xNN ("##[" reads
 * "##\x5b", a leading "::" reads "\x3a:"), so the result is one line that
 * holds no ANSI escape and no CI runner command. Other UTF-8 passes
 * unchanged. Returns out.
 */
char *log_quote(char *out, size_t outsz, const char *s, size_t len);

/*
 * For the few lines printed outside the logger (usage errors before the
 * logger is set up, printed to the command's own stream): write
 * `prefix`, the formatted text escaped with log_quote(), then a newline,
 * to `f`. `prefix` is trusted. Cannot fail (write errors are the
 * caller's stream's).
 */
void log_fprintf(FILE *f, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
