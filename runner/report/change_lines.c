/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_lines.c - the changed lines around each finding, for the report
 *
 * Excerpts of the head source around each finding's change anchor (with
 * its crash line when near) and its frames on changed lines. The names
 * are hostile: only the change's files are read, below the source
 * folder's descriptor, never through a link. docs/results.md.
 */
#include "runner/report/change_lines.h"
#include "diff/changeset.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHANGE_LINES_FILE_MAX (16u << 20)	/* source file read */
#define CHANGE_LINES_TEXT_MAX 240	/* bytes of a line kept */

/* The head source of repo-relative `file` into b; 0 or an error code. */
static int read_source(struct buf *b, int rootfd, const char *file)
{
	const char *leaf = NULL;
	int pfd = -1, r;

	if ((r = fs_walk_beneath(&pfd, &leaf, rootfd, file, 0, file)) == 0)
		r = fs_read_regular_at(b, pfd, leaf, file,
				       CHANGE_LINES_FILE_MAX, NULL);
	if (pfd >= 0)
		close(pfd);
	return r;
}

/* One source line, tabs expanded (8 columns), cleaned, capped. */
static json_t *line_text(const char *p, size_t n)
{
	struct buf b = BUF_INIT;
	char *t;
	json_t *j;

	for (size_t i = 0; i < n && b.len < CHANGE_LINES_TEXT_MAX; i++) {
		if (p[i] != '\t') {
			buf_addch(&b, p[i]);
			continue;
		}
		do
			buf_addch(&b, ' ');
		while (b.len % 8);
	}
	t = utf8_clean(b.ptr, b.len, CHANGE_LINES_TEXT_MAX);
	j = json_string(t);
	free(t);
	buf_release(&b);
	return j;
}

/*
 * {"file", "line", "first", "lines", "changed"} for head lines [first,
 * last] of `file`, or NULL when the file is shorter than `line`.
 */
static json_t *excerpt_range(const struct diff_changeset *cs,
			     const char *file, int line, int first, int last,
			     const struct buf *src)
{
	json_t *text = json_array(), *changed = json_array();
	const char *p = src->ptr, *end = src->ptr + src->len;
	int no = 1;

	while (p < end && no <= last) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (no >= first) {
			json_array_append_new(text, line_text(p, n));
			if (diff_changeset_touches(cs, file, no))
				json_array_append_new(changed,
						      json_integer(no));
		}
		no++;
		p = nl ? nl + 1 : end;
	}
	if (no <= line) {	/* the file is shorter than the frame says */
		json_decref(text);
		json_decref(changed);
		return NULL;
	}
	return json_pack("{s:s,s:i,s:i,s:o,s:o}", "file", file, "line", line,
			 "first", first, "lines", text, "changed", changed);
}

/* CHANGE_LINES_CONTEXT lines either side of `line`. */
static json_t *excerpt(const struct diff_changeset *cs, const char *file,
		       int line, const struct buf *src)
{
	return excerpt_range(cs, file, line, line > CHANGE_LINES_CONTEXT ?
			     line - CHANGE_LINES_CONTEXT : 1,
			     line + CHANGE_LINES_CONTEXT, src);
}

/*
 * A moved change anchor (sarif/change_anchor.h): the lines around it,
 * "role": "anchor", reaching down (or up) to the crash line when that
 * lies within CHANGE_LINES_SPAN lines of it in the same file ("crash":
 * its number); else a second excerpt around the crash line ("role":
 * "crash") when its file is one the change touched.
 */
