/* SPDX-License-Identifier: Apache-2.0 */
/*
 * open_spy.h - count the opens of chosen file names (tests only)
 *
 * Included by one test file per binary: it defines open() and openat(),
 * which take the place of libc's for the code under test (the
 * executable's symbols come first), count the calls whose last path
 * component is one of the names given to open_spy_watch(), and forward
 * to the system call. So a test can say "the FIFO was never opened",
 * which no result file could show.
 */
#ifndef CRS_TESTS_OPEN_SPY_H
#define CRS_TESTS_OPEN_SPY_H

#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OPEN_SPY_NAMES 8

static const char *open_spy_names[OPEN_SPY_NAMES];
static int open_spy_hits;

/* Count opens of `name` from now on (at most OPEN_SPY_NAMES names). */
static void open_spy_watch(const char *name)
{
	for (int i = 0; i < OPEN_SPY_NAMES; i++)
		if (!open_spy_names[i]) {
			open_spy_names[i] = name;
			return;
		}
}

static void open_spy_reset(void)
{
	memset(open_spy_names, 0, sizeof(open_spy_names));
	open_spy_hits = 0;
}

static void open_spy_note(const char *path)
{
	const char *leaf = strrchr(path, '/');

	leaf = leaf ? leaf + 1 : path;
	for (int i = 0; i < OPEN_SPY_NAMES && open_spy_names[i]; i++)
		if (!strcmp(leaf, open_spy_names[i]))
			open_spy_hits++;
}

static int open_spy_call(int dirfd, const char *path, int flags, va_list ap)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	open_spy_note(path);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_spy_call(dirfd, path, flags, ap);
	va_end(ap);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_spy_call(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return fd;
}

#endif
