/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_anchor.h - the changed line a finding's PoV executed nearest
 * its crash, where reports place a finding whose crash site lies outside
 * the change (forges show alerts only on changed lines)
 *
 * The record and its results.json form; sarif/anchor_pick.h chooses it.
 * Details: docs/results.md ("The change anchor").
 */
#ifndef CRS_SARIF_CHANGE_ANCHOR_H
#define CRS_SARIF_CHANGE_ANCHOR_H

#include <stddef.h>
#include <jansson.h>


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

void change_anchor_free(struct change_anchor *a);

/* Replace a's executed lines with a copy of `e` (n files, empty ones
 * left out). Cannot fail. */
void change_anchor_set_executed(struct change_anchor *a,
				const struct anchor_file *e, size_t n);

/* The executed lines of `path` in `a`, borrowed, or NULL. */
const struct anchor_file *change_anchor_file(const struct change_anchor *a,
					    const char *path);

/*
 * 1 when `a` moves the finding's location off its crash site onto a
 * changed line (crash-function, caller, executed): reports place it
 * there. 0 for NULL.
 */
int change_anchor_moved(const struct change_anchor *a);

/* One phrase for reports: "the changed line nearest the crash in its
 * caller", "no changed line ran on the PoV", ... (static). */
const char *change_anchor_how_text(const struct change_anchor *a);

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
