/* SPDX-License-Identifier: Apache-2.0 */
/*
 * github_publish.c - pull request from a workflow_run event, its diff, checks
 *
 * See github_publish.h. Only the event and GitHub's API are believed;
 * nothing here reads the untrusted run's artifacts (docs/bundle.md).
 */
#include "runner/report/github_publish.h"

#include "runner/http/http.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WORKFLOW_RUN_EVENT_MAX ((size_t)16 << 20)

static const char *jget(const json_t *o, const char *a, const char *b)
{
	const json_t *j = json_object_get(o, a);

	if (b)
		j = json_object_get(j, b);
	return json_is_string(j) ? json_string_value(j) : NULL;
}

static int sha_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return n == 40 || n == 64;
}

/* a branch name as git allows it, without bytes a URL or log must quote */
static int branch_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 255 || strstr(s, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f ||
		    strchr("~^:?*[\\", s[i]))
			return 0;
	return 1;
}

/* GET `path`, parsed; CRS_E* naming `what` otherwise */
static int get_json(json_t **out, const struct github_env *env,
		    const char *path, const char *what, long timeout_ms)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	int r;

	*out = NULL;
	if ((r = github_request(env, "GET", path, NULL, timeout_ms, &resp)))
		goto out;
	if (resp.status != 200) {
		r = github_http_error(what, &resp);
		goto out;
	}
	if (!(*out = json_loadb(resp.body.ptr, resp.body.len, 0, NULL)))
		r = crs_error_set(CRS_ERR, "github: %s: the answer is not "
				  "JSON", what);
out:
	buf_release(&resp.body);
	return r;
}

/* The one open pull request of `list` with that head repository and SHA. */
static int pick_pr(struct github_pr *pr, const json_t *list,
		   const char *repository, const char *head_repo,
		   const char *head_sha, const char *label)
{
	size_t i, found = 0;
	json_t *o;

	if (!json_is_array(list))
		return crs_error_set(CRS_ERR, "github: pull request lookup: "
				     "the answer is not a list");
	json_array_foreach(list, i, o) {
		const char *sha = jget(json_object_get(o, "head"), "sha", NULL),
			*hr = jget(json_object_get(o, "head"), "repo",
				   "full_name"),
			*br = jget(json_object_get(o, "base"), "repo",
				   "full_name"),
			*bs = jget(json_object_get(o, "base"), "sha", NULL);
		const json_t *n = json_object_get(o, "number");

		if (!sha || strcmp(sha, head_sha) || !hr ||
		    strcasecmp(hr, head_repo) || !br ||
		    strcasecmp(br, repository) || !json_is_integer(n) ||
		    !sha_ok(bs))
			continue;
		if (found++)
			break;
		pr->number = (long)json_integer_value(n);
		pr->head_sha = xstrdup(sha);
		pr->base_sha = xstrdup(bs);
		pr->head_repo = xstrdup(hr);
		pr->base_repo = xstrdup(br);
		pr->is_fork = strcasecmp(hr, br) != 0;
	}
	if (found == 1)
		return 0;
	return crs_error_set(CRS_EINPUT, "github: %s open pull request of "
			     "%s has head %s at %s: nothing is published",
			     found ? "more than one" : "no", repository,
			     label, head_sha);
}

