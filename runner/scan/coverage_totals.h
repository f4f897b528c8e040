/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_totals.h - several harnesses' coverage as the project's
 *
 * --mode coverage replays each harness's corpus on the coverage build;
 * this joins their lcov exports: per repository file (files outside the
 * repository, the fuzzing runtime's and the system's, are left out) the
 * union of the instrumented lines and of the lines that ran.
 */
#ifndef CRS_RUNNER_SCAN_COVERAGE_TOTALS_H
#define CRS_RUNNER_SCAN_COVERAGE_TOTALS_H

#include <stddef.h>

struct buf;
struct coverage;
struct project_cov;

/*
 * Fill out->files, out->lines and out->hit (the history is not touched)
 * from `covs[0..n-1]`, paths made relative to `repo_path`; and append to
 * `lcov` (when not NULL) the union as an lcov tracefile (SF: with the
 * repository-relative path, DA: line,0 or 1, end_of_record). Cannot fail.
 */
void coverage_totals(struct project_cov *out, struct buf *lcov,
		     struct coverage *const *covs, size_t n,
		     const char *repo_path);

#endif
