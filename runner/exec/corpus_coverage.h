/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_coverage.h - --mode coverage: the whole project's coverage by its corpus
 *
 * ClusterFuzzLite's coverage mode: every harness's corpus replayed on
 * the coverage build, joined per repository file, written to
 * <out>/coverage/ (coverage.lcov, index.html, history.json); with a
 * store, the history lives in its coverage/history.json and the new
 * point is pushed with it. Details: docs/corpus.md.
 */
#ifndef CRS_RUNNER_EXEC_CORPUS_COVERAGE_H
#define CRS_RUNNER_EXEC_CORPUS_COVERAGE_H

struct scan;

/*
 * Measure and write. A store's history that does not read is a warning
 * (it starts again). Errors: CRS_EBUILD when the coverage build fails,
 * CRS_EINTR, CRS_EENGINE, write failures.
 */
int corpus_coverage_all(struct scan *s);

#endif
