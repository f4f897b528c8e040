/* SPDX-License-Identifier: Apache-2.0 */
/*
 * markdown.c - untrusted text made inert for Markdown renderers
 *
 * Shared by the GitHub job summary and the GitLab SAST descriptions and
 * merge request notes. Knows CommonMark's rules for what closes a code
 * span or fence; knows nothing of either forge.
 */
#include "runner/report/markdown.h"
#include "runner/report/change_lines.h"
#include "sarif/change_cov.h"
#include "common/buf.h"
#include "common/log.h"

#include <string.h>

void md_escape(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '&': buf_adds(b, "&amp;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\r': case '\n': case '\t':
			buf_addch(b, ' ');
			break;
		case '\\': case '`': case '*': case '_': case '{': case '}':
		case '[': case ']': case '(': case ')': case '#': case '+':
		case '-': case '.': case '!': case '|': case '~': case '@':
		case ':':
			buf_addch(b, '\\');
			buf_addch(b, (char)c);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				buf_printf(b, "&#%u;", 0x2400u + (c == 0x7f ?
					   0x21u : c));
			else
				buf_addch(b, (char)c);
		}
	}
}

/* The longest run of backticks in s. */
static size_t longest_backticks(const char *s)
{
	size_t run = 0, longest = 0;

	for (; s && *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

static void add_ticks(struct buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addch(b, '`');
}

void md_code_span(struct buf *b, const char *s)
{
	size_t n, len;
	int pad;

	if (!s)
		s = "?";
	n = longest_backticks(s) + 1;
	len = strlen(s);
	/* a span that starts or ends with ` needs a space (stripped) */
	pad = len && (s[0] == '`' || s[len - 1] == '`');
	add_ticks(b, n);
	if (pad)
		buf_addch(b, ' ');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			buf_addch(b, ' ');
		else if (log_must_escape(s, len, i))	/* "##[" */
			buf_printf(b, "\\x%02x", c);
		else
			buf_addch(b, (char)c);
	}
	if (pad)
		buf_addch(b, ' ');
	add_ticks(b, n);
}

void md_code_block(struct buf *b, const char *info, const char *s)
{
	size_t fence = longest_backticks(s) + 1, n;

	if (!s)
		s = "";
	if (fence < 3)
		fence = 3;
	n = strlen(s);
	add_ticks(b, fence);
	if (info)
		buf_adds(b, info);
	buf_addch(b, '\n');
	buf_adds(b, s);
	if (!n || s[n - 1] != '\n')
		buf_addch(b, '\n');
	add_ticks(b, fence);
	buf_addch(b, '\n');
}

void md_change_cov(struct buf *b, const struct change_cov *c)
{
	struct buf line = BUF_INIT;

	if (!c)
		return;
	change_cov_line(&line, c);
	buf_adds(b, "**Coverage of the change:** ");
	md_escape(b, line.ptr);
	buf_adds(b, "\n\n");
	buf_release(&line);
}

#define MD_EXCERPT_LINES 15	/* lines of an excerpt shown, at most */

void md_excerpt(struct buf *b, const json_t *e)
{
	/* borrowed */
	const char *file = json_string_value(json_object_get(e, "file"));
	const char *role = json_string_value(json_object_get(e, "role"));
	const json_t *text = json_object_get(e, "lines");
	json_int_t line = json_integer_value(json_object_get(e, "line"));
	json_int_t first = json_integer_value(json_object_get(e, "first"));
	int anchor = role && !strcmp(role, "anchor");
	struct buf block = BUF_INIT;
	size_t n = json_array_size(text);

	if (!file || !n || first < 1 || line < 1 || first > (1 << 30))
		return;
	md_code_span(b, file);
	buf_printf(b, " line %lld%s\n\n", (long long)line, anchor ?
		   ": the changed line the PoV ran nearest the crash" :
		   role && !strcmp(role, "crash") ? ": the crash" : "");
	for (size_t i = 0; i < n && i < MD_EXCERPT_LINES; i++) {
		json_int_t no = first + (json_int_t)i;
		const char *t = json_string_value(json_array_get(text, i));

		buf_printf(&block, "%c%6lld  ", change_lines_mark(e, no),
			   (long long)no);
		for (const char *p = t ? t : ""; *p; p++)
			buf_addch(&block, (unsigned char)*p < 0x20 ? ' ' : *p);
		buf_addch(&block, '\n');
	}
	md_code_block(b, NULL, block.ptr);
	buf_addch(b, '\n');
	buf_release(&block);
}
