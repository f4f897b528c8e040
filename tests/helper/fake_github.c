/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_github.c - a test fake of the GitHub REST API endpoints crs-ci uses
 *
 * See fake_github.h. Answers only what github.c calls, with the shapes of
 * GitHub's documented responses; every other path is 404 like GitHub's
 * {"message": "Not Found"}.
 */
#include "tests/helper/fake_github.h"
#include "tests/helper/mhd_fake.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void keep(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type",
				"application/json; charset=utf-8");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* "/repos/o/r/<rest>": 0 with rest pointing after "o/r/", or -1 */
static int repo_path(const char *url, const char **rest)
{
	const char *p;

	if (strncmp(url, "/repos/", 7))
		return -1;
	p = strchr(url + 7, '/');
	if (!p || !(p = strchr(p + 1, '/')))
		return -1;
	*rest = p + 1;
	return 0;
}

/* The pull requests of f->pulls whose head.label is `head` (all: NULL). */
static char *pulls_by_head(const struct fake_github *f, const char *head)
{
	json_t *all = json_loads(f->pulls ? f->pulls : "[]", 0, NULL);
	json_t *out = json_array(), *pr;
	size_t i;
	char *text;

	json_array_foreach(all, i, pr) {
		const char *l = json_string_value(json_object_get(
			json_object_get(pr, "head"), "label"));

		if (!head || (l && !strcmp(l, head)))
			json_array_append(out, pr);
	}
	text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	json_decref(all);
	return text;
}

/* 1 when f->pulls has pull request number `n` */
static int has_pull(const struct fake_github *f, long n)
{
	json_t *all = json_loads(f->pulls ? f->pulls : "[]", 0, NULL), *pr;
	size_t i;
	int found = 0;

	json_array_foreach(all, i, pr)
		found |= json_integer_value(json_object_get(pr, "number")) == n;
	json_decref(all);
	return found;
}

static void record(struct fake_github *f, const char *method,
		   const char *url, const char *head, const char *body,
		   unsigned status)
{
	struct fake_github_req *q;
	size_t n = strlen(url) + (head ? strlen(head) + 8 : 0) + 1;

	q = realloc(f->reqs, (size_t)(f->nr_reqs + 1) * sizeof(*q));
	if (!q)
		return;
	f->reqs = q;
	q = &f->reqs[f->nr_reqs++];
	q->method = strdup(method);
	q->url = malloc(n);
	if (q->url)
		snprintf(q->url, n, "%s%s%s", url, head ? "?head=" : "",
			 head ? head : "");
	q->body = body ? strdup(body) : NULL;
	q->status = status;
}

/* GET pulls, pulls/N/files; POST check-runs. -1: not one of them. */
static int publish_routes(struct fake_github *f, struct MHD_Connection *c,
			  const char *method, const char *rest,
			  const char *body, enum MHD_Result *ret,
			  unsigned *status)
{
	const char *head = MHD_lookup_connection_value(
		c, MHD_GET_ARGUMENT_KIND, "head");
	const char *page = MHD_lookup_connection_value(
		c, MHD_GET_ARGUMENT_KIND, "page");
	char *text, *end;
	long n;

	if (!strcmp(method, "GET") && !strcmp(rest, "pulls")) {
		f->lookups++;
		text = pulls_by_head(f, head);
		*ret = reply(c, *status = 200, text ? text : "[]");
		free(text);
		return 0;
	}
	if (!strcmp(method, "GET") && !strncmp(rest, "pulls/", 6) &&
	    (n = strtol(rest + 6, &end, 10)) > 0 && !strcmp(end, "/files")) {
		if (!has_pull(f, n))
			*ret = reply(c, *status = 404,
				     "{\"message\":\"Not Found\"}");
		else
			*ret = reply(c, *status = 200, page && strcmp(page, "1")
				     ? "[]" : f->files ? f->files : "[]");
		return 0;
	}
	if (!strcmp(method, "POST") && !strcmp(rest, "check-runs")) {
		f->check_runs++;
		keep(&f->check_run_body, body);
		*ret = reply(c, *status = 201, "{\"id\":4,\"status\":"
			     "\"completed\"}");
		return 0;
	}
	return -1;
}

/*
 * POST /repos/{o}/{r}/security-advisories: 201 with a draft advisory, or
 * 422 as GitHub answers a body without summary, description, a known
 * severity or a vulnerabilities array, or with a description over
 * 65,535 characters.
 */
