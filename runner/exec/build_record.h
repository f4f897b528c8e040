/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_record.h - the one record of what produced a build's outputs
 *
 * A JSON file beside the folder a container writes (out/, BUILD_OUT_DIR),
 * never in it: written once the build succeeded (or failed, for a failure
 * record), removed before it starts, and trusted only when it names
 * exactly the build about to be made. Details: docs/work-folder.md.
 */
#ifndef CRS_RUNNER_EXEC_BUILD_RECORD_H
#define CRS_RUNNER_EXEC_BUILD_RECORD_H

struct build_record {
	const char *image_id;	/* the source image compiled ("sha256:...") */
	const char *sanitizer;
	const char *project;
	const char *source_hash;	/* SHA-256 of the exported tree */
	const char *commit;
	/* a CRS build step's record only; NULL (and left out) otherwise */
	const char *step;	/* "<crs>/<step>" */
	const char *fetch_hash;	/* FETCH_DIR's tree hash, or "no-inputs" */
	const char *project_hash;	/* the project folder's tree hash */
};

/* A target build's record, beside out/. */
#define BUILD_RECORD_OUT "build.json"

/*
 * 1 when <dir>/<name> (`name` a file name, no slash) is a regular file
 * (not a link, not a FIFO; <dir> not a link) whose JSON is exactly
 * `want` (no field more or less); 0 otherwise, a missing or unreadable
 * record included. Cannot fail.
 */
int build_record_matches(const char *dir, const char *name,
			 const struct build_record *want);
/* Write <dir>/<name> for `rec` atomically; <dir> must exist. */
int build_record_write(const char *dir, const char *name,
		       const struct build_record *rec);
/* Remove <dir>/<name> (a link there is removed, not followed). */
int build_record_remove(const char *dir, const char *name);

#endif
