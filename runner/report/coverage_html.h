/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_html.h - --mode coverage's page: the project's coverage and its trend
 *
 * One self-contained HTML file (no script, no external resource): the
 * totals, an inline SVG of the line coverage over the store's history
 * (one point per coverage run), and a table of every repository file
 * with its lines instrumented and run. File paths and commits come from
 * the project and the store: text nodes and attribute values only.
 */
#ifndef CRS_RUNNER_REPORT_COVERAGE_HTML_H
#define CRS_RUNNER_REPORT_COVERAGE_HTML_H

struct project_cov;

/*
 * Write `path` (atomically) for project `project`. 0 or CRS_ERR naming
 * the file.
 */
int coverage_html_write(const struct project_cov *c, const char *project,
			const char *path);

#endif
