/* SPDX-License-Identifier: Apache-2.0 */
/*
 * private_report.h - private findings to the maintainers only
 *
 * Sealed evidence files (<out>/private/finding-<n>.{pov,md}.cms), a draft
 * GitHub security advisory (CRS_CI_ADVISORY_TOKEN), a confidential GitLab
 * issue (the api-scope token). Details: SECURITY.md, docs/internals.md.
 */
#ifndef CRS_RUNNER_REPORT_PRIVATE_REPORT_H
#define CRS_RUNNER_REPORT_PRIVATE_REPORT_H

#include <stddef.h>

struct buf;
struct private_finding;
struct private_set;
struct scan_summary;

#define PRIVATE_ADVISORY_MAX 65535	/* GitHub's description limit */
#define PRIVATE_ISSUE_MAX 1000000	/* GitLab's is 1,048,576 */
#define PRIVATE_SUMMARY_MAX 1024	/* GitHub's advisory summary */

#ifdef UNIT_TESTS
/*
 * The Markdown details of `x` for the maintainers, at most `max` bytes:
 * crash, location, stack, the sanitizer report (cut to fit, saying so)
 * and x->pov_cms in a fenced block when it fits, else where to find it
 * (artifact file `evidence_name`). Every string is made valid UTF-8 and
 * fenced so it cannot close its block. Caller frees.
 */
char *private_report_text(const struct private_finding *x,
			  const struct scan_summary *sm,
			  const char *evidence_name, size_t max);
#endif

/*
 * Seal, write and send every finding of `p` (see above). `out_dir` is
 * the output folder. 0; CRS_EINPUT when CRS_CI_DISCLOSE_KEY is set but
 * malformed (nothing is written then); CRS_ERR when a file cannot be
 * written. A forge that refuses is a warning, not an error.
 */
int private_report(struct private_set *p, const struct scan_summary *sm,
		   const char *out_dir);

#endif
