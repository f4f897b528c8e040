/* SPDX-License-Identifier: Apache-2.0 */
/*
 * github.c - GitHub: the environment and event, the REST API (SARIF
 * upload, review, check runs) and the report step that drives them
 *
 * What a workflow run shows (annotations, job summary, outputs) is in
 * github_job.c. Every string from a scan is untrusted; the token is sent
 * in an Authorization header only, never logged nor put in a URL.
 */
#include "runner/report/github.h"
#include "runner/report/removal_review.h"
#include "runner/report/disclose.h"
#include "runner/report/change_lines.h"
#include "runner/report/timing_summary.h"
#include "runner/report/markdown.h"
#include "runner/http/http.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

CRS_TESTABLE void github_pr_release(struct github_pr *pr);

#define GITHUB_EVENT_MAX ((size_t)16 << 20)
#define GITHUB_SARIF_GZ_MAX ((size_t)10 * 1000 * 1000)
#define GITHUB_SARIF_MAX ((size_t)256 << 20)
#define GITHUB_RESPONSE_MAX ((size_t)4 << 20)

/* --- environment and event ------------------------------------------------ */

static char *env_dup(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? xstrdup(v) : NULL;
}

static int is_sha(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n == 40 || n == 64;
}

static const char *jstr(const json_t *o, const char *a, const char *b,
			const char *c)
{
	const json_t *j = o;	/* borrowed all the way down */

	if (a)
		j = json_object_get(j, a);
	if (b)
		j = json_object_get(j, b);
	if (c)
		j = json_object_get(j, c);
	return json_is_string(j) ? json_string_value(j) : NULL;
}

CRS_TESTABLE int github_pr_refs(struct github_pr *out, const char *path)
{
	struct buf b = BUF_INIT;
	json_t *root = NULL;
	const json_t *pr;	/* borrowed */
	json_error_t je;
	const char *base, *head, *base_repo, *head_repo;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = fs_read_file(&b, path, GITHUB_EVENT_MAX)) != 0)
		goto out;
	root = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, je.line,
				  je.column, je.text);
		goto out;
	}
	pr = json_object_get(root, "pull_request");
	if (!json_is_object(pr)) {
		r = crs_error_set(CRS_EINPUT, "%s: pull_request: missing "
				  "(not a pull request event)", path);
		goto out;
	}
	base = jstr(pr, "base", "sha", NULL);
	head = jstr(pr, "head", "sha", NULL);
	if (!base || !is_sha(base) || !head || !is_sha(head)) {
		r = crs_error_set(CRS_EINPUT, "%s: pull_request.%s.sha: "
				  "expected a commit id", path,
				  !base || !is_sha(base) ? "base" : "head");
		goto out;
	}
	if (!json_is_integer(json_object_get(pr, "number"))) {
		r = crs_error_set(CRS_EINPUT, "%s: pull_request.number: "
				  "expected an integer", path);
		goto out;
	}
	out->number = (long)json_integer_value(json_object_get(pr, "number"));
	out->base_sha = xstrdup(base);
	out->head_sha = xstrdup(head);
	if ((base = jstr(pr, "base", "ref", NULL)))
		out->base_ref = xstrdup(base);
	if ((head = jstr(pr, "head", "ref", NULL)))
		out->head_ref = xstrdup(head);
	base_repo = jstr(pr, "base", "repo", "full_name");
	head_repo = jstr(pr, "head", "repo", "full_name");
	if (base_repo)
		out->base_repo = xstrdup(base_repo);
	if (head_repo)
		out->head_repo = xstrdup(head_repo);
	out->is_fork = !head_repo || !base_repo ||
		strcasecmp(head_repo, base_repo) != 0;
	r = 0;
out:
	if (r)
		github_pr_release(out);
	json_decref(root);
	buf_release(&b);
	return r;
}

CRS_TESTABLE void github_pr_release(struct github_pr *pr)
{
	if (!pr)
		return;
	free(pr->base_sha);
	free(pr->head_sha);
	free(pr->base_ref);
	free(pr->head_ref);
	free(pr->base_repo);
	free(pr->head_repo);
	memset(pr, 0, sizeof(*pr));
}

