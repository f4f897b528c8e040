/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gitlab.h - GitLab CI reports and merge-request suggestions
 *
 * The only module that knows GitLab: Code Quality, SAST (schema 15.x) and
 * JUnit artifacts from a finding set, and MR discussion threads with
 * ```suggestion``` blocks through the REST API (api-scope token).
 */
#ifndef CRS_RUNNER_REPORT_GITLAB_H
#define CRS_RUNNER_REPORT_GITLAB_H

#include <stddef.h>
#include <jansson.h>

#define GITLAB_SAST_VERSION "15.0.7"	/* security-report-schemas */
#define GITLAB_CODE_QUALITY_FILE "gl-code-quality-report.json"
#define GITLAB_SAST_FILE "gl-sast-report.json"
#define GITLAB_JUNIT_FILE "junit.xml"

struct finding;
struct finding_set;

/* What the job knows about itself; every string borrowed, NULL unknown. */
struct gitlab_env {
	const char *api_url;	/* CI_API_V4_URL, ".../api/v4" */
	const char *project_id;	/* CI_PROJECT_ID */
	const char *mr_iid;	/* CI_MERGE_REQUEST_IID */
	const char *base_sha;	/* CI_MERGE_REQUEST_DIFF_BASE_SHA */
	const char *head_sha;	/* CI_COMMIT_SHA */
	const char *project_dir; /* CI_PROJECT_DIR */
	/* CRS_CI_GITLAB_TOKEN, else GITLAB_TOKEN (api scope; never
	 * CI_JOB_TOKEN, which cannot post notes). Never logged. */
	const char *token;
};

/* 1 when running in GitLab CI (GITLAB_CI=true), else 0. */
int gitlab_detect(void);
/* Fill `env` from the environment (getenv; borrowed). Cannot fail. */
void gitlab_env_load(struct gitlab_env *env);

/*
 * One REST call: `method` on `path` under env->api_url (`what` names it
 * in messages), JSON `body` or none, env->token as PRIVATE-TOKEN. 0 with
 * the body appended to `resp` when the status is `want`; CRS_EINPUT (no
 * API URL or token), CRS_ERR (transport failure, another status, with
 * GitLab's message) or CRS_ETIMEOUT. The token is in no message.
 */
struct buf;
int gitlab_request(const struct gitlab_env *env, const char *method,
		   const char *path, const char *what, const char *body,
		   long want, struct buf *resp);

/*
 * gitlab_request on "/projects/{id}/merge_requests/{iid}/{tail}" (`tail`
 * may carry a query), after checking that env names the API URL, the
 * project, a numeric MR iid and the token (CRS_EINPUT naming the missing
 * variable).
 */
int gitlab_mr_request(const struct gitlab_env *env, const char *method,
		      const char *tail, const char *body, long want,
		      struct buf *resp);

#ifdef UNIT_TESTS
/* info, minor, major, critical, blocker */
const char *gitlab_cq_severity(const struct finding *f);
/* Info, Low, Medium, High, Critical */
const char *gitlab_sast_severity(const struct finding *f);

/*
 * The SAST vulnerability id of a finding: a UUID v5 (SHA-1) of
 * "crs-ci:<finding id>" in the URL namespace, so it is stable across
 * runs. Writes 36 characters and a NUL into out.
 */
void gitlab_vuln_uuid(char out[37], const char *finding_id);

/*
 * The Code Quality report: a JSON array of {description, check_name,
 * fingerprint (the finding id), severity, location {path, lines {begin}}}
 * for every located finding the head still has (fixed-by-change ones are
 * left out: they are gone from head, and the MR widget shows them as
 * resolved from the base's report). New reference; cannot fail.
 */
json_t *gitlab_code_quality(const struct finding_set *fs);

/*
 * The SAST report (version GITLAB_SAST_VERSION): scan {analyzer,
 * scanner, type, status, start_time, end_time}, one vulnerability per
 * located finding the head still has, and an empty remediations array
 * (gitlab_report fills it).
 * New reference; cannot fail.
 */
json_t *gitlab_sast(const struct finding_set *fs);

