/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_lines.c - the last lines of a program's output, printable as lines
 *
 * See log_lines.h. Used for the tail of a failed build's log in its error
 * message (runner/engine/docker.c, runner/exec/container.c log_tail()).
 */
#include "common/log_lines.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the escape sequence that starts at s[i] (0: none). */
static size_t ansi_len(const unsigned char *s, size_t len, size_t i)
{
	size_t j;

	if (s[i] == 0xc2 && i + 1 < len && s[i + 1] == 0x9b) {
		j = i + 2;	/* C1 CSI */
	} else if (s[i] != 0x1b) {
		return 0;
	} else if (i + 1 >= len) {
		return 1;
	} else if (s[i + 1] == '[') {
		j = i + 2;
	} else if (s[i + 1] == ']') {	/* OSC: up to BEL or ST */
		for (j = i + 2; j < len; j++) {
			if (s[j] == 0x07)
				return j + 1 - i;
			if (s[j] == 0x1b && j + 1 < len && s[j + 1] == '\\')
				return j + 2 - i;
			if (s[j] == '\n')
				break;
		}
		return j - i;
	} else {
		/* ESC, intermediate bytes 0x20-0x2f, a final byte */
		for (j = i + 1; j < len && s[j] >= 0x20 && s[j] <= 0x2f; j++)
			;
		return j < len && s[j] >= 0x30 && s[j] <= 0x7e ?
			j + 1 - i : j - i;
	}
	/* CSI: parameter bytes 0x30-0x3f, intermediates 0x20-0x2f, final */
	while (j < len && s[j] >= 0x20 && s[j] <= 0x3f)
		j++;
	if (j < len && s[j] >= 0x40 && s[j] <= 0x7e)
		j++;
	return j - i;
}

size_t log_strip_ansi(char *str, size_t len)
{
	unsigned char *s = (unsigned char *)str;
	size_t i = 0, o = 0, n;

	while (i < len) {
		if ((n = ansi_len(s, len, i)) != 0) {
			i += n;
			continue;
		}
		s[o++] = s[i++];
	}
	return o;
}

char *log_lines_tail(const char *s, size_t len, size_t max_lines,
		     size_t cap)
{
	char *text = xmalloc(len + 1), *quoted = NULL;
	const char *end, *p, *line, *cr;
	struct buf out = BUF_INIT;
	size_t n = 0, qsz = 0;

	memcpy(text, s, len);
	len = log_strip_ansi(text, len);
	end = text + len;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	/* back to the start of the last max_lines lines, within ~cap */
	for (p = end; p > text && n < max_lines; p--)
		if (p[-1] == '\n' && (++n == max_lines ||
				      (size_t)(end - p) > 4 * cap))
			break;
	if (!max_lines)
		p = end;
	for (line = p; line < end; line = p + 1) {
		size_t l;

		p = memchr(line, '\n', (size_t)(end - line));
		if (!p)
			p = end;
		l = (size_t)(p - line);
		while (l && line[l - 1] == '\r')
			l--;
		/* what a terminal showed: the text after the last CR */
		while ((cr = memchr(line, '\r', l)) != NULL) {
			l -= (size_t)(cr + 1 - line);
			line = cr + 1;
		}
		if (4 * l + 1 > qsz) {
			qsz = 4 * l + 1;
			quoted = xrealloc(quoted, qsz);
		}
		log_quote(quoted, qsz, line, l);
		if (out.len)
			buf_addch(&out, '\n');
		buf_adds(&out, quoted);
	}
	free(quoted);
	free(text);
	if (!out.len)
		return xstrdup("");
	if (out.len > cap) {
		/* drop the oldest lines; cut a last line still too long */
		const char *keep = memchr(out.ptr + out.len - cap, '\n', cap);
		char *r;

		if (keep) {
			r = xstrdup(keep + 1);
		} else {
			r = xmalloc(cap + 1);
			memcpy(r, out.ptr + out.len - cap, cap);
			r[cap] = '\0';
		}
		buf_release(&out);
		return r;
	}
	return buf_detach(&out, NULL);
}
