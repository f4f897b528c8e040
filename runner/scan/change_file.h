/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_file.h - stage the change's machine-readable files for CRSs
 *
 * Beside diffs/ref.diff, in every fetch folder crs-ci fills (the build
 * steps' and the run phase's), a change scan gets diffs/change.json
 * (files, changed lines, touched functions, literals; see
 * docs/change-file.md) and diffs/change.dict (the literals as a
 * libFuzzer/AFL++ dictionary).
 */
#ifndef CRS_RUNNER_SCAN_CHANGE_FILE_H
#define CRS_RUNNER_SCAN_CHANGE_FILE_H

struct scan;

/*
 * Write change.json and change.dict (when the change has literals; a
 * stale one is removed otherwise) into `dir`, a folder of crs-ci's own
 * that exists. The head files come from the head commit's blobs in the
 * scan's repository (s->state.head_commit for a --diff change). Nothing
 * to do in full mode. Returns 0 or the CRS_E* code of the step that
 * failed (libgit2, the write).
 */
int change_file_write(struct scan *s, const char *dir);

#endif
