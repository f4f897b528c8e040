/* SPDX-License-Identifier: Apache-2.0 */
/*
 * github_publish.h - the privileged side of the two-job mode on GitHub
 *
 * A workflow_run job resolves the pull request from its event (never
 * from the untrusted run's artifacts), fetches its real diff and posts
 * the check run; the review itself goes through github_review_post().
 */
#ifndef CRS_RUNNER_REPORT_GITHUB_PUBLISH_H
#define CRS_RUNNER_REPORT_GITHUB_PUBLISH_H

#include "runner/report/github.h"

#define GITHUB_PR_FILES_PAGES_MAX 30	/* GitHub lists at most 3,000 */

/*
 * From the workflow_run event at env->event_path (a "pull_request" run):
 * its head repository, branch and SHA. The pull request is looked up with
 * GET /repos/{repository}/pulls?head=OWNER:BRANCH (workflow_run.
 * pull_requests is empty for forks) and accepted only when exactly one
 * open pull request of env->repository has that head repository and head
 * SHA. Fills env->pr and sets env->has_pr. 0; CRS_EINPUT when the event
 * or the lookup does not name one pull request (message says which);
 * CRS_ERR/CRS_ETIMEOUT on an HTTP failure.
 */
int github_pr_from_workflow_run(struct github_env *env, long timeout_ms);

/*
 * The hunks of env->pr's diff from GET .../pulls/{n}/files (each file's
 * "patch"), at most GITHUB_PR_FILES_PAGES_MAX pages of 100 files. A file
 * name with a control byte or ".." is left out. 0 or CRS_E*.
 */
int github_pr_hunks(struct diff_hunks *out, const struct github_env *env,
		    long timeout_ms);

/*
 * POST /repos/{repository}/check-runs: "crs-ci" on env->pr.head_sha,
 * completed with `conclusion` ("success", "failure", "neutral"), title
 * and summary as given (crs-ci's own text). 0 or CRS_E*.
 */
int github_check_run_post(const struct github_env *env,
			  const char *conclusion, const char *title,
			  const char *summary, long timeout_ms);

#endif
