/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.c - leveled logging to a swappable sink
 *
 * The default sink writes "crs-ci: <level>: <msg>" to stderr; at debug
 * level it adds file:line. stdout is never written here: it carries only
 * the product (SARIF, JSON, the verdict).
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static enum log_level log_level = LOG_INFO;
static log_handler_fn log_handler;
static void *log_handler_ctx;

void log_set_level(enum log_level level)
{
	log_level = level;
}

enum log_level log_get_level(void)
{
	return log_level;
}

void log_set_handler(log_handler_fn fn, void *ctx)
{
	log_handler = fn;
	log_handler_ctx = ctx;
}

static const char *level_name(enum log_level level)
{
	switch (level) {
	case LOG_ERROR: return "error";
	case LOG_WARN: return "warning";
	case LOG_INFO: return "info";
	case LOG_DEBUG: return "debug";
	}
	return "?";
}

/* "mm:ss" since the first message of the process. */
static const char *elapsed(char *out, size_t n)
{
	static struct timespec t0;
	struct timespec now;
	long s;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = now;
	s = (long)(now.tv_sec - t0.tv_sec);
	snprintf(out, n, "%02ld:%02ld", s / 60, s % 60);
	return out;
}

void log_msg(enum log_level level, const char *file, const char *func,
	     int line, const char *fmt, ...)
{
	char msg[4096], stamp[32];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_handler) {
		log_handler(level, file, func, line, msg, log_handler_ctx);
		return;
	}
	/* on a terminal, progress lines carry the elapsed time */
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "[%s] ", elapsed(stamp, sizeof(stamp)));
	if (log_level >= LOG_DEBUG)
		fprintf(stderr, "crs-ci: %s: %s (%s:%d)\n", level_name(level),
			msg, file, line);
	else if (level == LOG_INFO)
		fprintf(stderr, "crs-ci: %s\n", msg);
	else
		fprintf(stderr, "crs-ci: %s: %s\n", level_name(level), msg);
	(void)func;
}

/* keep_lines: newlines and tabs pass (multi-line output), else escaped */
static char *quote(char *out, size_t outsz, const char *s, size_t len,
		   int keep_lines)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!outsz)
		return out;
	for (size_t i = 0; i < len && o + 5 < outsz; i++) {
		unsigned char c = (unsigned char)s[i];
		int line_start = (i == 0 || s[i - 1] == '\n');

		if ((keep_lines && (c == '\n' || c == '\t')) ||
		    (c >= 0x20 && c < 0x7f &&
		     !(line_start && c == ':' && i + 1 < len && s[i + 1] == ':'))) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
	return out;
}

char *log_quote(char *out, size_t outsz, const char *s, size_t len)
{
	return quote(out, outsz, s, len, 1);
}

char *log_quote_line(char *out, size_t outsz, const char *s)
{
	return quote(out, outsz, s, strlen(s), 0);
}
