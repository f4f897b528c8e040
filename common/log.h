/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - the one logger: levels, a swappable sink, and quoting
 *
 * The logger is the only mutable global in the product. Messages go to
 * stderr by default; tests and the gateway swap the sink with
 * log_set_handler(). log_msg() escapes every message with log_quote()
 * before any sink sees it, so no caller can emit a raw newline, CR or
 * ANSI escape, and a line never starts with "::". Text printed outside
 * the logger (usage errors, reports) goes through log_quote() itself.
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

#define log_error(...) log_msg(LOG_ERROR, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __FILE__, __func__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __FILE__, __func__, __LINE__, __VA_ARGS__)

/*
 * Escape `len` bytes of untrusted text into `out` (of size `outsz`, always
 * NUL-terminated; cut when full): every control byte (C0 including
 * newline, CR and tab, DEL, and UTF-8 C1 controls) and a leading "::"
 * become \xNN, so the result is one line that holds no ANSI escape and
 * is no CI workflow command. Other UTF-8 passes unchanged. Returns out.
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
