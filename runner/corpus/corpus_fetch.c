/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_fetch.c - one capped GET of a corpus archive into a file
 */
#include "runner/corpus/corpus_fetch.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/safe_io.h"
#include "common/xalloc.h"
#include "runner/corpus/corpus_source.h"
#include "runner/http/http.h"

struct sink {
	int fd;
	size_t got, max;
	const char *url;
};

static int on_data(const char *data, size_t len, void *ctx)
{
	struct sink *k = ctx;

	if (k->got + len > k->max)
		return crs_error_set(CRS_EINPUT, "%s: larger than %zu MiB "
				     "(the cap): refused", k->url,
				     k->max >> 20);
	k->got += len;
	return safe_write_all(k->fd, data, len, k->url);
}

int corpus_fetch(const char *url, int fd, size_t max, long timeout_s,
		 volatile int *interrupted)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_transport *t = NULL;
	char *shown = corpus_source_shown(url), *base = NULL;
	struct sink k = { fd, 0, max, shown };
	const char *host = strstr(url, "://"), *path = NULL;
	int r;

	if (host && corpus_source_is_url(url))
		path = strchr(host + 3, '/');
	if (!path || path == host + 3) {
		r = crs_error_set(CRS_EINPUT, "%s: not an http(s) URL with a "
				  "host and a path", shown);
		goto out;
	}
	base = xstrndup(url, (size_t)(path - url));
	if ((r = http_api_new(&t, base, "corpus")) == 0) {
		struct http_request req = {
			.method = "GET", .path = path, .what = shown,
			.timeout_ms = timeout_s > 0 ? timeout_s * 1000 : 0,
			.max_response = 1 << 16, .on_data = on_data,
			.on_data_ctx = &k, .interrupted = interrupted,
		};

		r = t->request(t, &req, &resp);
	}
	if (r == 0 && (resp.status == 403 || resp.status == 404 ||
		       resp.status == 410))
		r = crs_error_set(CRS_ENOTFOUND, "%s: HTTP %ld", shown,
				  resp.status);
	else if (r == 0 && (resp.status < 200 || resp.status >= 300))
		r = crs_error_set(CRS_ERR, "%s: HTTP %ld", shown,
				  resp.status);
out:
	http_response_release(&resp);
	if (t)
		t->free(t);
	free(base);
	free(shown);
	return r;
}
