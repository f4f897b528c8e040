/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pov_preview.h - how the reports show a PoV: its bytes, how to rerun it
 *
 * The proof is the input: report.html, the job summary and the terminal
 * show its first bytes beside the crash, as `hexdump -C` prints them, and
 * the one command that runs it on the head build.
 */
#ifndef CRS_RUNNER_REPORT_POV_PREVIEW_H
#define CRS_RUNNER_REPORT_POV_PREVIEW_H

#include <stddef.h>

struct buf;
struct finding;
struct scan_summary;

/* bytes of a PoV report.html and the job summary show, at most */
#define POV_PREVIEW_BYTES 128

/*
 * Append the first `max` bytes of the PoV <out_dir>/<rel> (out_file_head)
 * to `b` as hex dump lines of 16 bytes: offset, the bytes in hex, then
 * between bars each printable ASCII byte as itself and any other as '.'.
 * Each line starts with `indent` and ends with '\n'. *size gets the PoV's
 * size. 0, or nonzero when it cannot be read (nothing appended).
 */
int pov_preview(struct buf *b, const char *out_dir, const char *rel,
		size_t max, const char *indent, size_t *size);

/*
 * The `docker run` command that runs finding f's PoV (under `out_dir`)
 * on the head build the summary names (caller frees; raw text, each
 * renderer escapes it), or NULL: no build or PoV recorded, or a finding
 * fixed by the change (it crashes only the base).
 */
char *pov_reproduce_cmd(const struct scan_summary *sm,
			const struct finding *f, const char *out_dir);

#endif