static enum MHD_Result advisory(struct MHD_Connection *c,
				struct fake_github *f, const char *body,
				unsigned *status)
{
	json_t *j = json_loads(body ? body : "", 0, NULL), *a;
	const char *sev = json_string_value(json_object_get(j, "severity"));
	const char *desc = json_string_value(json_object_get(j,
							     "description"));
	char *out;
	enum MHD_Result ret;

	if (!json_is_string(json_object_get(j, "summary")) || !desc ||
	    strlen(desc) > 65535 || !json_is_array(json_object_get(j,
	    "vulnerabilities")) || !sev || (strcmp(sev, "critical") &&
	    strcmp(sev, "high") && strcmp(sev, "medium") &&
	    strcmp(sev, "low"))) {
		json_decref(j);
		return reply(c, *status = 422,
			     "{\"message\":\"Validation Failed\"}");
	}
	a = json_pack("{s:s,s:s,s:O,s:O,s:s}", "ghsa_id",
		      "GHSA-xxxx-xxxx-xxxx", "state", "draft", "summary",
		      json_object_get(j, "summary"), "description",
		      json_object_get(j, "description"), "severity", sev);
	out = json_dumps(a, JSON_COMPACT);
	ret = reply(c, *status = 201, out);
	json_array_insert(f->drafts, 0, a);
	free(out);
	json_decref(a);
	json_decref(j);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *body, size_t len)
{
	struct fake_github *f = cls;
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       "Authorization");
	const char *rest = NULL;
	char want[256], out[512];
	enum MHD_Result ret;
	unsigned status = 0;

	(void)len;
	pthread_mutex_lock(&f->lock);
	f->requests++;
	keep(&f->last_auth, auth);
	keep(&f->last_accept, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							  "Accept"));
	keep(&f->last_api_version, MHD_lookup_connection_value(
		     c, MHD_HEADER_KIND, "X-GitHub-Api-Version"));
	snprintf(want, sizeof(want), "Bearer %s", f->token ? f->token : "");
	if (!auth || strcmp(auth, want)) {
		ret = reply(c, status = 401, "{\"message\":\"Bad credentials\","
			    "\"documentation_url\":\"https://docs.github.com"
			    "/rest\"}");
		goto out;
	}
	if (repo_path(url, &rest)) {
		ret = reply(c, status = 404, "{\"message\":\"Not Found\"}");
		goto out;
	}
	if (!publish_routes(f, c, method, rest, body, &ret, &status))
		goto out;
	if (!strcmp(method, "POST") &&
	    !strcmp(rest, "code-scanning/sarifs")) {
		f->uploads++;
		keep(&f->upload_body, body);
		keep(&f->upload_path, url);
		if (f->upload_status) {
			ret = reply(c, (unsigned)f->upload_status,
				    "{\"message\":\"Resource not accessible "
				    "by integration\"}");
			goto out;
		}
		snprintf(out, sizeof(out), "{\"id\":\"%s\",\"url\":\"http://"
			 "127.0.0.1:%u%s/%s\"}", FAKE_SARIF_ID, f->port, url,
			 FAKE_SARIF_ID);
		ret = reply(c, 202, out);
	} else if (!strcmp(method, "GET") &&
		   !strncmp(rest, "code-scanning/sarifs/", 21)) {
		if (strcmp(rest + 21, FAKE_SARIF_ID)) {
			ret = reply(c, 404, "{\"message\":\"Not Found\"}");
			goto out;
		}
		f->polls++;
		if (f->polls <= f->pending_polls)
			ret = reply(c, 200, "{\"processing_status\":"
				    "\"pending\",\"analyses_url\":null}");
		else if (f->fail_processing)
			ret = reply(c, 200, "{\"processing_status\":"
				    "\"failed\",\"analyses_url\":null,"
				    "\"errors\":[\"locationFromSarifResult: "
				    "expected artifact location\"]}");
		else
			ret = reply(c, 200, "{\"processing_status\":"
				    "\"complete\",\"analyses_url\":\"https://"
				    "api.github.com/repos/o/r/code-scanning/"
				    "analyses?sarif_id=" FAKE_SARIF_ID "\"}");
	} else if (!strcmp(method, "POST") &&
		   !strcmp(rest, "security-advisories")) {
		f->advisories++;
		keep(&f->advisory_body, body);
		keep(&f->advisory_path, url);
		ret = advisory(c, f, body, &status);
	} else if (!strcmp(method, "GET") &&
		   !strcmp(rest, "security-advisories")) {
		char *list = json_dumps(f->drafts, JSON_COMPACT);

		ret = reply(c, status = 200, list);
		free(list);
	} else if (!strcmp(method, "POST") && !strncmp(rest, "pulls/", 6) &&
		   strstr(rest, "/reviews")) {
		f->reviews++;
		keep(&f->review_body, body);
		keep(&f->review_path, url);
		ret = reply(c, status = 200, "{\"id\":80,\"node_id\":\"MDE3OlB1bGxSZ"
			    "XF1ZXN0UmV2aWV3ODA=\",\"state\":\"COMMENTED\"}");
	} else {
		ret = reply(c, status = 404, "{\"message\":\"Not Found\"}");
	}
