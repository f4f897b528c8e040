/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.h - validated patches as line suggestions a reviewer can accept
 *
 * Forge-neutral: the hunks of a change's diff (a suggestion must lie in
 * one) and one suggestion per hunk of each validated patch (the head
 * lines it replaces and their new text). The GitHub review and the
 * GitLab merge-request discussions are both made from these.
 */
#ifndef CRS_RUNNER_REPORT_SUGGEST_H
#define CRS_RUNNER_REPORT_SUGGEST_H

#include <stddef.h>

struct diff_changeset;
struct finding_set;

/*
 * Hunks of a unified diff on the new (head) side: a review comment's
 * line must lie in a hunk, and a multi-line range in one hunk. A diff
 * already parsed (a diff_changeset) answers this itself
 * (diff_changeset_in_hunk); this holds one parsed from text.
 */
struct diff_hunks {
	struct diff_changeset *cs;	/* NULL: no files */
};
/*
 * Parse a unified diff (git diff, or GitHub's
 * application/vnd.github.diff) in memory with diff/'s parser
 * (diff_changeset_from_patch). Deleted files have no hunks; an empty diff
 * has none. 0 or CRS_EINPUT (malformed, the message names the diff line
 * as "diff:LINE").
 */
int diff_hunks_parse(struct diff_hunks *out, const char *diff, size_t len);
void diff_hunks_release(struct diff_hunks *h);
/* 1 when lines start..end (start <= end) of `path` lie in one hunk. */
int diff_hunks_contain(const struct diff_hunks *h, const char *path,
		       int start, int end);

/* A validated patch for lines start..end of `path` at the change's head. */
struct patch_suggestion {
	const char *path;
	int start_line, end_line;	/* inclusive, 1-based, head side */
	const char *replacement;	/* the new text of those lines */
	const char *message;		/* plain text, escaped when posted */
	const char *patch_sha256;	/* the validated patch's, or NULL */
	const char *crs;		/* the CRS that wrote it, or NULL */
};

/*
 * One suggestion per hunk of each validated patch in `fs` (the patch's
 * old side is the head: replace those head lines by the hunk's new side).
 * Fills a caller-owned array (patch_suggestions_release). 0 or CRS_EINPUT
 * (a validated patch that libgit2 cannot parse).
 */
struct patch_suggestions {
	struct patch_suggestion *v;
	size_t nr, alloc;
};
int patch_suggestions_from_set(struct patch_suggestions *out,
			       const struct finding_set *fs);
void patch_suggestions_release(struct patch_suggestions *s);

#endif
