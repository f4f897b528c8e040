/* SPDX-License-Identifier: Apache-2.0 */
/*
 * github.h - reporting a scan to GitHub Actions and GitHub's REST API
 *
 * The only module that knows GitHub: the Actions environment and event
 * file, workflow-command annotations, the job summary, step outputs, the
 * code-scanning SARIF upload and pull-request reviews with suggestions.
 * Formats and limits: /work/shared/reference/ci-formats.md §1, §2, §8.
 */
#ifndef CRS_RUNNER_REPORT_GITHUB_H
#define CRS_RUNNER_REPORT_GITHUB_H

#include "runner/report/suggest.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct buf;
struct finding_set;

#define GITHUB_ANNOTATIONS_MAX 10	/* per type (error, warning) per step */
/* findings annotated per kind; the rest of the cap is kept for the
 * overflow notice and github_report()'s upload/review notes */
#define GITHUB_ANNOTATIONS_ERRORS GITHUB_ANNOTATIONS_MAX
#define GITHUB_ANNOTATIONS_WARNINGS (GITHUB_ANNOTATIONS_MAX - 1)
#define GITHUB_ANNOTATIONS_NOTICES (GITHUB_ANNOTATIONS_MAX - 3)
#define GITHUB_SUMMARY_MAX ((size_t)1 << 20)	/* job summary per step */
#define GITHUB_REVIEW_COMMENTS_MAX 30	/* comments in one review */
#define GITHUB_COMMENT_MAX 65536	/* characters in a comment body */

/* The pull request of a pull_request(_target) event. */
struct github_pr {
	long number;
	char *base_sha, *head_sha;	/* never the test merge commit */
	char *base_ref, *head_ref;	/* branch names */
	char *base_repo, *head_repo;	/* "owner/name" */
	int is_fork;		/* head repository differs from base */
};

/* What GitHub Actions tells a step through its environment. */
struct github_env {
	int actions;		/* GITHUB_ACTIONS=true */
	char *event_name;	/* GITHUB_EVENT_NAME */
	char *event_path;	/* GITHUB_EVENT_PATH */
	char *step_summary;	/* GITHUB_STEP_SUMMARY */
	char *output;		/* GITHUB_OUTPUT */
	char *repository;	/* GITHUB_REPOSITORY, "owner/name" */
	char *api_url;		/* GITHUB_API_URL, default api.github.com */
	char *server_url;	/* GITHUB_SERVER_URL, default github.com */
	char *sha;		/* GITHUB_SHA (the merge commit on PRs) */
	char *ref;		/* GITHUB_REF */
	char *token;		/* GITHUB_TOKEN or NULL; never logged */
	int has_pr;		/* `pr` was read from the event */
	struct github_pr pr;
};

/*
 * Read the GITHUB_* variables into `env` (zeroed first) and, for a
 * pull_request or pull_request_target event, its pull request from
 * GITHUB_EVENT_PATH. Missing variables stay NULL. Returns 0, or the code
 * of github_pr_refs() when the event file of a pull-request event is
 * missing or malformed (env then holds the variables but no pr).
 */
int github_env_load(struct github_env *env);
/* Free the strings (wiping the token) and zero `env`. Accepts NULL. */
void github_env_release(struct github_env *env);

/*
 * Print one annotation per finding to `f`: "::error" for findings that
 * fail the policy of fs->summary.fail_on, "::warning" for the others,
 * "::notice" for "fixed-by-change"; each with file/line/col when known
 * and a title. At most GITHUB_ANNOTATIONS_ERRORS errors, _WARNINGS
 * warnings and _NOTICES notices; the rest are counted in one closing
 * ::notice pointing at the job summary. A finding whose annotation was
 * printed when it was proved (fs->run_cut->announced) is not printed
 * again. Returns the number of annotations not printed.
 */
size_t github_annotations(FILE *f, const struct finding_set *fs,
			  const char *out_dir);

#ifdef UNIT_TESTS
/*
 * Read `pull_request.{number,base,head}` from the event file at `path`
 * (at most 16 MiB) into `out` (zeroed first). The fork flag compares
 * head.repo.full_name with base.repo.full_name (a missing head repo, a
 * deleted fork, counts as a fork). Returns 0; CRS_ENOTFOUND when the file
 * is missing; CRS_EINPUT when it is not JSON, has no pull_request, or
 * base.sha/head.sha are not 40 or 64 hex digits (message names the field).
 */
