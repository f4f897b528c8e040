/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker.c - Docker Engine API client (API v1.41, Docker 20.10): the
 * client, one call, and every HTTP status mapped in docker_status_error()
 *
 * Only docker*.c know the Engine's HTTP paths: images in docker_image.c,
 * containers in docker_container.c, networks and owned objects in
 * docker_objects.c. Requests (jansson JSON, escaped ids) go through an
 * http_transport (runner/http/http.c, or a fake in tests).
 */
#include "runner/engine/docker.h"
#include "runner/engine/docker_call.h"
#include "common/strvec.h"
#include "runner/http/http.h"
#include "runner/engine/tar_context.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/log_lines.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/crypto.h>

CRS_TESTABLE int docker_client_new_with_transport(struct docker_client **out,
				     struct http_transport *t);

/* --- small helpers ------------------------------------------------------ */

/* Percent-escape everything but RFC 3986 unreserved characters. */
static void docker_escape(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' ||
		    c == '~') {
			buf_addch(b, (char)c);
		} else {
			buf_addch(b, '%');
			buf_addch(b, hex[c >> 4]);
			buf_addch(b, hex[c & 15]);
		}
	}
}

/* Start a path: DOCKER_API + prefix + escaped(name) + suffix. */
void docker_path(struct buf *b, const char *prefix, const char *name,
			const char *suffix)
{
	buf_reset(b);
	buf_adds(b, DOCKER_API);
	buf_adds(b, prefix);
	if (name)
		docker_escape(b, name);
	if (suffix)
		buf_adds(b, suffix);
}

/* Append "?key=value" or "&key=value", value escaped. */
void docker_query(struct buf *b, const char *key, const char *value)
{
	buf_addch(b, strchr(b->ptr, '?') ? '&' : '?');
	buf_adds(b, key);
	buf_addch(b, '=');
	docker_escape(b, value);
}

static int docker_is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

const char *docker_id_hex(const char *id)
{
	return strncmp(id, "sha256:", 7) ? id : id + 7;
}

/*
 * A name for messages: a 64-hex id (optionally "sha256:") is cut to 12
 * characters as the docker CLI shows them; anything else is quoted.
 */
const char *docker_short(char *out, size_t n, const char *s)
{
	if (!strncmp(s, "sha256:", 7) && strlen(s) == 71 &&
	    docker_is_hex(s + 7, 64))
		s += 7;
	if (strlen(s) == 64 && docker_is_hex(s, 64) && n > 12) {
		memcpy(out, s, 12);
		out[12] = '\0';
		return out;
	}
	return log_quote(out, n, s, strlen(s));
}

/* The engine's "message" from an error body, quoted, or the raw body. */
const char *docker_message(char *out, size_t n,
				  const struct http_response *resp)
{
	json_t *j = json_loadb(resp->body.ptr, resp->body.len, 0, NULL);
	json_t *m = json_is_object(j) ? json_object_get(j, "message") : NULL;
	const char *s = resp->body.ptr;
	size_t len = resp->body.len;

	if (json_is_string(m)) {
		s = json_string_value(m);
		len = json_string_length(m);
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len) {
		s = "(no message)";
		len = strlen(s);
	}
	log_quote(out, n, s, len);
	json_decref(j);
	return out;
}

/*
 * Map a non-success status to a code and message. `kind` ("container",
 * "image", "network") names what a 404 means, or NULL to use the engine's
 * message; `what` names the operation ("start container 'abc'").
 */
int docker_status_error(const struct http_response *resp,
			       const char *kind, const char *name,
			       const char *what)
{
	char msg[DOCKER_MSG_MAX];
	char sid[256];

	docker_message(msg, sizeof(msg), resp);
	switch (resp->status) {
	case 404:
		if (kind && name)
			return crs_error_set(CRS_ENOTFOUND,
				"%s '%s' not found", kind,
				docker_short(sid, sizeof(sid), name));
		return crs_error_set(CRS_ENOTFOUND, "%s: %s", what, msg);
	case 409:
		return crs_error_set(CRS_ECONFLICT, "%s: %s", what, msg);
	default:
		return crs_error_set(CRS_EENGINE, "%s: HTTP %ld: %s", what,
				     resp->status, msg);
	}
}

/* Execute a request with an optional JSON body. Transport codes pass. */
int docker_call(struct docker_client *d, const char *method,
		       const char *path, json_t *body, long timeout_ms,
		       struct http_response *resp)
{
	struct http_request req = {
		.method = method,
		.path = path,
		.timeout_ms = timeout_ms,
	};
	char *text = NULL;
	int r;

	if (body) {
		text = json_dumps(body, JSON_COMPACT);
		if (!text)
			return crs_error_set(CRS_ERR, "%s %s: cannot encode "
					     "the request body", method, path);
		req.content_type = "application/json";
		req.body = text;
		req.body_len = strlen(text);
	}
	r = d->t->request(d->t, &req, resp);
	free(text);
	return r;
}

int docker_parse_json(const struct http_response *resp,
			     const char *what, json_t **out)
{
	json_error_t err;

	*out = json_loadb(resp->body.ptr, resp->body.len, 0, &err);
	if (!*out)
		return crs_error_set(CRS_EENGINE, "%s: engine answered "
				     "invalid JSON: %d:%d: %s", what,
				     err.line, err.column, err.text);
	return 0;
}

/*
 * The string member `key` of the answer's JSON object (caller frees); with
 * `out` NULL, only checked to be there.
 */