int github_env_load(struct github_env *env)
{
	const char *a = getenv("GITHUB_ACTIONS");

	memset(env, 0, sizeof(*env));
	env->actions = a && !strcmp(a, "true");
	env->event_name = env_dup("GITHUB_EVENT_NAME");
	env->event_path = env_dup("GITHUB_EVENT_PATH");
	env->step_summary = env_dup("GITHUB_STEP_SUMMARY");
	env->output = env_dup("GITHUB_OUTPUT");
	env->repository = env_dup("GITHUB_REPOSITORY");
	env->api_url = env_dup("GITHUB_API_URL");
	if (!env->api_url)
		env->api_url = xstrdup("https://api.github.com");
	env->server_url = env_dup("GITHUB_SERVER_URL");
	if (!env->server_url)
		env->server_url = xstrdup("https://github.com");
	env->sha = env_dup("GITHUB_SHA");
	env->ref = env_dup("GITHUB_REF");
	env->token = env_dup("GITHUB_TOKEN");
	if (env->event_name && env->event_path &&
	    (!strcmp(env->event_name, "pull_request") ||
	     !strcmp(env->event_name, "pull_request_target"))) {
		int r = github_pr_refs(&env->pr, env->event_path);

		if (r)
			return r;
		env->has_pr = 1;
	}
	return 0;
}

void github_env_release(struct github_env *env)
{
	if (!env)
		return;
	free(env->event_name);
	free(env->event_path);
	free(env->step_summary);
	free(env->output);
	free(env->repository);
	free(env->api_url);
	free(env->server_url);
	free(env->sha);
	free(env->ref);
	if (env->token) {
		explicit_bzero(env->token, strlen(env->token));
		free(env->token);
	}
	github_pr_release(&env->pr);
	memset(env, 0, sizeof(*env));
}

/* --- review --------------------------------------------------------------- */

static char *suggestion_body(const struct patch_suggestion *s)
{
	struct buf b = BUF_INIT;
	size_t run = 0, max = 0, fence;
	const char *t = s->replacement ? s->replacement : "";

	for (const char *p = t; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > max)
			max = run;
	}
	fence = max + 1 < 3 ? 3 : max + 1;
	buf_adds(&b, "**crs-ci** validated patch: ");
	github_escape_markdown(&b, s->message ? s->message : "");
	buf_adds(&b, "\n\n");
	for (size_t i = 0; i < fence; i++)
		buf_addch(&b, '`');
	buf_adds(&b, "suggestion\n");
	buf_adds(&b, t);
	if (*t && t[strlen(t) - 1] != '\n')
		buf_addch(&b, '\n');
	for (size_t i = 0; i < fence; i++)
		buf_addch(&b, '`');
	buf_addch(&b, '\n');
	if (b.len > GITHUB_COMMENT_MAX) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

CRS_TESTABLE json_t *github_review_json(const struct github_pr *pr,
			   const struct patch_suggestion *s, size_t n,
			   const struct diff_hunks *hunks,
			   size_t *skipped_out)
{
	json_t *comments = json_array(), *review;
	size_t skipped = 0;

	for (size_t i = 0; i < n; i++) {
		char *body;
		json_t *c;

		if (json_array_size(comments) >= GITHUB_REVIEW_COMMENTS_MAX ||
		    !diff_hunks_contain(hunks, s[i].path, s[i].start_line,
					s[i].end_line) ||
		    !(body = suggestion_body(&s[i]))) {
			skipped++;
			continue;
		}
		c = json_pack("{s:s, s:s, s:i, s:s}", "path", s[i].path,
			      "body", body, "line", s[i].end_line,
			      "side", "RIGHT");
		if (s[i].start_line < s[i].end_line) {
			json_object_set_new(c, "start_line",
					    json_integer(s[i].start_line));
			json_object_set_new(c, "start_side",
					    json_string("RIGHT"));
		}
		json_array_append_new(comments, c);
		free(body);
	}
	if (skipped_out)
		*skipped_out = skipped;
	if (!json_array_size(comments)) {
		json_decref(comments);
		return NULL;
	}
	review = json_pack("{s:s, s:s, s:s, s:o}", "commit_id", pr->head_sha,
			   "event", "COMMENT", "body",
			   "crs-ci: validated patches for the crashes this "
			   "change introduces.", "comments", comments);
	return review;
}