int github_pr_refs(struct github_pr *out, const char *path);
void github_pr_release(struct github_pr *pr);
#endif

/*
 * Workflow-command escaping as done by actions/toolkit: data escapes %,
 * CR and LF; a property value escapes : and , as well. Other control
 * bytes (ANSI escapes) become %XX too, which the runner shows as text.
 * Appends to `b`.
 */
void github_escape_data(struct buf *b, const char *s);
#ifdef UNIT_TESTS
void github_escape_property(struct buf *b, const char *s);
#endif

/*
 * Escape untrusted text for Markdown or HTML in the job summary: HTML
 * specials become entities, Markdown punctuation is backslashed, line
 * breaks become spaces. Appends to `b`.
 */
void github_escape_markdown(struct buf *b, const char *s);


/*
 * Print each finding's sanitizer report (out_dir/report_path, at most
 * 64 KiB each, at most `max_reports` of them) to `f` in a collapsed
 * ::group::, between ::stop-commands::<random token> and ::<token>::, so
 * nothing in it is read as a workflow command. Unreadable reports are
 * skipped. Returns 0 or CRS_ERR when writing `f` fails.
 */
int github_echo_reports(FILE *f, const struct finding_set *fs,
			const char *out_dir, size_t max_reports);

/*
 * The job summary in GitHub-flavoured Markdown into `md`: verdict,
 * counts, a findings table (novelty, crash, location, reproduce rate,
 * finder, harness, PoV), harnesses and CRSs, how to reproduce, and
 * `notes` (one bullet each, plain text, escaped) if any. Every string
 * from the scan is escaped. Kept under GITHUB_SUMMARY_MAX by dropping
 * table rows (and saying so).
 */
void github_summary(struct buf *md, const struct finding_set *fs,
		    const char *out_dir, const char *const *notes,
		    size_t notes_nr);

/*
 * Append the outputs findings, new-findings, sarif and verdict to the
 * GITHUB_OUTPUT file at `path`, each as name<<DELIM ... DELIM with a
 * fresh random delimiter. verdict is "fail" when a finding fails the
 * policy, else "pass"; new-findings counts findings failing "new".
 * Returns 0 or CRS_ERR (message names the path).
 */
int github_outputs_write(const char *path, const struct finding_set *fs,
			 const char *sarif_path);

/*
 * The body of POST /repos/{o}/{r}/pulls/{n}/reviews for `pr` (new
 * reference, or NULL when no suggestion lies inside `hunks`): event
 * COMMENT, commit_id = pr->head_sha, one comment per suggestion inside
 * the hunks (at most GITHUB_REVIEW_COMMENTS_MAX), side RIGHT, line =
 * end_line and start_line only when it is smaller, body with a
 * ```suggestion fence longer than any backtick run in the replacement.
 * `*skipped_out` counts suggestions left out. Unused until the finding
 * model carries patches (issue 5).
 */
struct json_t;
#ifdef UNIT_TESTS
struct json_t *github_review_json(const struct github_pr *pr,
				  const struct patch_suggestion *s,
				  size_t n, const struct diff_hunks *hunks,
				  size_t *skipped_out);
#endif

/*
 * One REST call to env->api_url: `method` on `path`, JSON `body` or
 * none, env->token (if any) as the bearer token, the response kept
 * bounded. 0 with resp filled (any status), CRS_ETIMEOUT, or CRS_ERR
 * (transport failure). The token is in no message.
 */
struct http_response;
int github_request(const struct github_env *env, const char *method,
		   const char *path, const char *body, long timeout_ms,
		   struct http_response *resp);

/* REST calls: options and what they reported. */
struct github_report_opts {
	int upload_sarif;	/* POST the SARIF to code scanning */
	int post_suggestions;	/* post one review with suggestions */
	long http_timeout_ms;	/* per request */
	int poll_max;		/* GET .../sarifs/{id} at most this often */
	long poll_interval_ms;	/* between polls */
	size_t max_reports;	/* sanitizer reports echoed to the log */
	const char *sarif_path;	/* default out_dir/results.sarif */
	const char *pr_diff;	/* the change's unified diff: suggestions
				   must lie inside its hunks; NULL = none */
	/* set by github_report() */
	char *sarif_id;		/* upload receipt id, or NULL */
	char *processing_status;	/* "complete", "failed", "pending" */
	size_t annotations_dropped;
	size_t suggestions_posted;
};
#define GITHUB_REPORT_OPTS_INIT { 0, 0, 30000, 30, 2000, 20, NULL, NULL, \
				  NULL, NULL, 0, 0 }
