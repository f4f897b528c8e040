/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terminal.h - the short verdict a person reads at the end of a scan
 */
#ifndef CRS_RUNNER_REPORT_TERMINAL_H
#define CRS_RUNNER_REPORT_TERMINAL_H

#include <stdio.h>

struct finding_set;

/*
 * Print the verdict for `fs` under its fail_on policy to `f`; paths are
 * shown under `out_dir`. Returns the number of findings that fail.
 */
size_t terminal_report(FILE *f, const struct finding_set *fs,
		       const char *out_dir);

#endif
