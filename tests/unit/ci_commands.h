/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ci_commands.h - what a CI runner would run in printed text (tests only)
 *
 * GitHub's runner runs "::cmd::" at a line's start after whitespace and
 * "##[cmd]" anywhere in a line; GitLab opens and closes log sections at
 * "section_start:T:NAME" or "section_end:..." followed by CR ESC "[0K".
 * The hostile inputs every printer's test feeds are HOSTILE_CI_*.
 */
#ifndef CRS_TESTS_UNIT_CI_COMMANDS_H
#define CRS_TESTS_UNIT_CI_COMMANDS_H

#include <stddef.h>
#include <string.h>

#define HOSTILE_CI_STOP "##[stop-commands]tok"
#define HOSTILE_CI_ERROR "::error::x"
#define HOSTILE_CI_SECTION "\x1b[0Ksection_start:1:x\r\x1b[0K"

/* Lines of `text` that start with "::" after spaces, tabs or NBSPs. */
static inline size_t ci_command_lines(const char *text)
{
	size_t n = 0;

	for (const char *p = text; p && *p;) {
		while (*p == ' ' || *p == '\t' ||
		       ((unsigned char)p[0] == 0xc2 &&
			(unsigned char)p[1] == 0xa0))
			p += (unsigned char)*p == 0xc2 ? 2 : 1;
		n += p[0] == ':' && p[1] == ':';
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* 1 when `text` holds a command GitHub runs anywhere or a GitLab marker. */
static inline int ci_command_anywhere(const char *text)
{
	return strstr(text, "##[") || strstr(text, "\r\x1b[0K");
}

#endif
