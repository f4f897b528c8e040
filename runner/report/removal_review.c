/* SPDX-License-Identifier: Apache-2.0 */
/*
 * removal_review.c - a finding that lies beside lines the change removed,
 * as a review comment on those lines (the left side of the diff)
 *
 * The anchor (sarif/change_anchor.h) of such a finding is a head line
 * next to the removal; the line map turns it into base lines, and the
 * removed run next to them is what the comment covers.
 */
#include "runner/report/removal_review.h"
#include "runner/report/markdown.h"
#include "diff/changeset.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define REMOVAL_COMMENTS_MAX 20	/* comments in one review */

static int removed(const struct diff_file *df, int base_line)
{
	for (size_t i = 0; i < df->removed_nr; i++)
		if (df->removed[i] == base_line)
			return 1;
	return 0;
}

int removal_block(const struct diff_file *df, int head_line, int *first,
		  int *last)
{
	int b = diff_file_base_line(df, head_line);

	if (b <= 0 || diff_file_changed(df, head_line))
		return 0;
	if (removed(df, b - 1)) {		/* the line after the removal */
		*last = b - 1;
		for (*first = *last; removed(df, *first - 1); (*first)--)
			;
		return 1;
	}
	if (removed(df, b + 1)) {		/* the line before it */
		*first = b + 1;
		for (*last = *first; removed(df, *last + 1); (*last)++)
			;
		return 1;
	}
	return 0;
}

char *removal_comment_body(const struct finding *f)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "**crs-ci**: without these lines the pull request's head "
		 "crashes: ");
	md_escape(&b, f->crash_type ? f->crash_type : "a crash");
	buf_adds(&b, " in ");
	md_escape(&b, f->function ? f->function : "?");
	if (f->file) {
		buf_adds(&b, " at ");
		md_escape(&b, f->file);
		buf_printf(&b, "\\:%d", f->line);
	}
	buf_printf(&b, ", proved by a PoV (reproduced %d/%d; the base "
		   "build does not crash on it). The job summary has the PoV "
		   "and the command that reproduces it.", f->reproduced,
		   f->attempts);
	return buf_detach(&b, NULL);
}

int removal_of_finding(const struct finding *f, const char *policy,
		       const struct diff_changeset *cs,
		       const struct diff_file **df, int *first, int *last)
{
	return cs && finding_fails_policy(f, policy) && f->anchor &&
		f->anchor->file && f->anchor->line > 0 &&
		(*df = diff_changeset_file(cs, f->anchor->file)) &&
		removal_block(*df, f->anchor->line, first, last);
}

json_t *removal_review_json(const struct finding_set *fs,
			    const struct diff_changeset *cs,
			    const char *head_sha, const char *policy)
{
	json_t *comments = json_array();

	for (size_t i = 0; cs && i < fs->nr &&
	     json_array_size(comments) < REMOVAL_COMMENTS_MAX; i++) {
		const struct finding *f = &fs->items[i];
		const struct diff_file *df;
		int first, last;
		char *body;
		json_t *c;

		if (!removal_of_finding(f, policy, cs, &df, &first, &last))
			continue;
		body = removal_comment_body(f);
		/* GitHub names the file by its head path on either side */
		c = json_pack("{s:s, s:s, s:i, s:s}", "path", df->path,
			      "body", body, "line", last, "side", "LEFT");
		if (first < last) {
			json_object_set_new(c, "start_line",
					    json_integer(first));
			json_object_set_new(c, "start_side",
					    json_string("LEFT"));
		}
		json_array_append_new(comments, c);
		free(body);
	}
	if (!json_array_size(comments)) {
		json_decref(comments);
		return NULL;
	}
	return json_pack("{s:s, s:s, s:s, s:o}", "commit_id", head_sha,
			 "event", "COMMENT", "body", "crs-ci: crashes this "
			 "change leads to by removing lines.", "comments",
			 comments);
}