int docker_answer_string(const struct http_response *resp,
				const char *what, const char *key, char **out)
{
	json_t *j = NULL, *v;
	int r;

	if (out)
		*out = NULL;
	if ((r = docker_parse_json(resp, what, &j)) != 0)
		return r;
	v = json_is_object(j) ? json_object_get(j, key) : NULL;
	if (!json_is_string(v))
		r = crs_error_set(CRS_EENGINE, "%s: engine answer has no "
				  "\"%s\"", what, key);
	else if (out)
		*out = xstrdup(json_string_value(v));
	json_decref(j);
	return r;
}

json_t *docker_jstr(struct docker_json *b, const char *s)
{
	json_t *j = json_string(s);

	if (!j && !b->bad)
		b->bad = s;
	return j;
}

void docker_jset(struct docker_json *b, json_t *obj, const char *key,
			json_t *v)
{
	if (json_object_set_new(obj, key, v) != 0 && !b->bad)
		b->bad = key;
}

json_t *docker_jstrv(struct docker_json *b, const char *const *v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, docker_jstr(b, *v));
	return a;
}

/* {"KEY": "VALUE", ...} from "KEY=VALUE" strings; CRS_EINPUT otherwise. */
int docker_jkv(struct docker_json *b, const char *const *kv,
		      const char *what, json_t **out)
{
	json_t *o = json_object();

	*out = NULL;
	for (; kv && *kv; kv++) {
		const char *eq = strchr(*kv, '=');
		char *key;
		char q[256];

		if (!eq || eq == *kv) {
			json_decref(o);
			return crs_error_set(CRS_EINPUT, "%s '%s' is not "
					     "KEY=VALUE", what,
					     log_quote(q, sizeof(q), *kv,
						       strlen(*kv)));
		}
		key = xstrndup(*kv, (size_t)(eq - *kv));
		docker_jset(b, o, key, docker_jstr(b, eq + 1));
		free(key);
	}
	*out = o;
	return 0;
}

int docker_json_check(const struct docker_json *b, const char *what)
{
	char q[256];

	if (!b->bad)
		return 0;
	return crs_error_set(CRS_EINPUT, "%s: '%s' is not valid UTF-8", what,
			     log_quote(q, sizeof(q), b->bad, strlen(b->bad)));
}

/* --- the client --------------------------------------------------------- */

int docker_client_new(struct docker_client **out, const char *host)
{
	const char *env_host = getenv("DOCKER_HOST");
	const char *verify = getenv("DOCKER_TLS_VERIFY");
	const char *cert_path = getenv("DOCKER_CERT_PATH");
	const char *home = getenv("HOME");
	struct http_transport *t = NULL;
	char *cert_dir = NULL;
	int tls = verify && verify[0] && strcmp(verify, "0") != 0;
	int r;

	*out = NULL;
	if (!host)
		host = env_host && env_host[0] ? env_host :
			DOCKER_DEFAULT_HOST;
	if (cert_path && cert_path[0])
		cert_dir = xstrdup(cert_path);
	else if (home && home[0])
		cert_dir = xasprintf("%s/.docker", home);
	r = http_curl_new(&t, host, tls, cert_dir);
	free(cert_dir);
	if (r != 0)
		return r;
	r = docker_client_new_with_transport(out, t);
	if (r == 0) {
		free((*out)->host);
		(*out)->host = xstrdup(host);
	}
	return r;
}

CRS_TESTABLE int docker_client_new_with_transport(struct docker_client **out,
				     struct http_transport *t)
{
	struct docker_client *d = xcalloc(1, sizeof(*d));

	d->t = t;
	d->host = xstrdup("(injected transport)");
	*out = d;
	return 0;
}

void docker_client_free(struct docker_client *d)
{
	if (!d)
		return;
	if (d->t && d->t->free)
		d->t->free(d->t);
	free(d->host);
	free(d);
}

#ifdef UNIT_TESTS
const char *docker_client_host(const struct docker_client *d)
{
	return d->host;
}
#endif

int docker_ping(struct docker_client *d)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	char msg[DOCKER_MSG_MAX];
	int r;

	r = docker_call(d, "GET", DOCKER_API "/_ping", NULL,
			DOCKER_PING_TIMEOUT_MS, &resp);
	if (r == 0 && resp.status != 200)
		r = crs_error_set(CRS_EENGINE, "engine at %s answered ping "
				  "with HTTP %ld: %s", d->host, resp.status,
				  docker_message(msg, sizeof(msg), &resp));
	http_response_release(&resp);
	return r;
}

/*
 * A request without a body on one engine object, `kind` "image",
 * "container" or "network": the path is "/<kind>s/" + escaped `id` +
 * `suffix`, then the `query` pairs up to a NULL key (a pair whose value is
 * NULL is left out). Statuses in `ok` (0-ended) are success; any other is
 * mapped by docker_status_error() with `what` "<verb> <kind> '<id>'".
 * With `out`, the answer is parsed as JSON (caller decrefs).
 */
int docker_object_op(struct docker_client *d, const char *method,
			    const char *kind, const char *id,
			    const char *suffix, const char *const *query,
			    const long *ok, long timeout_ms,
			    const char *verb, json_t **out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct buf path = BUF_INIT;
	char what[300], sid[256], prefix[32];
	int r;

	if (out)
		*out = NULL;
	snprintf(what, sizeof(what), "%s %s '%s'", verb, kind,
		 docker_short(sid, sizeof(sid), id));
	snprintf(prefix, sizeof(prefix), "/%ss/", kind);
	docker_path(&path, prefix, id, suffix);
	for (; query && query[0]; query += 2)
		if (query[1])
			docker_query(&path, query[0], query[1]);
	r = docker_call(d, method, path.ptr, NULL, timeout_ms, &resp);
	while (r == 0 && *ok && resp.status != *ok)
		ok++;
	if (r == 0 && !*ok)
		r = docker_status_error(&resp, kind, id, what);
	if (r == 0 && out)
		r = docker_parse_json(&resp, what, out);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}
