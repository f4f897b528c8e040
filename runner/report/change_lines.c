/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_lines.c - the changed lines around each finding, for the report
 *
 * For every finding's stack frames on lines the change added, a few
 * lines of the head source around the frame's line, with the changed
 * ones listed: change-lines.json, which report.html shows. The file
 * names come from sanitizer output (hostile), so only files the change
 * touched are read, below the source folder's descriptor, never through
 * a link, size-capped. docs/results.md has the format.
 */
#include "runner/report/change_lines.h"
#include "diff/changeset.h"
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

/* {"file", "line", "first", "lines", "changed"} around `line`, or NULL. */
static json_t *excerpt(const struct diff_changeset *cs, const char *file,
		       int line, const struct buf *src)
{
	int first = line > CHANGE_LINES_CONTEXT ? line - CHANGE_LINES_CONTEXT :
		1, last = line + CHANGE_LINES_CONTEXT, no = 1;
	json_t *text = json_array(), *changed = json_array();
	const char *p = src->ptr, *end = src->ptr + src->len;

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
