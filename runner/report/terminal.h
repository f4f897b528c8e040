/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terminal.h - the short verdict a person reads at the end of a scan
 */
#ifndef CRS_RUNNER_REPORT_TERMINAL_H
#define CRS_RUNNER_REPORT_TERMINAL_H

#include <stdio.h>

struct finding;
struct finding_set;
struct scan_summary;

/*
 * One finding's lines as the verdict shows them, to `f`; the reproduce
 * command only when `sm` (may be NULL) names the head build and runner.
 */
void terminal_finding(FILE *f, const struct finding *x,
		      const struct scan_summary *sm, const char *out_dir);

/*
 * Print the verdict for `fs` under its fail_on policy to `f`; paths are
 * shown under `out_dir`. Returns the number of findings that fail.
 */
size_t terminal_report(FILE *f, const struct finding_set *fs,
		       const char *out_dir);

#endif
