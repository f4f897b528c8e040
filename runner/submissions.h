/* SPDX-License-Identifier: Apache-2.0 */
/*
 * submissions.h - what the CRSs of a run submitted, walked safely
 */
#ifndef CRS_RUNNER_SUBMISSIONS_H
#define CRS_RUNNER_SUBMISSIONS_H

#include <stddef.h>
#include <sys/stat.h>

struct scan;

/* One submitted file; `crs_index` is its CRS's place in the compose. */
typedef void (*submission_fn)(const char *path, const struct stat *st,
			      size_t crs_index, const char *harness,
			      void *ctx);

/*
 * Call `fn` for every regular file in SUBMIT_DIR/<harness>/<typedir>/ of
 * every CRS and harness of the last run. The folders were writable by the
 * containers: entries are lstat'ed (links, FIFOs, folders and dot files
 * are passed over) and files larger than `max` bytes are logged and
 * skipped (`what` names them in the message: "PoV", "patch").
 */
void submissions_walk(struct scan *s, const char *typedir, off_t max,
		      const char *what, submission_fn fn, void *ctx);

#endif