/* --- REST ----------------------------------------------------------------- */

/* owner/name of letters, digits, '.', '-', '_' only (goes in a URL) */
int github_repo_ok(const char *s)
{
	size_t slash = 0;

	if (!s || !*s)
		return 0;
	for (const char *p = s; *p; p++) {
		if (*p == '/')
			slash++;
		else if (!isalnum((unsigned char)*p) && !strchr(".-_", *p))
			return 0;
	}
	return slash == 1 && *s != '/' && s[strlen(s) - 1] != '/';
}

/*
 * One request through the HTTP client: JSON body (or none), token in the
 * Authorization header, bounded response. 0 with resp filled (any
 * status), CRS_ETIMEOUT, or CRS_ERR (transport failure).
 */
int github_request(const struct github_env *env, const char *method,
		   const char *path, const char *body, long timeout_ms,
		   struct http_response *resp)
{
	struct http_transport *t = NULL;
	const char *hdr[5] = { "Accept: application/vnd.github+json",
			       "X-GitHub-Api-Version: 2022-11-28" };
	struct http_request req = {
		.method = method, .path = path, .timeout_ms = timeout_ms,
		.headers = hdr, .max_response = GITHUB_RESPONSE_MAX,
	};
	char *auth = NULL;
	size_t nh = 2;
	int r = CRS_ERR;

	if (body) {
		req.content_type = "application/json";
		req.body = body;
		req.body_len = strlen(body);
	}
	if (env->token) {
		auth = xasprintf("Authorization: Bearer %s", env->token);
		hdr[nh++] = auth;
	}
	if ((r = http_api_new(&t, env->api_url, "github")) != 0)
		goto out;
	r = t->request(t, &req, resp);
out:
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	if (t)
		t->free(t);
	return r;
}

/* CRS_ERR naming the call, the status and GitHub's "message". */
int github_advisory_post(const struct github_env *env, const char *token,
			 const char *summary, const char *description,
			 const char *severity, int cwe, const char *package,
			 long timeout_ms)
{
	struct github_env e = *env;	/* shallow: the advisory token */
	struct http_response resp = HTTP_RESPONSE_INIT;
	json_t *cwes = json_array(), *body;
	char *json, *path;
	int r;

	if (cwe)
		json_array_append_new(cwes, json_sprintf("CWE-%d", cwe));
	body = json_pack("{s:s,s:s,s:s,s:o,s:[{s:{s:s,s:s}}]}",
			 "summary", summary, "description", description,
			 "severity", severity, "cwe_ids", cwes,
			 "vulnerabilities", "package", "ecosystem", "other",
			 "name", package);
	json = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (!json)
		return crs_error_set(CRS_ERR, "github: cannot build the "
				     "advisory's JSON");
	path = xasprintf("/repos/%s/security-advisories", env->repository);
	e.token = (char *)token;
	if ((r = github_request(&e, "POST", path, json, timeout_ms,
				&resp)) == 0 && resp.status != 201)
		r = github_http_error("github: POST security-advisories",
				      &resp);
	http_response_release(&resp);
	free(path);
	free(json);
	return r;
}

int github_advisories_drafts(const struct github_env *env, const char *token,
			     json_t **out, long timeout_ms)
{
	struct github_env e = *env;	/* shallow: the advisory token */
	struct http_response resp = HTTP_RESPONSE_INIT;
	char *path = xasprintf("/repos/%s/security-advisories?state=draft&"
			       "per_page=100", env->repository);
	int r;

	*out = NULL;
	e.token = (char *)token;
	if ((r = github_request(&e, "GET", path, NULL, timeout_ms,
				&resp)) == 0 && resp.status != 200)
		r = github_http_error("github: GET security-advisories",
				      &resp);
	if (r == 0 && !(*out = json_loadb(resp.body.ptr, resp.body.len, 0,
					  NULL)))
		r = crs_error_set(CRS_ERR, "github: GET security-advisories: "
				  "not JSON");
	if (r == 0 && !json_is_array(*out)) {
		json_decref(*out);
		*out = NULL;
		r = crs_error_set(CRS_ERR, "github: GET security-advisories: "
				  "not a list");
	}
	http_response_release(&resp);
	free(path);
	return r;
}