out:
	record(f, method, url, MHD_lookup_connection_value(
		       c, MHD_GET_ARGUMENT_KIND, "head"), body, status);
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int fake_github_start(struct fake_github **out, const char *token)
{
	struct fake_github *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	pthread_mutex_init(&f->lock, NULL);
	f->token = token;
	f->drafts = json_array();
	f->route.answer = answer;
	f->route.cls = f;
	f->d = mhd_fake_start(&f->route, 0, 0, 0, &f->port);
	if (!f->d) {
		pthread_mutex_destroy(&f->lock);
		free(f);
		return -1;
	}
	*out = f;
	return 0;
}

void fake_github_stop(struct fake_github *f)
{
	if (!f)
		return;
	MHD_stop_daemon(f->d);
	free(f->upload_body);
	free(f->upload_path);
	free(f->review_body);
	free(f->review_path);
	free(f->check_run_body);
	for (int i = 0; i < f->nr_reqs; i++) {
		free(f->reqs[i].method);
		free(f->reqs[i].url);
		free(f->reqs[i].body);
	}
	free(f->reqs);
	json_decref(f->drafts);
	free(f->advisory_body);
	free(f->advisory_path);
	free(f->last_auth);
	free(f->last_accept);
	free(f->last_api_version);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

#ifdef FAKE_GITHUB_MAIN
#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t fgh_stop;

static void fgh_on_signal(int sig)
{
	(void)sig;
	fgh_stop = 1;
}

static char *slurp(const char *path)
{
	FILE *in = fopen(path, "r");
	char *text = NULL;
	long n;

	if (!in)
		return NULL;
	if (fseek(in, 0, SEEK_END) == 0 && (n = ftell(in)) >= 0 &&
	    fseek(in, 0, SEEK_SET) == 0 && (text = calloc(1, (size_t)n + 1)))
		if (fread(text, 1, (size_t)n, in) != (size_t)n) {
			free(text);
			text = NULL;
		}
	fclose(in);
	return text;
}

/*
 * fake-github TOKEN PULLS FILES LOG: serve on 127.0.0.1 the pull requests
 * of the JSON file PULLS and the files of FILES, print the API URL, and
 * on SIGTERM write every request to LOG as JSON lines {"method", "url",
 * "status", "body"} (body parsed when JSON). With FAKE_GITHUB_DRAFTS=FILE
 * the draft advisories are read from FILE at the start and written back
 * at the end, so a later run sees an earlier one's.
 */
int main(int argc, char **argv)
{
	struct fake_github *f = NULL;
	char *pulls, *files;
	const char *drafts_path;
	json_t *kept = NULL;
	FILE *log;

	if (argc != 5) {
		fprintf(stderr, "usage: fake-github TOKEN PULLS FILES LOG\n");
		return 2;
	}
	if (!(pulls = slurp(argv[2])) || !(files = slurp(argv[3]))) {
		fprintf(stderr, "fake-github: cannot read %s or %s\n",
			argv[2], argv[3]);
		return 2;
	}
	signal(SIGTERM, fgh_on_signal);
	signal(SIGINT, fgh_on_signal);
	if (fake_github_start(&f, argv[1]) != 0) {
		fprintf(stderr, "fake-github: cannot listen\n");
		return 1;
	}
	pthread_mutex_lock(&f->lock);
	f->pulls = pulls;
	f->files = files;
	/* drafts kept across runs of this fake: another publish's */
	if ((drafts_path = getenv("FAKE_GITHUB_DRAFTS")) &&
	    (kept = json_load_file(drafts_path, 0, NULL)) &&
	    json_is_array(kept)) {
		json_decref(f->drafts);
		f->drafts = kept;
	} else {
		json_decref(kept);
	}
	pthread_mutex_unlock(&f->lock);
	printf("http://127.0.0.1:%u\n", f->port);
	fflush(stdout);
	while (!fgh_stop)
		pause();
	if (!(log = fopen(argv[4], "w"))) {
		fake_github_stop(f);
		return 1;
	}
	pthread_mutex_lock(&f->lock);
	for (int i = 0; i < f->nr_reqs; i++) {
		const struct fake_github_req *q = &f->reqs[i];
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
	if (drafts_path)
		json_dump_file(f->drafts, drafts_path, JSON_COMPACT);
	pthread_mutex_unlock(&f->lock);
	fclose(log);
	fake_github_stop(f);
	free(pulls);
	free(files);
	return 0;
}
#endif
