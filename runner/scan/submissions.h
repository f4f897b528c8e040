/* SPDX-License-Identifier: Apache-2.0 */
/*
 * submissions.h - what the CRSs of a run submitted, walked safely
 */
#ifndef CRS_RUNNER_SCAN_SUBMISSIONS_H
#define CRS_RUNNER_SCAN_SUBMISSIONS_H

#include <stddef.h>
#include <sys/stat.h>

struct scan;

#define SUBMISSIONS_FILES_MAX 1000	/* files taken from one folder */
#define SUBMISSIONS_ENTRIES_MAX 100000	/* entries looked at in one folder */
#define SUBMISSIONS_BYTES_MAX (256u << 20)	/* bytes from one folder */

/* One submitted file, read into memory; everything here is borrowed. */
struct submission {
	const char *name;	/* its file name: no control characters */
	const char *what;	/* a printable label for messages */
	const char *data;	/* its contents, NUL-terminated */
	size_t len;
	const struct stat *st;	/* of the opened file */
	size_t crs_index;	/* its CRS's place in the compose */
	const char *harness;
};

typedef void (*submission_fn)(const struct submission *sub, void *ctx);

/*
 * Call `fn` for every regular file in SUBMIT_DIR/<harness>/<typedir>/ of
 * every CRS and harness of the last run. The folders were writable by the
 * containers, so each component is opened with O_DIRECTORY|O_NOFOLLOW (a
 * `povs/` swapped for a link is refused), entries are opened through the
 * folder's descriptor with O_NOFOLLOW|O_NONBLOCK and fstat'ed (links,
 * FIFOs, devices, folders and dot files are passed over), and caps hold:
 * `max` bytes per file, SUBMISSIONS_FILES_MAX files and
 * SUBMISSIONS_BYTES_MAX bytes per folder. Names with control characters
 * are refused; everything refused is logged quoted. `what` names the
 * files in messages ("PoV", "patch").
 */
void submissions_walk(struct scan *s, const char *typedir, off_t max,
		      const char *what, submission_fn fn, void *ctx);

#ifdef UNIT_TESTS
/*
 * The same walk over one folder `root`/<typedir> (root: a SUBMIT_DIR/<h>
 * that crs-ci made), calling fn with `crs_index` and `harness`.
 */
void submissions_walk_dir(const char *root, const char *typedir, off_t max,
			  const char *what, size_t crs_index,
			  const char *harness, submission_fn fn, void *ctx);
#endif

#endif