int github_http_error(const char *what, const struct http_response *resp)
{
	json_t *j = json_loadb(resp->body.ptr, resp->body.len, 0, NULL);
	const char *m = jstr(j, "message", NULL, NULL);
	char q[512];
	int r;

	r = crs_error_set(CRS_ERR, "github: %s: HTTP %ld%s%s", what,
			  resp->status, m ? ": " : "",
			  m ? log_quote(q, sizeof(q), m, strlen(m)) : "");
	json_decref(j);
	return r;
}

static int gzip_base64(char **out, const struct buf *in, const char *name)
{
	z_stream z;
	unsigned char *gz = NULL;
	size_t cap = compressBound(in->len) + 64;
	char *b64 = NULL;
	int r = CRS_ERR;

	*out = NULL;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return crs_error_set(CRS_ERR, "%s: cannot start gzip", name);
	gz = xmalloc(cap);
	z.next_in = (unsigned char *)in->ptr;
	z.avail_in = (uInt)in->len;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		r = crs_error_set(CRS_ERR, "%s: gzip failed", name);
		goto out;
	}
	if (z.total_out > GITHUB_SARIF_GZ_MAX) {
		r = crs_error_set(CRS_EINPUT, "%s: %lu bytes gzipped, GitHub "
				  "accepts at most 10 MB", name, z.total_out);
		goto out;
	}
	b64 = xmalloc(st_add(4 * ((z.total_out + 2) / 3), 1));
	EVP_EncodeBlock((unsigned char *)b64, gz, (int)z.total_out);
	*out = b64;
	r = 0;
out:
	deflateEnd(&z);
	free(gz);
	return r;
}

static void utc_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

CRS_TESTABLE int github_sarif_upload(char **id_out, const struct github_env *env,
			const char *sarif_path, const char *checkout_dir,
			long timeout_ms)
{
	struct buf sarif = BUF_INIT;
	struct http_response resp = HTTP_RESPONSE_INIT;
	char *b64 = NULL, *body = NULL, *path = NULL, *ref = NULL;
	char *uri = NULL;
	const char *sha;
	json_t *req = NULL, *ans = NULL;
	const json_t *id;	/* borrowed */
	char now[32];
	int r = CRS_ERR;

	*id_out = NULL;
	if (!github_repo_ok(env->repository)) {
		r = crs_error_set(CRS_EINPUT, "github: GITHUB_REPOSITORY is "
				  "not owner/name");
		goto out;
	}
	if (env->has_pr) {
		ref = xasprintf("refs/pull/%ld/head", env->pr.number);
		sha = env->pr.head_sha;
	} else {
		ref = env->ref ? xstrdup(env->ref) : NULL;
		sha = env->sha;
	}
	if (!ref || !sha || !is_sha(sha)) {
		r = crs_error_set(CRS_EINPUT, "github: no commit and ref to "
				  "upload SARIF for (GITHUB_SHA, GITHUB_REF)");
		goto out;
	}
	if ((r = fs_read_file(&sarif, sarif_path, GITHUB_SARIF_MAX)) != 0 ||
	    (r = gzip_base64(&b64, &sarif, sarif_path)) != 0)
		goto out;
	utc_now(now);
	req = json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit_sha", sha,
			"ref", ref, "sarif", b64, "tool_name", "crs-ci",
			"started_at", now);
	if (checkout_dir && *checkout_dir == '/') {
		uri = xasprintf("file://%s", checkout_dir);
		json_object_set_new(req, "checkout_uri", json_string(uri));
	}
	body = json_dumps(req, JSON_COMPACT);
	path = xasprintf("/repos/%s/code-scanning/sarifs", env->repository);
	if ((r = github_request(env, "POST", path, body, timeout_ms, &resp)))
		goto out;
	if (resp.status / 100 != 2) {
		r = github_http_error("SARIF upload", &resp);
		goto out;
	}
	ans = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	id = json_object_get(ans, "id");
	if (!json_is_string(id) ||
	    strspn(json_string_value(id), "abcdefABCDEF0123456789-") !=
	    strlen(json_string_value(id)) || !*json_string_value(id)) {
		r = crs_error_set(CRS_ERR, "github: SARIF upload: the "
				  "receipt has no valid \"id\"");
		goto out;
	}
	*id_out = xstrdup(json_string_value(id));
	r = 0;
