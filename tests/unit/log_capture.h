/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_capture.h - collect what the code under test logs (tests only)
 *
 * Included by one test file per binary. Hand capture() and a struct
 * logged to log_set_handler(); every message is appended to `text`,
 * each ended by '\x01' (so a test can look for a raw newline, or a
 * message starting with "::"), and warnings are counted.
 */
#ifndef CRS_TESTS_LOG_CAPTURE_H
#define CRS_TESTS_LOG_CAPTURE_H

#include "common/buf.h"
#include "common/log.h"

struct logged {
	struct buf text;	/* every message, each ended by '\x01' */
	int warnings;
};

static void capture(enum log_level level, const char *file,
		    const char *func, int line, const char *msg, void *ctx)
{
	struct logged *l = ctx;

	(void)file;
	(void)func;
	(void)line;
	l->warnings += level == LOG_WARN;
	buf_adds(&l->text, msg);
	buf_addch(&l->text, '\x01');
}

#endif
