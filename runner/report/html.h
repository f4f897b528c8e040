/* SPDX-License-Identifier: Apache-2.0 */
/*
 * html.h - the scan as one self-contained HTML page (<out>/report.html)
 *
 * Self-contained: inline CSS, no script, no external resource, so it
 * opens anywhere as a CI artifact.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_REPORT_HTML_H
#define CRS_RUNNER_REPORT_HTML_H

#include <stddef.h>

struct finding_set;
struct _xmlDoc;

#define HTML_REPORT_NAME "report.html"
/* Beside results.json: the changed lines around each finding's in-change
 * frames (written after triage; docs/results.md). */
#define HTML_CHANGE_LINES_NAME "change-lines.json"
#define HTML_EXCERPT_MAX (32u << 10)	/* sanitizer report bytes shown */
#define HTML_DIFF_MAX (256u << 10)	/* patch bytes shown */

/*
 * Build and write <out_dir>/report.html via a temporary file and
 * rename(2). 0, or CRS_ERR with a message naming the path.
 */
int html_report_write(const struct finding_set *fs, const char *out_dir);

#endif