int github_pr_from_workflow_run(struct github_env *env, long timeout_ms)
{
	struct buf text = BUF_INIT;
	json_t *root = NULL, *list = NULL;
	const json_t *run;
	const char *ev, *sha, *branch, *head_repo, *owner;
	char *label = NULL, *q = NULL, *path = NULL;
	int r;

	if (!env->event_name || strcmp(env->event_name, "workflow_run") ||
	    !env->event_path)
		return crs_error_set(CRS_EINPUT, "publish: GITHUB_EVENT_NAME "
				     "is not workflow_run: run it from a "
				     "workflow_run workflow");
	if (!github_repo_ok(env->repository))
		return crs_error_set(CRS_EINPUT, "publish: GITHUB_REPOSITORY "
				     "is not owner/name");
	if ((r = fs_read_file(&text, env->event_path,
			      WORKFLOW_RUN_EVENT_MAX)))
		goto out;
	if (!(root = json_loadb(text.ptr, text.len, JSON_REJECT_DUPLICATES,
				NULL)) ||
	    !json_is_object(run = json_object_get(root, "workflow_run"))) {
		r = crs_error_set(CRS_EINPUT, "publish: %s: no workflow_run "
				  "object", env->event_path);
		goto out;
	}
	ev = jget(run, "event", NULL);
	sha = jget(run, "head_sha", NULL);
	branch = jget(run, "head_branch", NULL);
	head_repo = jget(run, "head_repository", "full_name");
	if (!ev || strcmp(ev, "pull_request")) {
		r = crs_error_set(CRS_EINPUT, "publish: %s: workflow_run.event "
				  "is not pull_request", env->event_path);
		goto out;
	}
	if (!sha_ok(sha) || !branch_ok(branch) || !github_repo_ok(head_repo)) {
		r = crs_error_set(CRS_EINPUT, "publish: %s: workflow_run.%s "
				  "is missing or malformed", env->event_path,
				  !sha_ok(sha) ? "head_sha" : !branch_ok(branch)
				  ? "head_branch" : "head_repository.full_name");
		goto out;
	}
	owner = head_repo;
	label = xasprintf("%.*s:%s", (int)(strchr(owner, '/') - owner), owner,
			  branch);
	q = http_escape(label);
	path = xasprintf("/repos/%s/pulls?state=open&per_page=100&head=%s",
			 env->repository, q);
	if ((r = get_json(&list, env, path, "pull request lookup",
			  timeout_ms)))
		goto out;
	env->has_pr = 0;
	if ((r = pick_pr(&env->pr, list, env->repository, head_repo, sha,
			 label)))
		goto out;
	env->pr.head_ref = xstrdup(branch);
	env->has_pr = 1;
	log_info("publish: pull request #%ld of %s (head %s at %.12s), "
		 "resolved from the workflow_run event", env->pr.number,
		 env->repository, label, sha);
out:
	json_decref(list);
	json_decref(root);
	buf_release(&text);
	free(label);
	free(q);
	free(path);
	return r;
}

/* a file name from the API fit for a "+++ b/NAME" line */
static int filename_ok(const char *s)
{
	if (!s || !*s || !safe_relpath_ok(s))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int github_pr_hunks(struct diff_hunks *out, const struct github_env *env,
		    long timeout_ms)
{
	struct buf diff = BUF_INIT;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!env->has_pr || !github_repo_ok(env->repository))
		return crs_error_set(CRS_EINPUT, "publish: no pull request "
				     "to fetch the diff of");
	for (int page = 1; page <= GITHUB_PR_FILES_PAGES_MAX && !r; page++) {
		char *path = xasprintf("/repos/%s/pulls/%ld/files?per_page=100"
				       "&page=%d", env->repository,
				       env->pr.number, page);
		json_t *files = NULL, *f;
		size_t i;

		r = get_json(&files, env, path, "pull request files",
			     timeout_ms);
		free(path);
		if (r)
			break;
		json_array_foreach(files, i, f) {
			const char *name = jget(f, "filename", NULL),
				*old = jget(f, "previous_filename", NULL),
				*status = jget(f, "status", NULL),
				*patch = jget(f, "patch", NULL);

			old = old ? old : name;
			status = status ? status : "";
			if (!patch || !filename_ok(name) || !filename_ok(old))
				continue;
			/* the file headers GitHub leaves off each patch */
			if (!strcmp(status, "added"))
				buf_adds(&diff, "--- /dev/null\n");
			else
				buf_printf(&diff, "--- a/%s\n", old);
			if (!strcmp(status, "removed"))
				buf_adds(&diff, "+++ /dev/null\n");
			else
				buf_printf(&diff, "+++ b/%s\n", name);
			buf_printf(&diff, "%s\n", patch);
		}
		if (!json_is_array(files) || json_array_size(files) < 100)
			page = GITHUB_PR_FILES_PAGES_MAX;
		json_decref(files);
	}
	if (!r)
		r = diff_hunks_parse(out, diff.ptr ? diff.ptr : "", diff.len);
	buf_release(&diff);
	return r;
}

int github_check_run_post(const struct github_env *env,
			  const char *conclusion, const char *title,
			  const char *summary, long timeout_ms)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	json_t *body = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}}",
				 "name", "crs-ci", "head_sha",
				 env->pr.head_sha, "status", "completed",
				 "conclusion", conclusion, "output", "title",
				 title, "summary", summary);
	char *text = json_dumps(body, JSON_COMPACT);
	char *path = xasprintf("/repos/%s/check-runs", env->repository);
	int r;

	if (!(r = github_request(env, "POST", path, text, timeout_ms, &resp)) &&
	    resp.status / 100 != 2)
		r = github_http_error("check run", &resp);
	buf_release(&resp.body);
	json_decref(body);
	free(text);
	free(path);
	return r;
}
