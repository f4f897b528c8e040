/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_record.c - the one record of what produced a build's outputs
 *
 * A JSON object compared whole (json_equal), so any field that differs,
 * is missing or is added makes the build a stranger.
 *
 * Details: docs/work-folder.md.
 */
#include "runner/exec/build_record.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILD_RECORD_FORMAT "crs-ci build record 1"
#define BUILD_RECORD_MAX 65536

/* The record's JSON; NULL when a field every record has is NULL. */
static json_t *record_json(const struct build_record *rec)
{
	/* s*: the key is left out when the value is NULL */
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s*, s:s*, s:s*}",
			 "format", BUILD_RECORD_FORMAT,
			 "image", rec->image_id, "sanitizer", rec->sanitizer,
			 "project", rec->project, "source", rec->source_hash,
			 "commit", rec->commit, "step", rec->step,
			 "fetch", rec->fetch_hash,
			 "project_tree", rec->project_hash);
}

int build_record_matches(const char *dir, const char *name,
			 const struct build_record *want)
{
	struct buf b = BUF_INIT;
	json_t *got = NULL, *exp = record_json(want);
	int dfd = -1, yes = 0;

	if (exp && fs_open_dir(&dfd, dir) == 0 &&
	    !strchr(name, '/') &&
	    fs_read_regular_at(&b, dfd, name, NULL,
			       BUILD_RECORD_MAX, NULL) == 0 &&
	    (got = json_loadb(b.ptr ? b.ptr : "", b.len, 0, NULL)))
		yes = json_equal(got, exp);
	crs_error_clear();	/* no record is no match, not an error */
	if (dfd >= 0)
		close(dfd);
	json_decref(got);
	json_decref(exp);
	buf_release(&b);
	return yes;
}

int build_record_write(const char *dir, const char *name,
		       const struct build_record *rec)
{
	json_t *j = record_json(rec);
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	char *path = xasprintf("%s/%s", dir, name);
	int r;

	if (!text)
		r = crs_error_set(CRS_ERR, "%s: cannot write the record", path);
	else
		r = fs_write_file_atomic(path, text, strlen(text));
	free(text);
	free(path);
	json_decref(j);
	return r;
}

int build_record_remove(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r = fs_remove_tree(path);

	free(path);
	return r;
}
