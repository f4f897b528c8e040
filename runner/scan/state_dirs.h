/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_dirs.h - crs-ci's own folders (work, output, cache) kept out of
 * the checkout under test
 *
 * A folder inside the pull request's checkout is the pull request's to
 * write: crs-ci refuses one there, one given as a link, and one that
 * holds links crs-ci did not make, and it empties an output folder it
 * made before by descriptor. Details: docs/work-folder.md.
 */
#ifndef CRS_RUNNER_SCAN_STATE_DIRS_H
#define CRS_RUNNER_SCAN_STATE_DIRS_H

/* What a folder is for: each kind allows different links inside it. */
enum state_dir_kind {
	STATE_DIR_WORK,		/* links below its top level are crs-ci's */
	STATE_DIR_OUT,		/* no link anywhere in it */
	STATE_DIR_CACHE,	/* the folder itself (cache.c reads inside) */
};

/*
 * The folder a scan uses for `name` ("work" or "out") when the option is
 * not given: crs-ci-<name> in the current folder when that lies outside
 * the checkout of `source` (absolute), else
 * <state>/<basename of source>-<hash of its path>/<name>, <state> being
 * $RUNNER_TEMP/crs-ci, $XDG_CACHE_HOME/crs-ci, $HOME/.cache/crs-ci or
 * ${TMPDIR:-/tmp}/crs-ci-<uid>, the first whose variable is set. Caller
 * frees.
 */
char *state_dir_default(const char *source, const char *name);

/*
 * Refuse (CRS_EINPUT, naming `opt`, the path, why and what to do) the
 * folder `path` (as given) of `kind` when it lies inside `source`
 * (absolute) or the git work tree `source` belongs to (its .git folder
 * excepted), is a link or not a folder, or holds links of the kind's
 * sort. A missing folder is fine.
 */
int state_dir_check(const char *opt, const char *path, const char *source,
		    enum state_dir_kind kind);

/*
 * Make the output folder `dir` (absolute, checked) fresh for a scan's
 * results: created (0755) when missing; emptied through descriptors
 * (unlinkat, O_NOFOLLOW, nothing followed) when it holds the mark
 * crs-ci leaves in it (.crs-ci-out) or an older crs-ci's results.json;
 * refused (CRS_EINPUT) when it holds anything else, or a link. Leaves the
 * mark.
 */
int state_dir_out_fresh(const char *dir);

#endif
