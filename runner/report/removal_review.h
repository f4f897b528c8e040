/* SPDX-License-Identifier: Apache-2.0 */
/*
 * removal_review.h - a finding that lies beside lines the change removed,
 * as a review comment on those lines (the left side of the diff)
 *
 * Code scanning shows a SARIF alert on a pull request's added lines only:
 * a regression that deletes a check has none, so crs-ci says it where
 * the reviewer sees the deletion.
 */
#ifndef CRS_RUNNER_REPORT_REMOVAL_REVIEW_H
#define CRS_RUNNER_REPORT_REMOVAL_REVIEW_H

#include <jansson.h>
#include <stddef.h>

struct diff_changeset;
struct diff_file;
struct finding_set;

/*
 * The base lines [*first, *last] that `df` removed right before or right
 * after its unchanged head line `head_line` (before first); 1, or 0 when
 * no removal touches it (or the line is itself changed).
 */
int removal_block(const struct diff_file *df, int head_line, int *first,
		  int *last);

/*
 * A review (event COMMENT, at `head_sha`) with one comment per finding of
 * `fs` failing `policy` whose change anchor sits beside a removal of `cs`:
 * side LEFT on the removed lines, naming the crash. NULL when none.
 */
json_t *removal_review_json(const struct finding_set *fs,
			    const struct diff_changeset *cs,
			    const char *head_sha, const char *policy);

#endif
