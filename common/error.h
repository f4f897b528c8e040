/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.h - error codes and the per-thread error message
 *
 * Every fallible function returns 0 or a negative CRS_E* code and, where
 * the failure happens, records a message with crs_error_set(). Callers
 * propagate the code unchanged and may prepend context with
 * crs_error_prefix(). The codes are append-only: libcrs exposes them.
 */
#ifndef CRS_COMMON_ERROR_H
#define CRS_COMMON_ERROR_H

enum crs_error_code {
	CRS_OK = 0,
	CRS_ERR = -1,		/* generic failure */
	CRS_ENOTFOUND = -2,	/* a named thing does not exist */
	CRS_ECONFLICT = -3,	/* already exists / state conflict */
	CRS_ETIMEOUT = -4,	/* a deadline passed */
	CRS_ECONFIG = -5,	/* configuration file is invalid */
	CRS_EINPUT = -6,	/* bad input (command line, diff, file) */
	CRS_EENGINE = -7,	/* container engine unreachable or failed */
	CRS_EINTR = -8,		/* interrupted by a signal */
	CRS_ENOMEM = -9,	/* out of memory (libcrs API only) */
	CRS_EBUILD = -10,	/* the target or a CRS did not build */
};

/*
 * Record a message for the calling thread and return `code`, so that
 * `return crs_error_set(CRS_EINPUT, "...")` is one line. An argument may
 * be crs_error_last() (the old message inside the new). Cannot fail.
 */
int crs_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepend "<context>: " to the current message. Returns the current code. */
int crs_error_prefix(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The last message of this thread; never NULL (empty when none). */
const char *crs_error_last(void);

/* The code given with the last crs_error_set(), or 0. */
int crs_error_code(void);

/* Forget the current error, after recovering from it. */
void crs_error_clear(void);

/* A short constant name for a code ("engine error", ...). */
const char *crs_strerror(int code);

#endif
