/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.c - leveled logging to a swappable sink
 *
 * The default sink writes "crs-ci: <level>: <msg>" to stderr (stdout
 * carries only the product). Every message is escaped here, whatever its
 * caller passed: no control byte reaches a sink, so one call is one line,
 * and no CI runner command survives in it ("::" first, "##[" anywhere).
 * Details: docs/internals.md (common/log.c).
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

/* One line to the sink: `msg` is escaped already; `more` marks a later
 * line of a message printed as lines (log_msg_lines). */
static void log_emit(enum log_level level, const char *file, const char *func,
		     int line, const char *msg, int more)
{
	char stamp[32];

	if (log_handler) {
		if (more) {
			char cont[4 * 4096 + 8];

			snprintf(cont, sizeof(cont), "%s%s", LOG_MORE_PREFIX,
				 msg);
			log_handler(level, file, func, line, cont,
				    log_handler_ctx);
		} else {
			log_handler(level, file, func, line, msg,
				    log_handler_ctx);
		}
		return;
	}
	/* on a terminal, progress lines carry the elapsed time; one line
	 * at a time while builds log side by side */
	flockfile(stderr);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "[%s] ", elapsed(stamp, sizeof(stamp)));
	if (more)
		fprintf(stderr, "crs-ci:%s%s\n", LOG_MORE_PREFIX, msg);
	else if (log_level >= LOG_DEBUG)
		fprintf(stderr, "crs-ci: %s: %s (%s:%d)\n", level_name(level),
			msg, file, line);
	else if (level == LOG_INFO)
		fprintf(stderr, "crs-ci: %s\n", msg);
	else
		fprintf(stderr, "crs-ci: %s: %s\n", level_name(level), msg);
	funlockfile(stderr);
	(void)func;
}

/* Format, escape and emit a message: as one line, or (`lines`) a line a
 * line of it (log_msg_lines). */
static void log_vmsg(enum log_level level, const char *file, const char *func,
		     int line, int lines, const char *fmt, va_list ap)
{
	char raw[4096], msg[4 * sizeof(raw)];
	const char *p = raw, *nl;
	size_t n = 0;

	vsnprintf(raw, sizeof(raw), fmt, ap);
	for (;; p = nl + 1) {
		nl = lines ? strchr(p, '\n') : NULL;
		if (n == LOG_LINES_MAX)
			nl = NULL;	/* the rest in one escaped line */
		log_quote(msg, sizeof(msg), p, nl ? (size_t)(nl - p) :
			  strlen(p));
		log_emit(level, file, func, line, msg, n > 0);
		n++;
		if (!nl)
			break;
	}
}

void log_msg(enum log_level level, const char *file, const char *func,
	     int line, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	log_vmsg(level, file, func, line, 0, fmt, ap);
	va_end(ap);
}

void log_msg_lines(enum log_level level, const char *file, const char *func,
		   int line, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	log_vmsg(level, file, func, line, 1, fmt, ap);
	va_end(ap);
}

/*
 * Bytes of the whitespace character that ends just before s[i] (a space,
 * a tab or a Unicode space that .NET's TrimStart() drops: U+00A0, U+1680,
 * U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), or 0.
 */
static size_t space_before(const unsigned char *s, size_t i)
{
	unsigned char a, b, c;

	if (i >= 1 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		return 1;
	if (i >= 2 && s[i - 2] == 0xc2 && s[i - 1] == 0xa0)
		return 2;
	if (i < 3)
		return 0;
	a = s[i - 3];
	b = s[i - 2];
	c = s[i - 1];
	if ((a == 0xe1 && b == 0x9a && c == 0x80) ||
	    (a == 0xe2 && b == 0x80 && ((c >= 0x80 && c <= 0x8a) ||
					c == 0xa8 || c == 0xa9 || c == 0xaf)) ||
	    (a == 0xe2 && b == 0x81 && c == 0x9f) ||
	    (a == 0xe3 && b == 0x80 && c == 0x80))
		return 3;
	return 0;
}

/* 1 when only whitespace comes before s[i]. */
static int after_leading_space(const unsigned char *s, size_t i)
{
	size_t n;

	while (i && (n = space_before(s, i)))
		i -= n;
	return i == 0;
}

int log_must_escape(const char *str, size_t len, size_t i)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[i];

	if (c < 0x20 || c == 0x7f)
		return 1;	/* C0 (newline, CR, tab, ESC, ...) and DEL */
	/* C1 controls U+0080..U+009F (0xc2 0x80..0x9f): CSI is U+009B */
	if (c == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
		return 1;
	if (c >= 0x80 && c <= 0x9f && i > 0 && s[i - 1] == 0xc2)
		return 1;
	switch (c) {
	case ':':	/* GitHub: "::cmd::" after leading whitespace */
		return after_leading_space(s, i);
	case '[':	/* GitHub: "##[cmd]" anywhere in a line */
		return i > 0 && s[i - 1] == '#';
	case '#':	/* nor "##" + "[" when texts are put side by side */
		return i + 1 == len;
	}
	return 0;
}

static void log_vfprintf(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char raw[4096], msg[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	fprintf(f, "%s%s\n", prefix,
		log_quote(msg, sizeof(msg), raw, strlen(raw)));
}

void log_fprintf(FILE *f, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vfprintf(f, prefix, fmt, ap);
	va_end(ap);
}

char *log_quote(char *out, size_t outsz, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, i;

	if (!outsz)
		return out;
	for (i = 0; i < len && o + 5 < outsz; i++) {
		if (!log_must_escape(s, len, i)) {
			out[o++] = s[i];
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
	}
	/* cut short: a '#' may now end it (see log_must_escape) */
	while (i < len && o && out[o - 1] == '#')
		o--;
	out[o] = '\0';
	return out;
}