void github_report_opts_release(struct github_report_opts *o);
/*
 * Fill upload_sarif and post_suggestions from the variables the
 * composite action sets: CRS_CI_GITHUB_UPLOAD_SARIF ("api": upload
 * here; "action", "false" or unset: not here) and
 * CRS_CI_GITHUB_POST_SUGGESTIONS ("true"). Cannot fail.
 */
void github_report_opts_env(struct github_report_opts *o);

#ifdef UNIT_TESTS
/*
 * POST the SARIF file at `sarif_path` (gzip + base64) to
 * {api_url}/repos/{repository}/code-scanning/sarifs with commit_sha and
 * ref (the PR head: refs/pull/<n>/head and head.sha; else GITHUB_REF and
 * GITHUB_SHA), checkout_uri, tool_name "crs-ci". The receipt id goes to
 * *id_out (caller frees). CRS_EINPUT when the environment lacks what is
 * needed or the gzip exceeds 10 MB; CRS_ERR on an HTTP error (message
 * has the status and GitHub's "message"); CRS_ETIMEOUT on timeout.
 */
int github_sarif_upload(char **id_out, const struct github_env *env,
			const char *sarif_path, const char *checkout_dir,
			long timeout_ms);
/*
 * Poll the upload `id` until processing_status is "complete" or
 * "failed", at most `poll_max` times `interval_ms` apart; the last status
 * goes to *status_out (caller frees). 0 when complete; CRS_ERR when
 * "failed" (message lists GitHub's errors); CRS_ETIMEOUT when still
 * pending after the last poll.
 */
int github_sarif_poll(char **status_out, const struct github_env *env,
		      const char *id, int poll_max, long interval_ms,
		      long timeout_ms);
#endif
/*
 * POST the review built by github_review_json() to the PR of `env`.
 * *posted_out gets the number of comments posted (0 and no request
 * when none lies inside the hunks). 0, CRS_EINPUT (no PR/token) or
 * CRS_ERR/CRS_ETIMEOUT as for the upload.
 */
int github_review_post(size_t *posted_out, const struct github_env *env,
		       const struct patch_suggestion *s, size_t n,
		       const struct diff_hunks *hunks, long timeout_ms);

/* For the other GitHub REST callers (github_publish.c). */
struct http_response;
/* owner/name of letters, digits, '.', '-', '_' only (goes in a URL). */
int github_repo_ok(const char *s);
/* Append `text` to the file at `path` (the step summary). 0 or CRS_ERR. */
int github_append_file(const char *path, const char *text, size_t len);
/*
 * POST /repos/{env->repository}/security-advisories with `token` (not
 * env->token: the workflow's token cannot): a draft advisory with the
 * given summary, description and severity, CWE-`cwe` when not 0, and the
 * package `package` (ecosystem "other"). 0, or CRS_ERR/CRS_ETIMEOUT
 * naming the status and GitHub's message.
 */
int github_advisory_post(const struct github_env *env, const char *token,
			 const char *summary, const char *description,
			 const char *severity, int cwe, const char *package,
			 long timeout_ms);
/*
 * GET /repos/{env->repository}/security-advisories?state=draft (its first
 * 100, newest first) with `token`: *out the JSON array (caller's). 0, or
 * CRS_ERR/CRS_ETIMEOUT naming the status and GitHub's message.
 */
int github_advisories_drafts(const struct github_env *env, const char *token,
			     json_t **out, long timeout_ms);
/* CRS_ERR naming the call `what`, the status and GitHub's "message". */
int github_http_error(const char *what, const struct http_response *resp);

/*
 * Everything for one step: annotations and the echoed reports to
 * `annotations_out` (stdout in Actions), the job summary appended to
 * GITHUB_STEP_SUMMARY, the outputs appended to GITHUB_OUTPUT, and, when
 * asked, the SARIF upload and its processing. A fork pull request or a
 * missing token skips the upload (and reviews) with a ::notice and a line
 * in the summary instead of failing; an upload that fails is a ::warning
 * and a summary line, not an error. Returns 0, or CRS_ERR when a file
 * (summary, outputs, annotations stream) cannot be written.
 */
int github_report(const struct finding_set *fs, const char *out_dir,
		  const struct github_env *env, FILE *annotations_out,
		  struct github_report_opts *o);

#endif
