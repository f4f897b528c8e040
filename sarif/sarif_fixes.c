/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_fixes.c - result.fixes: each validated patch of a finding as
 * SARIF artifact changes (line replacements), read with libgit2's patch
 * parser, never applied
 */
#include "sarif/sarif_json.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

/* One run of deleted and inserted lines within a hunk. */
struct repl_run {
	int start;		/* first old line it replaces (1-based) */
	int deleted;		/* old lines it deletes */
	struct buf inserted;	/* the new lines' text */
	int open;
};

/*
 * The old lines [start, start + deleted) as a region of whole lines
 * (startColumn 1 up to column 1 of the line after), so inserting the new
 * lines' text keeps every line ending; an empty region inserts.
 */
static void repl_flush(struct repl_run *r, json_t *repls)
{
	json_t *o;

	if (!r->open)
		return;
	o = json_pack("{s:{s:i,s:i,s:i,s:i}}", "deletedRegion",
		      "startLine", r->start, "startColumn", 1,
		      "endLine", r->start + r->deleted, "endColumn", 1);
	if (r->inserted.len)
		json_object_set_new(o, "insertedContent",
				    sarif_jmsg(r->inserted.ptr));
	json_array_append_new(repls, o);
	buf_release(&r->inserted);
	r->inserted = (struct buf)BUF_INIT;
	r->open = 0;
	r->deleted = 0;
}

/* The replacements of one file of the patch. */
static json_t *file_replacements(git_patch *gp)
{
	json_t *repls = json_array();
	struct repl_run run = { 0 };

	run.inserted = (struct buf)BUF_INIT;
	for (size_t h = 0; h < git_patch_num_hunks(gp); h++) {
		const git_diff_hunk *hunk;
		size_t lines;
		int next_old;

		if (git_patch_get_hunk(&hunk, &lines, gp, h) != 0)
			continue;
		/* "-N,0" inserts after line N */
		next_old = hunk->old_lines ? hunk->old_start :
			hunk->old_start + 1;
		for (size_t k = 0; k < lines; k++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, gp, h, k) != 0)
				continue;
			if (l->origin == GIT_DIFF_LINE_CONTEXT) {
				repl_flush(&run, repls);
				next_old = l->old_lineno + 1;
			} else if (l->origin == GIT_DIFF_LINE_DELETION) {
				if (!run.open) {
					run.open = 1;
					run.start = l->old_lineno;
				}
				run.deleted++;
				next_old = l->old_lineno + 1;
			} else if (l->origin == GIT_DIFF_LINE_ADDITION) {
				if (!run.open) {
					run.open = 1;
					run.start = next_old;
				}
				buf_add(&run.inserted, l->content,
					l->content_len);
			}
		}
		repl_flush(&run, repls);
	}
	buf_release(&run.inserted);
	return repls;
}

/* A SARIF fix from a validated patch, or NULL when its diff does not parse. */
static json_t *patch_fix(const struct finding_patch *p)
{
	git_diff *diff = NULL;
	json_t *changes, *fix = NULL;
	struct buf d = BUF_INIT;

	git_libgit2_init();
	if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) != 0)
		goto out;
	changes = json_array();
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *dd = git_diff_get_delta(diff, i);
		const char *path = dd->status == GIT_DELTA_DELETED ?
			dd->old_file.path : dd->new_file.path;
		git_patch *gp = NULL;
		char *uri;

		if (!path || git_patch_from_diff(&gp, diff, i) != 0)
			continue;
		uri = sarif_uri_escape(path);
		json_array_append_new(changes, json_pack(
			"{s:{s:s,s:s},s:o}", "artifactLocation", "uri", uri,
			"uriBaseId", "%SRCROOT%", "replacements",
			file_replacements(gp)));
		free(uri);
		git_patch_free(gp);
	}
	buf_printf(&d, "Validated patch %.12s from %s (results.json "
		   "patches[]: built, every PoV stopped, tests: %s, re-fuzzed "
		   "without a crash)", p->sha256, p->crs ? p->crs : "a CRS",
		   p->steps_nr > 4 && p->steps[4].verdict ?
		   p->steps[4].verdict : "passed");
	fix = json_pack("{s:o,s:o}", "description", sarif_jmsg(d.ptr),
			"artifactChanges", changes);
out:
	git_diff_free(diff);
	git_libgit2_shutdown();
	buf_release(&d);
	return fix;
}

/* result.fixes: every validated patch that fixes f; NULL when none. */
json_t *sarif_fixes_json(const struct finding *f,
			  const struct finding_set *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->fixed_by_nr; i++) {
		const struct finding_patch *p =
			finding_set_find_patch(s, f->fixed_by[i]);
		json_t *fix;

		if (!p || !p->validated || !p->diff || !(fix = patch_fix(p)))
			continue;
		json_array_append_new(a, fix);
	}
	if (!json_array_size(a)) {
		json_decref(a);
		return NULL;
	}
	return a;
}
