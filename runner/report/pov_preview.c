/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pov_preview.c - how the reports show a PoV: its bytes, how to rerun it
 *
 * The dump holds only hex digits, spaces, bars and printable ASCII, so
 * each renderer escapes it as any other text and no byte of the input
 * reaches a terminal or a page raw.
 */
#include "runner/report/pov_preview.h"
#include "runner/report/out_file.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <string.h>

static void dump_line(struct buf *b, const unsigned char *p, size_t n,
		      size_t off, const char *indent)
{
	buf_printf(b, "%s%08zx ", indent, off);
	for (size_t i = 0; i < 16; i++) {
		if (i == 8)
			buf_addch(b, ' ');
		if (i < n)
			buf_printf(b, " %02x", p[i]);
		else
			buf_adds(b, "   ");
	}
	buf_adds(b, "  |");
	for (size_t i = 0; i < n; i++)
		buf_addch(b, p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '.');
	buf_adds(b, "|\n");
}

int pov_preview(struct buf *b, const char *out_dir, const char *rel,
		size_t max, const char *indent, size_t *size)
{
	struct buf raw = BUF_INIT;
	int truncated = 0, r;

	*size = 0;
	r = out_file_head(&raw, out_dir, rel, max, &truncated, size);
	for (size_t off = 0; r == 0 && off < raw.len; off += 16)
		dump_line(b, (const unsigned char *)raw.ptr + off,
			  raw.len - off < 16 ? raw.len - off : 16, off,
			  indent);
	buf_release(&raw);
	return r;
}

char *pov_reproduce_cmd(const struct scan_summary *sm,
			const struct finding *f, const char *out_dir)
{
	if (!sm || !sm->head_build || !sm->runner_image || !f->pov_path ||
	    (f->novelty && !strcmp(f->novelty, "fixed-by-change")))
		return NULL;
	return xasprintf("docker run --rm -v %s:/out:ro -v %s/%s:/testcase:ro "
			 "%s reproduce %s", sm->head_build,
			 out_dir ? out_dir : ".", f->pov_path,
			 sm->runner_image, f->harness ? f->harness : "?");
}