out:
	json_decref(ans);
	json_decref(req);
	free(b64);
	free(body);
	free(path);
	free(ref);
	free(uri);
	buf_release(&sarif);
	buf_release(&resp.body);
	return r;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

CRS_TESTABLE int github_sarif_poll(char **status_out, const struct github_env *env,
		      const char *id, int poll_max, long interval_ms,
		      long timeout_ms)
{
	char *path = NULL, *status = NULL;
	json_t *ans = NULL;
	int r = CRS_ERR;

	*status_out = NULL;
	if (!github_repo_ok(env->repository) || !id || !*id ||
	    strspn(id, "abcdefABCDEF0123456789-") != strlen(id))
		return crs_error_set(CRS_EINPUT, "github: bad repository or "
				     "SARIF id to poll");
	path = xasprintf("/repos/%s/code-scanning/sarifs/%s",
			 env->repository, id);
	for (int i = 0; i < poll_max; i++) {
		struct http_response resp = HTTP_RESPONSE_INIT;
		const char *s;

		if (i)
			sleep_ms(interval_ms);
		r = github_request(env, "GET", path, NULL, timeout_ms, &resp);
		if (!r && resp.status / 100 != 2)
			r = github_http_error("SARIF processing status", &resp);
		if (!r) {
			json_decref(ans);
			ans = json_loadb(resp.body.ptr, resp.body.len, 0,
					 NULL);
		}
		buf_release(&resp.body);
		if (r)
			goto out;
		s = jstr(ans, "processing_status", NULL, NULL);
		free(status);
		status = xstrdup(s ? s : "unknown");
		if (!strcmp(status, "complete") || !strcmp(status, "failed"))
			break;
	}
	if (!status || !strcmp(status, "pending") ||
	    !strcmp(status, "unknown")) {
		r = crs_error_set(CRS_ETIMEOUT, "github: SARIF %s still "
				  "processing after %d polls", id, poll_max);
	} else if (!strcmp(status, "failed")) {
		char *errs = json_dumps(json_object_get(ans, "errors"),
					JSON_COMPACT | JSON_ENCODE_ANY);
		char q[1024];

		r = crs_error_set(CRS_ERR, "github: SARIF %s failed "
				  "processing: %s", id, errs ?
				  log_quote(q, sizeof(q), errs, strlen(errs)) :
				  "no errors given");
		free(errs);
	} else {
		r = 0;
	}
out:
	*status_out = status;
	json_decref(ans);
	free(path);
	return r;
}

/* POST `review` (NULL: nothing) on env's pull request; *posted_out: its
 * comments. */
static int review_post(size_t *posted_out, const struct github_env *env,
		       json_t *review, long timeout_ms)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	char *body, *path;
	int r;

	*posted_out = 0;
	if (!review)
		return 0;
	body = json_dumps(review, JSON_COMPACT);
	path = xasprintf("/repos/%s/pulls/%ld/reviews", env->repository,
			 env->pr.number);
	if ((r = github_request(env, "POST", path, body, timeout_ms,
				&resp)) == 0 && resp.status / 100 != 2)
		r = github_http_error("pull request review", &resp);
	if (r == 0)
		*posted_out = json_array_size(json_object_get(review,
							      "comments"));
	buf_release(&resp.body);
	free(body);
	free(path);
	return r;
}

