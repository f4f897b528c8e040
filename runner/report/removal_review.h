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
struct finding;
struct finding_set;

/*
 * The base lines [*first, *last] that `df` removed right before or right
 * after its unchanged head line `head_line` (before first); 1, or 0 when
 * no removal touches it (or the line is itself changed).
 */
int removal_block(const struct diff_file *df, int head_line, int *first,
		  int *last);

/*
 * Finding f's comment: crs-ci's words, the crash escaped for Markdown
 * (caller frees). Cannot fail.
 */
char *removal_comment_body(const struct finding *f);

/*
 * Whether finding f, failing `policy`, lies beside a removal of `cs`:
 * its file's diff (*df) and the removed base lines [*first, *last].
 */
int removal_of_finding(const struct finding *f, const char *policy,
		       const struct diff_changeset *cs,
		       const struct diff_file **df, int *first, int *last);

/*
 * A review (event COMMENT, at `head_sha`) with one comment per finding of
 * `fs` failing `policy` whose change anchor sits beside a removal of `cs`:
 * side LEFT on the removed lines, naming the crash. NULL when none.
 */
json_t *removal_review_json(const struct finding_set *fs,
			    const struct diff_changeset *cs,
			    const char *head_sha, const char *policy);

#endif
