/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project_cov.h - the whole project's line coverage by its corpus, and its trend
 *
 * What --mode coverage measures (docs/corpus.md): per repository file, the
 * lines the coverage build instruments and those the corpus ran (all
 * harnesses together), and one point per coverage run kept in the corpus
 * store (coverage/history.json), so a maintainer sees whether a campaign
 * still grows. Knows no containers; the history is hostile input (a
 * store anyone with push access writes) and is read field by field.
 */
#ifndef CRS_SARIF_PROJECT_COV_H
#define CRS_SARIF_PROJECT_COV_H

#include <stddef.h>
#include <jansson.h>

struct project_cov_file {
	char *path;		/* repository-relative */
	size_t lines;		/* instrumented */
	size_t hit;		/* of them, run at least once */
};

/* One coverage run. */
struct project_cov_point {
	char *at;		/* RFC 3339 UTC */
	char *commit;		/* the head commit measured, 40 hex */
	size_t lines, hit;	/* the project's totals */
	size_t inputs;		/* corpus inputs replayed */
};

struct project_cov {
	struct project_cov_file *files;	/* sorted by path */
	size_t nr;
	size_t lines, hit;		/* totals */
	struct project_cov_point *history;	/* oldest first */
	size_t history_nr;
};

/* at most this many points are kept: the oldest go first */
#define PROJECT_COV_HISTORY_MAX 200

/* Free everything in `c` (not `c`) and zero it. */
void project_cov_release(struct project_cov *c);
/* Append a point (strings copied), dropping the oldest past the cap. */
void project_cov_add_point(struct project_cov *c, const char *at,
			   const char *commit, size_t lines, size_t hit,
			   size_t inputs);
/* The history as JSON (new reference): {"points": [...]}. */
json_t *project_cov_history_to_json(const struct project_cov *c);
/*
 * Read a history (`j`, from `source`) into c->history, replacing it:
 * CRS_EINPUT naming the field for anything not as written above
 * (at most PROJECT_COV_HISTORY_MAX points, the newest kept).
 */
int project_cov_history_from_json(struct project_cov *c, const json_t *j,
				  const char *source);

#endif
