/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_import.h - the scan's corpus sources merged per harness
 *
 * --corpus (folders, archives, URLs) and --oss-fuzz-corpus (OSS-Fuzz's
 * public backups) read once per scan into <work>/corpus-in/<harness>/,
 * content-addressed and deduplicated (runner/corpus/). Selection replays
 * it with the rest of the corpus; the run hands it to every CRS. Details:
 * docs/corpus.md.
 */
#ifndef CRS_RUNNER_EXEC_CORPUS_IMPORT_H
#define CRS_RUNNER_EXEC_CORPUS_IMPORT_H

struct scan;
struct run_corpus;

/*
 * Read every source for every harness of the head build, once per scan
 * (later calls return 0 at once): a source that is missing, unreachable
 * or refused is a warning naming it and the reason, never an error; what
 * each added is logged and recorded in <work>/corpus-import.json
 * (sarif/run_corpus.h). Errors: CRS_EINTR, and write failures in crs-ci's
 * own folders.
 */
int corpus_import(struct scan *s);

/*
 * The folder of `harness`'s imported inputs (caller frees) when the scan
 * imported some, else NULL. Cannot fail.
 */
char *corpus_import_dir(struct scan *s, const char *harness);

/*
 * Copy `harness`'s imported inputs into `seeds_dir` (the exchange's seeds
 * folder, crs-ci's own), which hands them to every CRS. 0 or CRS_ERR.
 */
int corpus_import_in(struct scan *s, const char *harness,
		     const char *seeds_dir);

/*
 * --mode batch with a store: add the regular files of `seeds_dir` (the
 * harness's corpus after its run) to the store's next commit. Otherwise
 * nothing. 0 or CRS_ERR.
 */
int corpus_import_grow(struct scan *s, const char *harness,
		       const char *seeds_dir);
/*
 * --mode batch with a store: commit what corpus_import_grow added and
 * push it (nothing added: nothing pushed). 0, or CRS_ERR naming the store.
 */
int corpus_import_push(struct scan *s);

/*
 * The record corpus_import wrote for this scan into *out (the caller's,
 * run_corpus_free), or NULL when it imported nothing. 0, or CRS_EINPUT
 * for a record that does not read.
 */
int corpus_import_load(struct scan *s, struct run_corpus **out);

#endif
