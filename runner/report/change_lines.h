/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_lines.h - the changed lines around each finding, for the report
 *
 * change-lines.json beside results.json: per finding id, a few head
 * lines around each stack frame on a changed line, with the changed ones
 * listed (docs/results.md). report.html shows them (html.c).
 */
#ifndef CRS_RUNNER_REPORT_CHANGE_LINES_H
#define CRS_RUNNER_REPORT_CHANGE_LINES_H

#include <jansson.h>

struct diff_changeset;
struct finding_set;

#define CHANGE_LINES_CONTEXT 3		/* lines before and after */
#define CHANGE_LINES_PER_FINDING 4	/* excerpts per finding */
#define CHANGE_LINES_SPAN 8		/* anchor to crash, in one excerpt */

/*
 * The document {"version": 1, "findings": {"<id>": [{"file", "line",
 * "first", "lines", "changed"[, "role", "crash"]}]}} (new reference) for
 * each finding's moved change anchor ("role": "anchor", with "crash" its
 * crash line when the excerpt holds it; else a "role": "crash" excerpt
 * follows) and the frames of `fs` marked in_change whose file is in `cs`, read below the folder `rootfd`
 * (the head source) without following a link; a file that cannot be read
 * or is shorter than the frame's line gives no excerpt. Cannot fail.
 */
json_t *change_lines_build(int rootfd, const struct diff_changeset *cs,
			   const struct finding_set *fs);

/*
 * The "findings" object of `out_dir`'s change-lines.json (new reference),
 * or NULL when it is missing, larger than CHANGE_LINES_JSON_MAX or not
 * such a document. Cannot fail.
 */
#define CHANGE_LINES_JSON_MAX (4u << 20)
json_t *change_lines_load(const char *out_dir);

/*
 * How the job summary and report.html mark line `no` of the excerpt `e`
 * (one entry of change-lines.json): '>' the crash line (an "anchor"
 * excerpt names it in "crash", any other excerpt's "line" is it), '*'
 * the change anchor, '+' another changed line, ' ' the rest. Cannot fail.
 */
char change_lines_mark(const json_t *e, json_int_t no);

#endif
