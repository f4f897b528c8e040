/* SPDX-License-Identifier: Apache-2.0 */
/*
 * anchor_pick.h - choosing a finding's change anchor, and where reports
 * place the finding
 *
 * Knows nothing of containers or llvm-cov: the changed lines a PoV
 * executed come in, a choice goes out (sarif/change_anchor.h holds it).
 *
 * Details: docs/results.md ("The change anchor").
 */
#ifndef CRS_SARIF_ANCHOR_PICK_H
#define CRS_SARIF_ANCHOR_PICK_H

#include "sarif/change_anchor.h"

struct buf;
struct finding;

/*
 * Where a function around `line` of `file` starts and ends, and its name
 * (borrowed, may be NULL): 1 when known, 0 when not (not C, C++ or
 * Java, or no function there).
 */
typedef int (*anchor_span_fn)(void *ctx, const char *file, int line,
			      int *start, int *end, const char **name);

/*
 * Choose f's anchor from `exec` (exec_nr files, each sorted; NULL for
 * none), the changed lines its PoVs executed; `span` (may be NULL) says
 * which function a line lies in. In this order: the crash line itself
 * when it is a changed line (crash-site); the executed changed line
 * nearest the crash line inside the crashing function (crash-function);
 * the nearest to the call site in the innermost caller on the stack that
 * has one (caller); the nearest executed changed line above the crash
 * in the crash's file, else the first one (executed); with none at all,
 * the crash site (not-executed). Nearest: the smallest distance, a line
 * above winning a tie. Copies `exec`. Cannot fail; free with
 * change_anchor_free.
 */
struct change_anchor *change_anchor_pick(const struct finding *f,
					 const struct anchor_file *exec,
					 size_t exec_nr, anchor_span_fn span,
					 void *ctx);

/* The crash site, labelled unmeasured with `reason` (copied). */
struct change_anchor *change_anchor_unmeasured(const struct finding *f,
					       const char *reason);

/*
 * Where reports place f: its anchor's file and *line_out when the anchor
 * moved it, else f's own (crash site) file and line. NULL (line 0) when
 * f has no file. *moved_out (may be NULL): 1 for a moved anchor.
 */
const char *change_anchor_place(const struct finding *f, int *line_out,
				int *moved_out);

/*
 * Append "this change leads to a heap-buffer-overflow WRITE 4 at
 * src/x.c:1197 in parse" (f's crash type and crash site; "This" when
 * `capital`) to b: the words every report puts on a moved anchor. Text
 * as stored: the caller escapes for its sink. Cannot fail.
 */
void change_anchor_lead_text(struct buf *b, const struct finding *f,
			     int capital);

#endif
