/* SPDX-License-Identifier: Apache-2.0 */
/*
 * change_file.c - write diffs/change.json and diffs/change.dict
 *
 * The glue between the scan and diff/: which functions the change
 * touched (from the head commit's blobs, never from a checkout a build
 * could have changed), which literals its added lines hold, rendered and
 * written atomically into a folder crs-ci owns and mounts read-only.
 */
#include "runner/scan/change_file.h"
#include "runner/scan/scan.h"
#include "diff/change_json.h"
#include "diff/changeset.h"
#include "diff/literals.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

int change_file_write(struct scan *s, const char *dir)
{
	struct diff_changeset head_cs;
	struct diff_literals lit = DIFF_LITERALS_INIT;
	struct diff_touched *t = NULL;
	char *json = NULL, *dict = NULL, *path = NULL;
	size_t len = 0;
	int r = 0;

	if (!s->change)
		return 0;
	head_cs = *s->change;	  /* borrowed fields, never freed */
	if (!head_cs.head_commit) /* --diff: the tree that is built */
		head_cs.head_commit = s->state.head_commit;
	if ((r = diff_changeset_touched_functions(&t, &head_cs, s->source_dir,
						  NULL, NULL)) != 0 ||
	    (r = diff_changeset_literals(&lit, s->change)) != 0 ||
	    (r = diff_change_json(&json, &len, s->change, t, &lit)) != 0)
		goto out;
	path = xasprintf("%s/change.json", dir);
	if ((r = fs_write_file_atomic(path, json, len)) != 0)
		goto out;
	free(path);
	path = xasprintf("%s/change.dict", dir);
	/* the added lines' literals first, then the touched functions'
	   and their callees' (libFuzzer reads a dictionary in order) */
	dict = diff_literals_dict((const struct diff_literals *[]){
					     &lit, t->body, t->callees },
				     3);
	r = dict ? fs_write_file_atomic(path, dict, strlen(dict)) :
		   fs_remove_tree(path);
	if (r == 0)
		log_debug("change file: %zu function(s), %zu literal(s) "
			  "(+ %zu of the functions, %zu of their callees), "
			  "%zu comparison(s)",
			  t->nr, lit.nr, t->body->nr, t->callees->nr,
			  lit.comparisons);
out:
	free(path);
	free(dict);
	free(json);
	diff_touched_free(t);
	diff_literals_release(&lit);
	return r == 0 ? 0 : crs_error_prefix("change.json");
}
