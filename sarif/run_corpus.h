/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_corpus.h - what each corpus source added to each harness's corpus
 *
 * results.json's "corpus" (docs/results.md), and the scan's record of the
 * same (<work>/corpus-import.json). Knows nothing of files or fetching:
 * runner/exec/corpus_import.c fills it, triage copies it into the
 * results, the reporters print one line of it.
 */
#ifndef CRS_SARIF_RUN_CORPUS_H
#define CRS_SARIF_RUN_CORPUS_H

#include <stddef.h>
#include <jansson.h>

struct buf;

struct run_corpus_source {
	char *source;		/* as shown: no user, password or query */
	size_t read;		/* inputs the source held for the harness */
	size_t kept;		/* new ones: not in an earlier source */
	size_t duplicate;	/* already kept from this or an earlier one */
	size_t passed_over;	/* too big, over a cap, or not regular */
	char *error;		/* why nothing was read (refused,
				 * unreachable), or NULL */
};

struct run_corpus_harness {
	char *harness;
	struct run_corpus_source *sources;
	size_t sources_nr;
};

struct run_corpus {
	struct run_corpus_harness *harnesses;
	size_t nr;
};

/* A new source record of harness `h` (zeroed, `source` copied). */
struct run_corpus_source *run_corpus_add(struct run_corpus_harness *h,
					 const char *source);
/* Free everything, `r` too. NULL is fine. */
void run_corpus_free(struct run_corpus *r);
/* The record as JSON (new reference). Cannot fail. */
json_t *run_corpus_to_json(const struct run_corpus *r);
/*
 * Read `j` into *out (the caller's, run_corpus_free): CRS_EINPUT naming
 * `source` and the field when one is missing or of the wrong type.
 */
int run_corpus_from_json(struct run_corpus **out, const json_t *j,
			 const char *source);
/*
 * One line for the verdict and summaries appended to `b`: "corpus: 5088
 * input(s) imported for 2 harness(es), 12 duplicate(s) left out, 1
 * source refused or unreachable"; nothing when `r` is NULL or empty.
 */
void run_corpus_line(struct buf *b, const struct run_corpus *r);

#endif
