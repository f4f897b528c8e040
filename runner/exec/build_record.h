/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_record.h - the one record of what produced a build's out/ folder
 *
 * <work>/builds/<sanitizer>/<which>/build.json, beside out/ (which the
 * compile container writes; this file it cannot reach): written by crs-ci
 * once a compile (or a restore from the cache) succeeded, removed before
 * either starts. out/ is reused only when the record names exactly the
 * build about to be made. Details: docs/work-folder.md.
 */
#ifndef CRS_RUNNER_EXEC_BUILD_RECORD_H
#define CRS_RUNNER_EXEC_BUILD_RECORD_H

struct build_record {
	const char *image_id;	/* the source image compiled ("sha256:...") */
	const char *sanitizer;
	const char *project;
	const char *source_hash;	/* SHA-256 of the exported tree */
	const char *commit;
};

/*
 * 1 when <dir>/build.json is a regular file (not a link) whose JSON is
 * exactly `want` (no field more or less); 0 otherwise, a missing or
 * unreadable record included. Cannot fail.
 */
int build_record_matches(const char *dir, const struct build_record *want);
/* Write <dir>/build.json for `rec` atomically; <dir> must exist. */
int build_record_write(const char *dir, const struct build_record *rec);
/* Remove <dir>/build.json (a link there is removed, not followed). */
int build_record_remove(const char *dir);

#endif
