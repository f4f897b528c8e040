/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_gitlab.c - fake GitLab MR versions/discussions API for unit tests
 *
 * Answers only what crs-ci calls, with the status codes and shapes of
 * GitLab's doc/api/merge_requests.md (versions) and discussions.md, and
 * validates a discussion's position the way GitLab does (the shas must
 * be the MR's current diff_refs, old_path and new_path both present).
 * Not product code: plain malloc, no crs-ci headers.
 */
#include "tests/helper/fake_gitlab.h"
#include "tests/helper/mhd_fake.h"

#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>


static enum MHD_Result fg_reply(struct MHD_Connection *c, unsigned status,
				const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static const char *fg_versions =
	"[{\"id\":2,\"head_commit_sha\":\"" FAKE_GITLAB_HEAD "\","
	"\"base_commit_sha\":\"" FAKE_GITLAB_BASE "\","
	"\"start_commit_sha\":\"" FAKE_GITLAB_START "\","
	"\"created_at\":\"2024-05-02T10:00:00.000Z\",\"merge_request_id\":9,"
	"\"state\":\"collected\",\"real_size\":\"1\"},"
	"{\"id\":1,\"head_commit_sha\":\"" FAKE_GITLAB_OLD_HEAD "\","
	"\"base_commit_sha\":\"" FAKE_GITLAB_BASE "\","
	"\"start_commit_sha\":\"" FAKE_GITLAB_START "\","
	"\"created_at\":\"2024-05-01T10:00:00.000Z\",\"merge_request_id\":9,"
	"\"state\":\"collected\",\"real_size\":\"1\"}]";

/* Label events, oldest first (GitLab's order): "llm-now" added after the
 * newest version, "crs-ci-llm" between the two versions, "llm-removed"
 * added and removed after the newest, "llm-offset" added after it in a
 * +02:00 time. */
#define FG_EVENT(id, at, name, action) \
	"{\"id\":" #id ",\"user\":{\"username\":\"maintainer\"}," \
	"\"created_at\":\"" at "\",\"resource_type\":\"MergeRequest\"," \
	"\"resource_id\":9,\"label\":{\"id\":" #id ",\"name\":\"" name \
	"\"},\"action\":\"" action "\"}"
static const char *fg_label_events =
	"[" FG_EVENT(1, "2024-05-01T12:00:00.000Z", "crs-ci-llm", "add") ","
	FG_EVENT(2, "2024-05-02T11:00:00.000Z", "llm-now", "add") ","
	FG_EVENT(3, "2024-05-02T11:00:00.000Z", "llm-removed", "add") ","
	FG_EVENT(4, "2024-05-02T12:00:00.000Z", "llm-removed", "remove") ","
	FG_EVENT(5, "2024-05-02T12:30:00.000+02:00", "llm-offset", "add") "]";

static int fg_str_is(json_t *o, const char *key, const char *want)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) && (!want || !strcmp(json_string_value(v),
						       want));
}

/* 201 and a discussion, or 400 with GitLab's message shape. */
static unsigned fg_discussion(const char *body, char **answer)
{
	json_t *j = json_loads(body ? body : "", 0, NULL);
	json_t *pos = json_object_get(j, "position");
	unsigned st = 400;

	*answer = NULL;
	if (!fg_str_is(j, "body", NULL)) {
		*answer = strdup("{\"error\":\"body is missing\"}");
	} else if (!json_is_object(pos) ||
		   !fg_str_is(pos, "position_type", "text") ||
		   !fg_str_is(pos, "base_sha", FAKE_GITLAB_BASE) ||
		   !fg_str_is(pos, "start_sha", FAKE_GITLAB_START) ||
		   !fg_str_is(pos, "head_sha", FAKE_GITLAB_HEAD) ||
		   !fg_str_is(pos, "old_path", NULL) ||
		   !fg_str_is(pos, "new_path", NULL) ||
		   /* an added or kept line has new_line, a removed one
		    * old_line alone */
		   (!json_is_integer(json_object_get(pos, "new_line")) &&
		    !json_is_integer(json_object_get(pos, "old_line")))) {
		*answer = strdup("{\"message\":\"400 Bad request - Note "
				 "{:line_code=>[\\\"can't be blank\\\"]}\"}");
	} else {
		json_t *a = json_pack(
			"{s:s, s:b, s:[{s:i, s:s, s:O, s:O}]}",
			"id", "6a9c1750b37d513a43987b574953fceb50b03ce7",
			"individual_note", 0, "notes", "id", 1126,
			"type", "DiffNote", "body", json_object_get(j, "body"),
			"position", pos);

		*answer = json_dumps(a, JSON_COMPACT);
		json_decref(a);
		st = 201;
	}
	json_decref(j);
	return st;
}

/* POST /projects/:id/issues: 201 with the issue, 400 without a title */
static unsigned fg_issue(const char *body, char **answer)
{
	json_t *j = json_loads(body ? body : "", 0, NULL), *a;
	json_t *conf = json_object_get(j, "confidential");

	if (!fg_str_is(j, "title", NULL)) {
		json_decref(j);
		*answer = strdup("{\"error\":\"title is missing\"}");
		return 400;
	}
	a = json_pack("{s:i,s:i,s:O,s:b}", "id", 84, "iid", 12, "title",
		      json_object_get(j, "title"), "confidential",
		      json_is_true(conf));
	*answer = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	json_decref(j);
	return 201;
}