static void anchor_excerpts(json_t *a, int rootfd,
			    const struct diff_changeset *cs,
			    const struct finding *f)
{
	const struct change_anchor *an = f->anchor;
	int near = f->file && !strcmp(f->file, an->file) && f->line > 0 &&
		abs(f->line - an->line) <= CHANGE_LINES_SPAN;
	int lo = near && f->line < an->line ? f->line : an->line;
	int hi = near && f->line > an->line ? f->line : an->line;
	struct buf src = BUF_INIT;
	json_t *e;

	lo = lo > CHANGE_LINES_CONTEXT ? lo - CHANGE_LINES_CONTEXT : 1;
	if (read_source(&src, rootfd, an->file) == 0 &&
	    (e = excerpt_range(cs, an->file, an->line, lo,
			       hi + CHANGE_LINES_CONTEXT, &src))) {
		json_object_set_new(e, "role", json_string("anchor"));
		if (near)
			json_object_set_new(e, "crash",
					    json_integer(f->line));
		json_array_append_new(a, e);
	}
	crs_error_clear();	/* an unreadable file: no excerpt */
	buf_release(&src);
	if (near || !f->file || f->line < 1 || !diff_changeset_file(cs, f->file))
		return;
	if (read_source(&src, rootfd, f->file) == 0 &&
	    (e = excerpt(cs, f->file, f->line, &src))) {
		json_object_set_new(e, "role", json_string("crash"));
		json_array_append_new(a, e);
	}
	crs_error_clear();
	buf_release(&src);
}

static int seen(const struct finding *f, size_t upto)
{
	const struct finding_frame *fr = &f->stack[upto];

	for (size_t i = 0; i < upto; i++)
		if (f->stack[i].in_change && f->stack[i].line == fr->line &&
		    !strcmp(f->stack[i].file, fr->file))
			return 1;
	return 0;
}

json_t *change_lines_build(int rootfd, const struct diff_changeset *cs,
			   const struct finding_set *fs)
{
	json_t *all = json_object();

	for (size_t i = 0; cs && i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		json_t *a = json_array();

		if (change_anchor_moved(f->anchor) &&
		    diff_changeset_file(cs, f->anchor->file))
			anchor_excerpts(a, rootfd, cs, f);
		for (size_t k = 0; k < f->stack_nr &&
		     json_array_size(a) < CHANGE_LINES_PER_FINDING; k++) {
			const struct finding_frame *fr = &f->stack[k];
			struct buf src = BUF_INIT;
			json_t *e;

			if (!fr->in_change || !fr->file || fr->line < 1 ||
			    !diff_changeset_file(cs, fr->file) || seen(f, k))
				continue;
			if (read_source(&src, rootfd, fr->file) == 0 &&
			    (e = excerpt(cs, fr->file, fr->line, &src)))
				json_array_append_new(a, e);
			crs_error_clear();	/* an unreadable file: no excerpt */
			buf_release(&src);
		}
		if (json_array_size(a) && f->id)
			json_object_set_new(all, f->id, a);
		else
			json_decref(a);
	}
	return json_pack("{s:i,s:o}", "version", 1, "findings", all);
}

json_t *change_lines_load(const char *out_dir)
{
	struct buf b = BUF_INIT;
	json_t *doc = NULL, *all = NULL;
	int dirfd = -1;

	/* by descriptor, never through a link: a bundle may be hostile */
	if (fs_open_dir(&dirfd, out_dir) == 0 &&
	    fs_read_regular_at(&b, dirfd, "change-lines.json", NULL,
			       CHANGE_LINES_JSON_MAX, NULL) == 0)
		doc = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	crs_error_clear();	/* no excerpts: nothing to show */
	if (dirfd >= 0)
		close(dirfd);
	if (json_is_object(json_object_get(doc, "findings")))
		all = json_incref(json_object_get(doc, "findings"));
	json_decref(doc);
	buf_release(&b);
	return all;
}

char change_lines_mark(const json_t *e, json_int_t no)
{
	/* borrowed */
	const char *role = json_string_value(json_object_get(e, "role"));
	const json_t *changed = json_object_get(e, "changed");
	json_int_t line = json_integer_value(json_object_get(e, "line"));
	int anchor = role && !strcmp(role, "anchor");
	json_int_t crash = anchor ?
		json_integer_value(json_object_get(e, "crash")) : line;
	size_t k;
	json_t *c;

	if (no == crash)
		return '>';
	if (anchor && no == line)
		return '*';
	json_array_foreach(changed, k, c)
		if (json_integer_value(c) == no)
			return '+';
	return ' ';
}
