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
		ret = reply(c, 401, "{\"message\":\"Bad credentials\","
			    "\"documentation_url\":\"https://docs.github.com"
			    "/rest\"}");
		goto out;
	}
	if (repo_path(url, &rest)) {
		ret = reply(c, 404, "{\"message\":\"Not Found\"}");
		goto out;
	}
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
	} else if (!strcmp(method, "POST") && !strncmp(rest, "pulls/", 6) &&
		   strstr(rest, "/reviews")) {
		f->reviews++;
		keep(&f->review_body, body);
		keep(&f->review_path, url);
		ret = reply(c, 200, "{\"id\":80,\"node_id\":\"MDE3OlB1bGxSZ"
			    "XF1ZXN0UmV2aWV3ODA=\",\"state\":\"COMMENTED\"}");
	} else {
		ret = reply(c, 404, "{\"message\":\"Not Found\"}");
	}
out:
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
	free(f->last_auth);
	free(f->last_accept);
	free(f->last_api_version);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