/*
 * Add to `sast` a remediation for the finding `finding_id`: fixes [{id}],
 * `summary`, and diff = base64 of the `diff_len` bytes of `diff` (a patch
 * `git apply` takes). 0, CRS_ENOTFOUND when the report has no such
 * vulnerability, CRS_EINPUT when `sast` is not a SAST report or the diff
 * is empty.
 */
int gitlab_sast_add_remediation(json_t *sast, const char *finding_id,
				const char *summary, const char *diff,
				size_t diff_len);
#endif

/*
 * Write GITLAB_CODE_QUALITY_FILE, GITLAB_SAST_FILE (with each validated
 * patch as the remediation of the vulnerabilities it fixes) and
 * GITLAB_JUNIT_FILE into `out_dir` (created if missing), each atomically. `env` may be NULL
 * (it is not needed for the files). 0, or CRS_ERR naming the file.
 */
int gitlab_report(const struct finding_set *fs, const char *out_dir,
		  const struct gitlab_env *env);

/* --- merge-request discussions ------------------------------------------ */

/* The MR's diff_refs, from the newest entry of GET .../versions. */
struct gitlab_diff_refs {
	char *base_sha, *start_sha, *head_sha;
};
#ifdef UNIT_TESTS
void gitlab_diff_refs_release(struct gitlab_diff_refs *refs);
#endif

/* One suggested change on the head side of the MR diff. */
struct gitlab_suggestion {
	const char *path;	/* repo-relative, new path */
	const char *old_path;	/* NULL: same as path */
	int new_line;		/* line in head (> 0) */
	int old_line;		/* base line if unchanged, else 0 */
	int lines_below;	/* lines after new_line it replaces too */
	const char *message;	/* text above the suggestion */
	const char *replacement; /* the lines that replace new_line and the
				  * lines_below after it */
};

#ifdef UNIT_TESTS
/*
 * The note body: `message`, a blank line, then a ```suggestion:-0+N```
 * block (N = lines_below) holding `replacement`, fenced with more
 * backticks than any run inside it (at least 3). Caller frees.
 */
char *gitlab_suggestion_body(const char *message, const char *replacement,
			     int lines_below);

/*
 * GET {api_url}/projects/{id}/merge_requests/{iid}/versions and take the
 * newest version's base/start/head commit shas. Needs api_url,
 * project_id, mr_iid and token: CRS_EINPUT names the missing one.
 * CRS_ERR on a transport error or an HTTP status other than 200 (message
 * gives the status and GitLab's "message", never the token).
 */
int gitlab_mr_diff_refs(struct gitlab_diff_refs *out,
			const struct gitlab_env *env);

/*
 * POST {api_url}/projects/{id}/merge_requests/{iid}/discussions with a
 * JSON body {body, position {position_type "text", base_sha, start_sha,
 * head_sha, old_path, new_path, new_line[, old_line]}} and the token in
 * the PRIVATE-TOKEN header. 0 on HTTP 201; errors as gitlab_mr_diff_refs.
 */
int gitlab_mr_post_suggestion(const struct gitlab_env *env,
			      const struct gitlab_diff_refs *refs,
			      const struct gitlab_suggestion *s);
#endif

/*
 * Every hunk of a validated patch in `fs` (runner/report/suggest.h) that
 * lies inside one hunk of the change `cs` posted as an MR discussion
 * with a suggestion at the MR's current diff refs (old_line given for a
 * line the change left alone, as GitLab wants). *posted_out counts the
 * discussions, *outside_out the hunks left out (outside the change, or
 * no change known); the patches stay in the SAST report's remediations.
 * 0, or the first error (CRS_EINPUT: the job lacks the token, project or
 * MR; CRS_ERR: the API answered otherwise).
 */
struct diff_changeset;
int gitlab_post_suggestions(const struct finding_set *fs,
			    const struct gitlab_env *env,
			    const struct diff_changeset *cs,
			    size_t *posted_out, size_t *outside_out);

/*
 * One discussion on the merge request per finding of `fs` failing
 * `policy` beside lines the change removed (removal_review.h): on the
 * last removed line (old_line only, the diff's old side), where no
 * report places it otherwise. *posted counts them. 0, or the first
 * error (its message kept).
 */
int gitlab_post_removal_notes(const struct finding_set *fs,
			      const struct gitlab_env *env,
			      const struct diff_changeset *cs,
			      const char *policy, size_t *posted);

#endif