int github_review_post(size_t *posted_out, const struct github_env *env,
		       const struct patch_suggestion *s, size_t n,
		       const struct diff_hunks *hunks, long timeout_ms)
{
	json_t *review = NULL;
	size_t skipped = 0;
	int r;

	*posted_out = 0;
	if (!env->has_pr || !env->token || !github_repo_ok(env->repository))
		return crs_error_set(CRS_EINPUT, "github: a review needs a "
				     "pull request, a token and "
				     "GITHUB_REPOSITORY");
	review = github_review_json(&env->pr, s, n, hunks, &skipped);
	r = review_post(posted_out, env, review, timeout_ms);
	json_decref(review);
	return r;
}


static void say(FILE *f, const char *kind, struct buf *notes_text,
		const char *msg);

/* One review with a suggestion per validated hunk inside the PR's diff. */
static void post_suggestions(FILE *f, const struct finding_set *fs,
			     const struct github_env *env,
			     struct github_report_opts *o, struct buf *notes)
{
	struct patch_suggestions sg = { 0 };
	struct diff_hunks hunks = { 0 };
	char *m = NULL;

	if (env->has_pr && (env->pr.is_fork || !env->token)) {
		say(f, "notice", notes, "review suggestions skipped: a fork "
		    "pull request or no token cannot post reviews");
		return;
	}
	if (patch_suggestions_from_set(&sg, fs) != 0 || !sg.nr) {
		crs_error_clear();
		buf_adds(notes, "no validated patches to suggest");
		buf_addch(notes, '\0');
		goto out;
	}
	if (!o->pr_diff ||
	    diff_hunks_parse(&hunks, o->pr_diff, strlen(o->pr_diff)) != 0) {
		crs_error_clear();
		buf_adds(notes, "validated patches are attached above; the "
			 "pull request's diff is unknown, so none is posted "
			 "as a suggestion");
		buf_addch(notes, '\0');
		goto out;
	}
	if (github_review_post(&o->suggestions_posted, env, sg.v, sg.nr,
			       &hunks, o->http_timeout_ms) != 0) {
		m = xasprintf("posting review suggestions failed: %s",
			      crs_error_last());
		crs_error_clear();
		say(f, "warning", notes, m);
		goto out;
	}
	m = xasprintf("%zu validated suggestion(s) posted as a review; %zu "
		      "outside the pull request's diff are attached above",
		      o->suggestions_posted, sg.nr - o->suggestions_posted);
	buf_adds(notes, m);
	buf_addch(notes, '\0');
out:
	free(m);
	diff_hunks_release(&hunks);
	patch_suggestions_release(&sg);
}

/*
 * A failing finding beside lines the change removed gets a comment on
 * those lines: no SARIF alert shows there (removal_review.h).
 */
static void post_removals(FILE *f, const struct finding_set *fs,
			  const struct github_env *env,
			  struct github_report_opts *o, struct buf *notes)
{
	struct diff_hunks hunks = { 0 };
	const char *policy = fs->summary.fail_on ? fs->summary.fail_on : "new";
	json_t *review;
	size_t posted = 0;
	char *m = NULL;
	int r;

	if (!env->has_pr || env->pr.is_fork || !env->token ||
	    !github_repo_ok(env->repository) || !o->pr_diff ||
	    diff_hunks_parse(&hunks, o->pr_diff, strlen(o->pr_diff)) != 0) {
		crs_error_clear();
		return;
	}
	review = removal_review_json(fs, hunks.cs, env->pr.head_sha, policy);
	r = review_post(&posted, env, review, o->http_timeout_ms);
	json_decref(review);
	if (r != 0) {
		m = xasprintf("posting the review on removed lines failed: %s",
			      crs_error_last());
		crs_error_clear();
		say(f, "warning", notes, m);
	} else if (posted) {
		m = xasprintf("%zu finding(s) beside lines the change removed "
			      "posted as review comments on those lines",
			      posted);
		buf_adds(notes, m);
		buf_addch(notes, '\0');
	}
	free(m);
	diff_hunks_release(&hunks);
}

void github_report_opts_release(struct github_report_opts *o)
{
	if (!o)
		return;
	free(o->sarif_id);
	free(o->processing_status);
	o->sarif_id = NULL;
	o->processing_status = NULL;
}

