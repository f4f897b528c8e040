/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_anchor.h - the changed line a finding's PoV executed nearest
 * its crash
 *
 * A typical regression crashes below the line it changed (a bounds
 * check edited at 448 lets line 450 overflow). Forges show alerts and
 * annotations only on a pull request's changed lines, so every report
 * places a finding whose crash site lies outside the change on its
 * *change anchor*: the changed line its PoV executed nearest the crash
 * (results.json "change_anchor", docs/results.md). Knows nothing of
 * containers or llvm-cov: the executed lines come in, a choice goes
 * out.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#ifndef CRS_SARIF_CHANGE_ANCHOR_H
#define CRS_SARIF_CHANGE_ANCHOR_H

#include <stddef.h>
#include <jansson.h>

struct buf;
struct finding;

/* How the anchor was chosen (results.json "change_anchor.how"). */
#define ANCHOR_CRASH_SITE "crash-site"		/* the crash line is changed */
#define ANCHOR_CRASH_FUNCTION "crash-function"	/* in the crashing function */
#define ANCHOR_CALLER "caller"			/* in a caller on the stack */
#define ANCHOR_EXECUTED "executed"		/* executed, off the stack */
#define ANCHOR_NOT_EXECUTED "not-executed"	/* the PoV ran no changed
						 * line: at the crash site */
#define ANCHOR_UNMEASURED "unmeasured"		/* its coverage is unknown:
						 * at the crash site */

/* Executed changed lines of one file, per anchor, all files together. */
#define ANCHOR_LINES_MAX 65536

/* The changed lines of one file a PoV executed. */
struct anchor_file {
	char *path;		/* repo-relative */
	int *lines;		/* ascending, unique, >= 1 */
	size_t nr;
};

struct change_anchor {
	char *how;		/* one of ANCHOR_* */
	char *file;		/* repo-relative; NULL when the finding has no
				 * file of the project at all */
	int line;		/* 1-based; 0 with file NULL */
	char *function;		/* the function holding it, or NULL */
	int frame;		/* the stack frame whose function holds it
				 * (crash-site, crash-function, caller), or
				 * -1 */
	char *reason;		/* unmeasured: why, one line; else NULL */
	struct anchor_file *executed;	/* what the PoV executed of the
					 * change, sorted by path */
	size_t executed_nr;
};

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

void change_anchor_free(struct change_anchor *a);

/* A deep copy (NULL for NULL). */
struct change_anchor *change_anchor_dup(const struct change_anchor *a);

/*
 * 1 when `a` moves the finding's location off its crash site onto a
 * changed line (crash-function, caller, executed): reports place it
 * there. 0 for NULL.
 */
int change_anchor_moved(const struct change_anchor *a);

/* 1 when `a` lists `line` of `path` as executed. */
int change_anchor_executed(const struct change_anchor *a, const char *path,
			   int line);

/*
 * Where reports place f: its anchor's file and *line_out when the anchor
 * moved it, else f's own (crash site) file and line. NULL (line 0) when
 * f has no file. *moved_out (may be NULL): 1 for a moved anchor.
 */
const char *change_anchor_place(const struct finding *f, int *line_out,
				int *moved_out);

/* One phrase for reports: "the changed line nearest the crash in its
 * caller", "no changed line ran on the PoV", ... (static). */
const char *change_anchor_how_text(const struct change_anchor *a);

/*
 * Append "this change leads to a heap-buffer-overflow WRITE 4 at
 * src/x.c:1197 in parse" (f's crash type and crash site; "This" when
 * `capital`) to b: the words every report puts on a moved anchor. Text
 * as stored: the caller escapes for its sink. Cannot fail.
 */
void change_anchor_lead_text(struct buf *b, const struct finding *f,
			     int capital);

/* results.json's "change_anchor" object (new reference). */
json_t *change_anchor_to_json(const struct change_anchor *a);

/*
 * Read a "change_anchor" object of a finding with `stack_nr` frames;
 * messages name `src` and `at` ("results.json: findings[2].change_anchor.
 * line: expected an integer >= 1"). 0, or CRS_EINPUT (*out untouched).
 */
int change_anchor_from_json(struct change_anchor **out, const json_t *j,
			    size_t stack_nr, const char *src, const char *at);

#endif
