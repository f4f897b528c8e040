/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - the one logger: levels, a swappable sink, and quoting
 *
 * The logger is the only mutable global in the product. Messages go to
 * stderr by default; tests and the gateway swap the sink with
 * log_set_handler(). Untrusted text (container output, paths, branch
 * names) must pass through log_quote() before it is logged.
 */
#ifndef CRS_COMMON_LOG_H
#define CRS_COMMON_LOG_H

#include <stddef.h>

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
 * NUL-terminated): non-printable bytes become \xNN, so no ANSI escape or
 * CI workflow command ("::" at a line start) can reach a log. Returns out.
 */
char *log_quote(char *out, size_t outsz, const char *s, size_t len);
/*
 * log_quote() for text that must stay on one log line (a file name, an
 * error naming one): newlines and tabs are escaped too. Returns out.
 */
char *log_quote_line(char *out, size_t outsz, const char *s);

#endif
