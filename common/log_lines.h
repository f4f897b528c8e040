/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_lines.h - the last lines of a program's output, printable as lines
 *
 * A failed build's error shows the end of its log. The log is the
 * container's (hostile) output: colour codes, progress bars redrawn with
 * carriage returns, runner commands. log_lines_tail() makes of it lines
 * that log_msg_lines() prints as they were meant to be read, each escaped
 * on its own.
 */
#ifndef CRS_COMMON_LOG_LINES_H
#define CRS_COMMON_LOG_LINES_H

#include <stddef.h>

/*
 * Remove ANSI escape sequences from the `len` bytes at `s` in place: CSI
 * (ESC '[' or the UTF-8 C1 CSI, parameters, one final byte), OSC (ESC ']'
 * up to BEL or ESC '\') and other two-byte ESC sequences. Returns the new
 * length. Other control bytes are left for log_quote() to escape.
 */
size_t log_strip_ansi(char *s, size_t len);

/*
 * The last `max_lines` non-empty-trailing lines of the `len` bytes at `s`
 * as one string for log_msg_lines(): ANSI sequences removed, of each line
 * only what follows its last carriage return (what a terminal showed),
 * each line escaped with log_quote() on its own, joined by '\n', at most
 * `cap` bytes (older lines dropped first; a last line longer than `cap`
 * cut). "" for no output. Caller frees.
 */
char *log_lines_tail(const char *s, size_t len, size_t max_lines,
		     size_t cap);

#endif
