/* SPDX-License-Identifier: Apache-2.0 */
/*
 * select_file.c - reading back the select phase's select.json
 *
 * One place that decides whether the file on disk speaks for this scan:
 * it must parse and name the head commit that was built.
 */
#include "runner/scan/select_file.h"
#include "runner/scan/scan.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <stdlib.h>
#include <string.h>

json_t *select_file_load(const struct scan *s)
{
	char *path = scan_work_path(s, "select.json");
	struct buf b = BUF_INIT;
	json_t *j = NULL;
	json_error_t jerr;
	const char *head;

	if (!fs_exists(path) || fs_read_file(&b, path, SELECT_FILE_MAX) != 0 ||
	    !(j = json_loadb(b.ptr, b.len, 0, &jerr)))
		goto out;
	/* borrowed */
	head = json_string_value(json_object_get(j, "head_commit"));
	if (!head || !s->state.head_commit ||
	    strcmp(head, s->state.head_commit)) {
		json_decref(j);
		j = NULL;
	}
out:
	crs_error_clear();
	buf_release(&b);
	free(path);
	return j;
}
