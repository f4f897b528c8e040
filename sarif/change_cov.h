/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_cov.h - how many of a change's lines fuzzing executed
 *
 * results.json's "change_coverage"; knows nothing of containers or
 * llvm-cov.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#ifndef CRS_SARIF_CHANGE_COV_H
#define CRS_SARIF_CHANGE_COV_H

#include <stddef.h>
#include <jansson.h>

struct buf;

/* Changed lines read per results.json, all files together. */
#define CHANGE_COV_LINES_MAX (1u << 20)
/* Ranges of "not reached" shown in the one-line summary. */
#define CHANGE_COV_SHOWN 8

enum change_cov_state {
	CHANGE_COV_NONE = 0,	/* not executable (no code there) */
	CHANGE_COV_MISSED,	/* executable, never executed */
	CHANGE_COV_HIT,		/* executed at least once */
};

/* One changed file: its changed head lines and their states. */
struct change_cov_file {
	char *path;		/* repo-relative */
	int *lines;		/* ascending, unique */
	unsigned char *state;	/* enum change_cov_state per line */
	size_t nr, alloc;
};

struct change_cov_range {
	const char *file;	/* borrowed from the files[] entry */
	int start, end;
};

struct change_cov_harness {
	char *name;
	size_t lines;		/* changed executable lines it executed */
};

struct change_cov {
	char *unknown;		/* why coverage is unknown, or NULL */
	size_t lines_total;	/* executable changed lines */
	size_t lines_executed;
	struct change_cov_file *files;	/* sorted by path */
	size_t files_nr, files_alloc;
	struct change_cov_range *not_reached;	/* from change_cov_finish */
	size_t not_reached_nr;
	struct change_cov_harness *by_harness;	/* sorted by name */
	size_t by_harness_nr;
	int around_removals;	/* 1: the change only removed lines; its
				 * lines are the head lines just before
				 * and after each removal */
};

/* A new, empty measurement. Cannot fail; free with change_cov_free. */
struct change_cov *change_cov_new(void);
void change_cov_free(struct change_cov *c);

/* Mark the measurement unknown, with a one-line reason (copied). */
void change_cov_set_unknown(struct change_cov *c, const char *reason);

/*
 * Add changed line `line` of `path` with `state`; an already present
 * line keeps the higher state (HIT > MISSED > NONE). Returns 1 when that
 * made the line executed, else 0. Cannot fail.
 */
int change_cov_add(struct change_cov *c, const char *path, int line,
		    enum change_cov_state state);

/*
 * Record that `harness` executed `lines` changed lines (a harness already
 * present keeps the larger count). Cannot fail.
 */
void change_cov_add_harness(struct change_cov *c, const char *harness,
			    size_t lines);

/*
 * Sort, then compute lines_total, lines_executed and not_reached: runs
 * of missed lines, a range spanning changed non-executable lines between
 * them (a comment inside an added block), never an executed line or an
 * unchanged one. Cannot fail.
 */
void change_cov_finish(struct change_cov *c);

/*
 * "fuzzing executed 31 of 39 changed lines; not reached: src/x.c:120-131,
 * src/x.c:140 and 3 more" (at most CHANGE_COV_SHOWN ranges), or
 * "fuzzing's coverage of the changed lines is unknown: <reason>",
 * appended to b. Paths are shown as stored: the caller escapes for its
 * sink. Cannot fail.
 */
void change_cov_line(struct buf *b, const struct change_cov *c);

/*
 * Fold `from` into `into` (both finished): a line is executed when either
 * executed it; by_harness is the union. Unknown when either is. Cannot
 * fail; `into` is finished again.
 */
void change_cov_merge(struct change_cov *into, const struct change_cov *from);

/* results.json's "change_coverage" object (new reference). Cannot fail. */
json_t *change_cov_to_json(const struct change_cov *c);

/*
 * Read a "change_coverage" object; `src` names the document in messages
 * ("results.json: change_coverage.files[0].executed: ..."). 0, or
 * CRS_EINPUT (*out untouched). *out owned by the caller.
 */
int change_cov_from_json(struct change_cov **out, const json_t *j,
			 const char *src);

#endif
