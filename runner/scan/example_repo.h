/* SPDX-License-Identifier: Apache-2.0 */
/*
 * example_repo.h - the bundled recparse example, found and made a repo
 *
 * `crs-ci crs test` scans the example that `make demo` scans: the
 * examples folder (examples/ of the source tree, or share/crs-ci/examples
 * of an installation) holds recparse/ (the library and its pull request)
 * and projects/recparse (the OSS-Fuzz project).
 */
#ifndef CRS_RUNNER_SCAN_EXAMPLE_REPO_H
#define CRS_RUNNER_SCAN_EXAMPLE_REPO_H

/*
 * The examples folder: `opt` when given (--example), else
 * <dir of the crs-ci executable>/../examples, then
 * <dir>/../share/crs-ci/examples. *out is absolute, the caller's.
 * CRS_EINPUT naming what was looked at when none holds
 * recparse/ and projects/recparse/.
 */
int example_dir_find(char **out, const char *opt);

/*
 * Make the example's git repository in `dest` (which must not exist) as
 * examples/make-repo.sh does, with libgit2: branch main with commit
 * "base" (recparse/src, recparse/fuzz, README.md), branch pr (checked
 * out) with recparse/pr laid over it. *base_out and *head_out receive
 * the commit ids (hex), the caller's. 0 or CRS_ERR naming the step.
 */
int example_repo_make(const char *examples, const char *dest,
		      char **base_out, char **head_out);

#endif
