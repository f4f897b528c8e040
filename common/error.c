/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.c - per-thread error message storage
 *
 * Messages live in _Thread_local buffers so the gateway's HTTP threads and
 * parallel phases can each report their own failure. Truncation is silent:
 * a message is diagnostics, never data.
 */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ERROR_MSG_MAX 2048

static _Thread_local char error_msg[ERROR_MSG_MAX];
static _Thread_local int error_code;

int crs_error_set(int code, const char *fmt, ...)
{
	char msg[ERROR_MSG_MAX];
	va_list ap;

	/* formatted aside: an argument may be crs_error_last() itself */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(error_msg, msg, sizeof(msg));
	error_code = code;
	return code;
}

int crs_error_prefix(const char *fmt, ...)
{
	char old[ERROR_MSG_MAX];
	size_t n, rest;
	va_list ap;

	memcpy(old, error_msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
	va_end(ap);
	if (!old[0])
		return error_code;
	n = strlen(error_msg);
	rest = sizeof(error_msg) - n - 1;
	if (rest > 2) {
		memcpy(error_msg + n, ": ", 2);
		n += 2;
		rest -= 2;
		strncpy(error_msg + n, old, rest);
		error_msg[sizeof(error_msg) - 1] = '\0';
	}
	return error_code;
}

const char *crs_error_last(void)
{
	return error_msg;
}

int crs_error_code(void)
{
	return error_code;
}

void crs_error_clear(void)
{
	error_msg[0] = '\0';
	error_code = 0;
}

const char *crs_strerror(int code)
{
	switch (code) {
	case CRS_OK: return "success";
	case CRS_ERR: return "error";
	case CRS_ENOTFOUND: return "not found";
	case CRS_ECONFLICT: return "conflict";
	case CRS_ETIMEOUT: return "timed out";
	case CRS_ECONFIG: return "configuration error";
	case CRS_EINPUT: return "invalid input";
	case CRS_EENGINE: return "container engine error";
	case CRS_EINTR: return "interrupted";
	case CRS_ENOMEM: return "out of memory";
	case CRS_EBUILD: return "build failed";
	}
	return "unknown error";
}