static enum MHD_Result fg_answer(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *body, size_t len)
{
	struct fake_gitlab *f = cls;
	const char *tok, *ct;
	char prefix[160], issues[128], *answer = NULL;
	const char *tail;
	unsigned st;
	struct fake_gitlab_req *rq = NULL;
	enum MHD_Result ret;

	tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "PRIVATE-TOKEN");
	ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	snprintf(prefix, sizeof(prefix),
		 "/api/v4/projects/%s/merge_requests/%s/", f->project_id,
		 f->mr_iid);
	tail = strncmp(url, prefix, strlen(prefix)) ? NULL :
		url + strlen(prefix);
	snprintf(issues, sizeof(issues), "/api/v4/projects/%s/issues",
		 f->project_id);
	if (!tok || !f->token || strcmp(tok, f->token)) {
		st = 401;
		answer = strdup("{\"message\":\"401 Unauthorized\"}");
	} else if (tail && !strcmp(tail, "versions") &&
		   !strcmp(method, "GET")) {
		st = 200;
		answer = strdup(fg_versions);
	} else if (tail && !strcmp(tail, "resource_label_events") &&
		   !strcmp(method, "GET")) {
		st = 200;
		answer = strdup(fg_label_events);
	} else if (tail && !strcmp(tail, "discussions") &&
		   !strcmp(method, "POST")) {
		st = fg_discussion(body, &answer);
	} else if (!strcmp(url, issues) && !strcmp(method, "POST")) {
		st = fg_issue(body, &answer);
	} else {
		st = 404;
		answer = strdup("{\"message\":\"404 Not found\"}");
	}
	pthread_mutex_lock(&f->lock);
	if (f->nr_reqs < FAKE_GITLAB_MAX_REQ)
		rq = &f->reqs[f->nr_reqs++];
	if (rq) {
		snprintf(rq->method, sizeof(rq->method), "%s", method);
		snprintf(rq->url, sizeof(rq->url), "%s", url);
		snprintf(rq->token, sizeof(rq->token), "%s", tok ? tok : "");
		snprintf(rq->content_type, sizeof(rq->content_type), "%s",
			 ct ? ct : "");
		rq->body = body ? strndup(body, len) : NULL;
		rq->status = st;
	}
	pthread_mutex_unlock(&f->lock);
	ret = fg_reply(c, st, answer ? answer : "{}");
	free(answer);
	return ret;
}

int fake_gitlab_start(struct fake_gitlab **out, const char *token,
		      const char *project_id, const char *mr_iid)
{
	struct fake_gitlab *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	pthread_mutex_init(&f->lock, NULL);
	f->token = token;
	f->project_id = project_id;
	f->mr_iid = mr_iid;
	f->route.answer = fg_answer;
	f->route.cls = f;
	f->d = mhd_fake_start(&f->route, 0, 0, 1, &f->port);
	if (!f->d) {
		pthread_mutex_destroy(&f->lock);
		free(f);
		return -1;
	}
	snprintf(f->api_url, sizeof(f->api_url), "http://127.0.0.1:%u/api/v4",
		 f->port);
	*out = f;
	return 0;
}

void fake_gitlab_stop(struct fake_gitlab *f)
{
	if (!f)
		return;
	MHD_stop_daemon(f->d);
	for (int i = 0; i < f->nr_reqs; i++)
		free(f->reqs[i].body);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

#ifdef FAKE_GITLAB_MAIN
#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t fg_stop;

static void fg_on_signal(int sig)
{
	(void)sig;
	fg_stop = 1;
}

/*
 * fake-gitlab TOKEN PROJECT_ID MR_IID LOG: serve on 127.0.0.1, print the
 * API URL, and on SIGTERM write every request it got to LOG as JSON
 * lines {"method", "url", "status", "body"} (body parsed when JSON).
 */
int main(int argc, char **argv)
{
	struct fake_gitlab *f = NULL;
	FILE *log;

	if (argc != 5) {
		fprintf(stderr, "usage: fake-gitlab TOKEN PROJECT_ID MR_IID "
			"LOG\n");
		return 2;
	}
	signal(SIGTERM, fg_on_signal);
	signal(SIGINT, fg_on_signal);
	if (fake_gitlab_start(&f, argv[1], argv[2], argv[3]) != 0) {
		fprintf(stderr, "fake-gitlab: cannot listen\n");
		return 1;
	}
	printf("%s\n", f->api_url);
	fflush(stdout);
	while (!fg_stop)
		pause();
	if (!(log = fopen(argv[4], "w"))) {
		fake_gitlab_stop(f);
		return 1;
	}
	pthread_mutex_lock(&f->lock);
	for (int i = 0; i < f->nr_reqs; i++) {
		const struct fake_gitlab_req *q = &f->reqs[i];
		json_t *body = q->body ? json_loads(q->body, 0, NULL) : NULL;
		json_t *line = json_pack("{s:s, s:s, s:i, s:o}", "method",
					 q->method, "url", q->url, "status",
					 (int)q->status, "body",
					 body ? body : json_null());
		char *text = json_dumps(line, JSON_COMPACT);

		fprintf(log, "%s\n", text);
		free(text);
		json_decref(line);
	}
	pthread_mutex_unlock(&f->lock);
	fclose(log);
	fake_gitlab_stop(f);
	return 0;
}
#endif
