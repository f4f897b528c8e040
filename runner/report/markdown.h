/* SPDX-License-Identifier: Apache-2.0 */
/*
 * markdown.h - untrusted text made inert for Markdown renderers
 *
 * GitHub's job summary and GitLab's vulnerability descriptions and merge
 * request notes render Markdown (with inline HTML, links, @mentions).
 * Text from a pull request or a container goes in escaped, or inside a
 * code span or block whose backtick run is longer than any in the text,
 * so it can neither close the block nor be read as markup.
 */
#ifndef CRS_RUNNER_REPORT_MARKDOWN_H
#define CRS_RUNNER_REPORT_MARKDOWN_H

#include <jansson.h>
#include <stddef.h>

struct buf;
struct change_cov;

/*
 * Append `s` escaped: HTML specials become entities, Markdown punctuation
 * (including [ ] ( ) ` @ :) is backslashed, line breaks become spaces and
 * other controls visible symbols. NULL appends nothing.
 */
void md_escape(struct buf *b, const char *s);
/*
 * Append `s` as one inline code span: delimited by one backtick more than
 * its longest run, line breaks and controls as spaces. NULL as "?".
 */
void md_code_span(struct buf *b, const char *s);
/*
 * Append a fenced code block: the fence is one backtick longer than the
 * longest run in `s` (at least 3), then `info` (may be NULL), `s` (a
 * newline added when missing), and the closing fence and a newline.
 */
void md_code_block(struct buf *b, const char *info, const char *s);

/*
 * Append "**Coverage of the change:** fuzzing executed N of M changed
 * lines; not reached: ..." (sarif/change_cov.h) as one escaped paragraph.
 * NULL (full mode) appends nothing.
 */
void md_change_cov(struct buf *b, const struct change_cov *c);

/*
 * One change-lines.json excerpt (runner/report/change_lines.h) as its
 * file:line, then a fenced block of numbered lines: '*' the change anchor,
 * '>' the crash line, '+' other changed lines. A malformed excerpt adds
 * nothing. Cannot fail.
 */
void md_excerpt(struct buf *b, const json_t *e);

#endif