void github_report_opts_env(struct github_report_opts *o)
{
	const char *u = getenv("CRS_CI_GITHUB_UPLOAD_SARIF");
	const char *p = getenv("CRS_CI_GITHUB_POST_SUGGESTIONS");

	o->upload_sarif = u && !strcmp(u, "api");
	o->post_suggestions = p && !strcmp(p, "true");
}

/* A ::notice or ::warning with an escaped message, plus a summary note. */
static void say(FILE *f, const char *kind, struct buf *notes_text,
		const char *msg)
{
	struct buf b = BUF_INIT;

	github_escape_data(&b, msg);
	fprintf(f, "::%s title=crs-ci::%s\n", kind, b.ptr);
	buf_adds(notes_text, msg);
	buf_addch(notes_text, '\0');
	buf_release(&b);
}

static void upload(FILE *f, const struct finding_set *fs,
		   const struct github_env *env, struct github_report_opts *o,
		   const char *sarif, struct buf *notes)
{
	char *msg = NULL;
	int r;

	if (env->has_pr && env->pr.is_fork) {
		say(f, "notice", notes, "SARIF upload skipped: this pull "
		    "request comes from a fork, whose token cannot write "
		    "code scanning results; findings are in the annotations "
		    "and this summary");
		return;
	}
	if (!env->token) {
		say(f, "notice", notes, "SARIF upload skipped: no "
		    "GITHUB_TOKEN (give the step security-events: write)");
		return;
	}
	r = github_sarif_upload(&o->sarif_id, env, sarif,
				fs->summary.source_root, o->http_timeout_ms);
	if (!r)
		r = github_sarif_poll(&o->processing_status, env, o->sarif_id,
				      o->poll_max, o->poll_interval_ms,
				      o->http_timeout_ms);
	if (r) {
		msg = xasprintf("SARIF upload did not complete: %s",
				crs_error_last());
		crs_error_clear();
		say(f, "warning", notes, msg);
	} else {
		msg = xasprintf("SARIF uploaded to code scanning (id %s, "
				"processing %s)", o->sarif_id,
				o->processing_status);
		say(f, "notice", notes, msg);
	}
	free(msg);
}

int github_report(const struct finding_set *fs, const char *out_dir,
		  const struct github_env *env, FILE *annotations_out,
		  struct github_report_opts *o)
{
	struct buf notes = BUF_INIT, md = BUF_INIT;
	const char **nv = NULL;
	size_t nn = 0, na = 0;
	char *sarif = o->sarif_path ? xstrdup(o->sarif_path) :
		xasprintf("%s/results.sarif", out_dir);
	int r = CRS_ERR;

	o->annotations_dropped = github_annotations(annotations_out, fs,
						    out_dir);
	if ((r = github_echo_reports(annotations_out, fs, out_dir,
				     o->max_reports)) != 0)
		goto out;
	if (o->upload_sarif)
		upload(annotations_out, fs, env, o, sarif, &notes);
	if (o->post_suggestions) {
		post_suggestions(annotations_out, fs, env, o, &notes);
		post_removals(annotations_out, fs, env, o, &notes);
	}
	if (o->annotations_dropped) {
		char *m = xasprintf("%zu finding(s) were not annotated "
				    "(GitHub's per-step cap); all are in the "
				    "table above", o->annotations_dropped);

		buf_adds(&notes, m);
		buf_addch(&notes, '\0');
		free(m);
	}
	for (size_t off = 0; off < notes.len; off += strlen(notes.ptr + off)
	     + 1) {
		ALLOC_GROW(nv, nn + 1, na);
		nv[nn++] = notes.ptr + off;
	}
	if (env->step_summary) {
		github_summary(&md, fs, out_dir, nv, nn);
		if ((r = github_append_file(env->step_summary, md.ptr,
					    md.len)) != 0)
			goto out;
	}
	if (env->output &&
	    (r = github_outputs_write(env->output, fs, sarif)) != 0)
		goto out;
	if (fflush(annotations_out) || ferror(annotations_out)) {
		r = crs_error_set(CRS_ERR, "cannot write the workflow log: %s",
				  strerror(errno));
		goto out;
	}
	r = 0;
out:
	free(nv);
	free(sarif);
	buf_release(&md);
	buf_release(&notes);
	return r;
}
