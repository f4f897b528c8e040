/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker.c - Docker Engine API client (API v1.41, Docker 20.10)
 *
 * The only file that knows the Engine's HTTP paths. Requests are built
 * here (JSON with jansson, ids and names percent-escaped) and executed by
 * an http_transport (runner/http/http.c, or a fake in tests). Every HTTP status
 * is mapped in one place, docker_status_error(): 404 -> CRS_ENOTFOUND,
 * 409 -> CRS_ECONFLICT, anything else -> CRS_EENGINE, each carrying the
 * engine's own JSON "message".
 */
#include "runner/engine/docker.h"
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

#define DOCKER_API "/v1.41"
#define DOCKER_DEFAULT_HOST "unix:///var/run/docker.sock"

#define DOCKER_PING_TIMEOUT_MS 15000L
#define DOCKER_CALL_TIMEOUT_MS 120000L		/* ordinary API calls */
#define DOCKER_LONG_TIMEOUT_MS (30L * 60 * 1000)	/* import, commit */
#define DOCKER_WAIT_POLL_MS 200L
#define DOCKER_LOGS_DEFAULT_MAX ((size_t)64 << 20)
#define DOCKER_BUILD_LINE_MAX ((size_t)4 << 20)
#define DOCKER_BUILD_TAIL_BYTES 16384
#define DOCKER_BUILD_TAIL_LINES 20
#define DOCKER_BUILD_TAIL_CAP 1200	/* bytes of them in the error */
#define DOCKER_MSG_MAX 512

struct docker_client {
	struct http_transport *t;
	char *host;
};

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
static void docker_path(struct buf *b, const char *prefix, const char *name,
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
static void docker_query(struct buf *b, const char *key, const char *value)
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
static const char *docker_short(char *out, size_t n, const char *s)
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
static const char *docker_message(char *out, size_t n,
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
static int docker_status_error(const struct http_response *resp,
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
static int docker_call(struct docker_client *d, const char *method,
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

static int docker_parse_json(const struct http_response *resp,
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
static int docker_answer_string(const struct http_response *resp,
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

/*
 * JSON building that remembers the first string jansson refused (not
 * UTF-8), so the caller can report it instead of sending a partial body.
 */
struct docker_json {
	const char *bad;
};

static json_t *docker_jstr(struct docker_json *b, const char *s)
{
	json_t *j = json_string(s);

	if (!j && !b->bad)
		b->bad = s;
	return j;
}

static void docker_jset(struct docker_json *b, json_t *obj, const char *key,
			json_t *v)
{
	if (json_object_set_new(obj, key, v) != 0 && !b->bad)
		b->bad = key;
}

static json_t *docker_jstrv(struct docker_json *b, const char *const *v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, docker_jstr(b, *v));
	return a;
}

/* {"KEY": "VALUE", ...} from "KEY=VALUE" strings; CRS_EINPUT otherwise. */
static int docker_jkv(struct docker_json *b, const char *const *kv,
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

static int docker_json_check(const struct docker_json *b, const char *what)
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
static int docker_object_op(struct docker_client *d, const char *method,
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

/* --- images ------------------------------------------------------------- */

static int docker_image_inspect(struct docker_client *d, const char *ref,
				json_t **out)
{
	static const long ok[] = { 200, 0 };

	return docker_object_op(d, "GET", "image", ref, "/json", NULL, ok,
				DOCKER_CALL_TIMEOUT_MS, "inspect", out);
}

int docker_image_exists(struct docker_client *d, const char *ref,
			char **id_out)
{
	json_t *j = NULL;
	json_t *id;
	int r;

	if (id_out)
		*id_out = NULL;
	if ((r = docker_image_inspect(d, ref, &j)) != 0)
		return r;
	id = json_object_get(j, "Id");
	if (id_out && json_is_string(id))
		*id_out = xstrdup(json_string_value(id));
	json_decref(j);
	return 0;
}

int docker_image_workdir(struct docker_client *d, const char *ref,
			 char **out)
{
	json_t *j = NULL;
	json_t *wd;
	int r;

	*out = NULL;
	if ((r = docker_image_inspect(d, ref, &j)) != 0)
		return r;
	wd = json_object_get(json_object_get(j, "Config"), "WorkingDir");
	*out = xstrdup(json_is_string(wd) ? json_string_value(wd) : "");
	json_decref(j);
	return 0;
}

int docker_image_cmd(struct docker_client *d, const char *ref,
		     struct strvec *out)
{
	json_t *j = NULL;
	json_t *cmd, *v;
	size_t i;
	int r;

	if ((r = docker_image_inspect(d, ref, &j)) != 0)
		return r;
	cmd = json_object_get(json_object_get(j, "Config"), "Cmd");
	json_array_foreach(cmd, i, v)
		if (json_is_string(v))
			strvec_push(out, json_string_value(v));
	json_decref(j);
	return 0;
}

int docker_image_label(struct docker_client *d, const char *ref,
		       const char *key, char **out)
{
	json_t *j = NULL;
	json_t *v;
	char sid[256], q[256];
	int r;

	*out = NULL;
	if ((r = docker_image_inspect(d, ref, &j)) != 0)
		return r;
	v = json_object_get(json_object_get(json_object_get(j, "Config"),
					    "Labels"), key);
	if (json_is_string(v))
		*out = xstrdup(json_string_value(v));
	else
		r = crs_error_set(CRS_ENOTFOUND, "image '%s' has no label "
				  "'%s'", docker_short(sid, sizeof(sid), ref),
				  log_quote(q, sizeof(q), key, strlen(key)));
	json_decref(j);
	return r;
}

int docker_image_layers(struct docker_client *d, const char *ref,
			struct strvec *out)
{
	json_t *j = NULL, *v;
	size_t i;
	int r;

	if ((r = docker_image_inspect(d, ref, &j)) != 0)
		return r;
	json_array_foreach(json_object_get(json_object_get(j, "RootFS"),
					   "Layers"), i, v)
		if (json_is_string(v))
			strvec_push(out, json_string_value(v));
	json_decref(j);
	return 0;
}

/*
 * The JSON-lines stream of POST /build and POST /images/create: objects
 * with "stream" (output text), "status" (progress), "aux" ({"ID": ...})
 * and "error"/"errorDetail". Lines may arrive split across chunks.
 */
struct docker_pull_track;

struct docker_stream {
	struct buf line;	/* an incomplete line */
	struct buf tail;	/* the last output text, for error messages */
	struct buf error;	/* the first error message */
	char *id;		/* aux ID, or the last "status" of an import */
	int saw_success;	/* "Successfully built" seen */
	int log_fd;		/* -1: no log */
	const char *log_path;
	struct docker_pull_track *pull;	/* a pull's progress, or NULL */
};

static void docker_pull_status(struct docker_pull_track *t, json_t *j);

static int docker_stream_write(struct docker_stream *s, const char *text,
			       size_t len)
{
	size_t done = 0;

	while (s->log_fd >= 0 && done < len) {
		ssize_t n = write(s->log_fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return crs_error_set(CRS_ERR, "%s: write: %s",
					     s->log_path, strerror(errno));
		done += (size_t)n;
	}
	return 0;
}

/* Output text: to the log and to the tail kept for error messages. */
static int docker_stream_log(struct docker_stream *s, const char *text,
			     size_t len)
{
	if (s->tail.len + len > 2 * DOCKER_BUILD_TAIL_BYTES) {
		size_t keep = s->tail.len > DOCKER_BUILD_TAIL_BYTES ?
			DOCKER_BUILD_TAIL_BYTES : s->tail.len;

		memmove(s->tail.ptr, s->tail.ptr + s->tail.len - keep, keep);
		s->tail.len = keep;
		s->tail.ptr[keep] = '\0';
	}
	buf_add(&s->tail, text, len);
	return docker_stream_write(s, text, len);
}

static int docker_stream_line(struct docker_stream *s, const char *p,
			      size_t n)
{
	json_t *j, *v, *detail;
	int r = 0;

	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	while (n && isspace((unsigned char)*p)) {
		p++;
		n--;
	}
	if (!n)
		return 0;
	j = json_loadb(p, n, 0, NULL);
	if (!json_is_object(j)) {
		/* Not one of the engine's objects: keep it as output. */
		json_decref(j);
		if ((r = docker_stream_log(s, p, n)) == 0)
			r = docker_stream_log(s, "\n", 1);
		return r;
	}
	v = json_object_get(j, "stream");
	if (json_is_string(v)) {
		const char *text = json_string_value(v);

		if (!strncmp(text, "Successfully built ", 19))
			s->saw_success = 1;
		r = docker_stream_log(s, text, json_string_length(v));
	}
	v = json_object_get(j, "status");
	if (r == 0 && json_is_string(v) && s->pull)
		docker_pull_status(s->pull, j);
	else if (r == 0 && json_is_string(v)) {
		free(s->id);
		s->id = xstrdup(json_string_value(v));
		if (!json_object_get(j, "progress") &&
		    (r = docker_stream_log(s, json_string_value(v),
					   json_string_length(v))) == 0)
			r = docker_stream_log(s, "\n", 1);
	}
	v = json_object_get(json_object_get(j, "aux"), "ID");
	if (r == 0 && json_is_string(v)) {
		free(s->id);
		s->id = xstrdup(json_string_value(v));
	}
	v = json_object_get(j, "error");
	detail = json_object_get(json_object_get(j, "errorDetail"),
				 "message");
	if (!json_is_string(v))
		v = detail;
	if (r == 0 && (json_is_string(v) || json_object_get(j, "error"))) {
		const char *msg = json_is_string(v) ? json_string_value(v) :
			"unknown error";

		if (!s->error.len)
			buf_adds(&s->error, msg);
		if ((r = docker_stream_write(s, "ERROR: ", 7)) == 0 &&
		    (r = docker_stream_write(s, msg, strlen(msg))) == 0)
			r = docker_stream_write(s, "\n", 1);
	}
	json_decref(j);
	return r;
}

/* on_data callback: feed complete lines, keep the rest for later. */
static int docker_stream_feed(const char *data, size_t len, void *ctx)
{
	struct docker_stream *s = ctx;
	size_t start = 0;
	int r = 0;

	buf_add(&s->line, data, len);
	for (size_t i = s->line.len - len; i < s->line.len && r == 0; i++) {
		if (s->line.ptr[i] != '\n')
			continue;
		r = docker_stream_line(s, s->line.ptr + start, i - start);
		start = i + 1;
	}
	if (r != 0)
		return r;
	memmove(s->line.ptr, s->line.ptr + start, s->line.len - start);
	s->line.len -= start;
	s->line.ptr[s->line.len] = '\0';
	if (s->line.len > DOCKER_BUILD_LINE_MAX)
		return crs_error_set(CRS_EENGINE, "engine stream line longer "
				     "than %zu bytes", DOCKER_BUILD_LINE_MAX);
	return 0;
}

static int docker_stream_finish(struct docker_stream *s)
{
	int r = docker_stream_line(s, s->line.ptr, s->line.len);

	buf_reset(&s->line);
	return r;
}

static void docker_stream_release(struct docker_stream *s)
{
	buf_release(&s->line);
	buf_release(&s->tail);
	buf_release(&s->error);
	free(s->id);
	s->id = NULL;
}

/*
 * The start of the failing step's output in the `len` bytes at `t`: its
 * last "Step N/M : ..." line (N stored in *step), or `t` with *step 0.
 */
static const char *docker_last_step(const char *t, size_t len, int *step)
{
	const char *p = t + len;

	*step = 0;
	while (p > t) {
		const char *line = p - 1;

		while (line > t && line[-1] != '\n')
			line--;
		if ((size_t)(t + len - line) > 5 &&
		    !strncmp(line, "Step ", 5)) {
			long n = strtol(line + 5, NULL, 10);

			*step = n > 0 && n < 100000 ? (int)n : 0;
			return line;
		}
		p = line;
	}
	return t;
}

/*
 * Set CRS_EBUILD: the error and the log's path, then the failing step's
 * last output lines (log_lines_tail: one escaped line each, for
 * log_error_lines). *step, when not NULL, gets the step number.
 */
static int docker_build_failed(struct docker_stream *s, const char *tag,
			       int *step)
{
	char err[DOCKER_MSG_MAX], sid[256], *lines;
	const char *from;
	int n, r;

	log_quote(err, sizeof(err), s->error.ptr, s->error.len);
	from = docker_last_step(s->tail.ptr, s->tail.len, &n);
	if (step)
		*step = n;
	lines = log_lines_tail(from, (size_t)(s->tail.ptr + s->tail.len - from),
			       DOCKER_BUILD_TAIL_LINES, DOCKER_BUILD_TAIL_CAP);
	r = crs_error_set(CRS_EBUILD, "build '%s': %s%s%s%s\nlast output:\n%s",
			  docker_short(sid, sizeof(sid), tag), err,
			  s->log_path ? " (log " : "",
			  s->log_path ? s->log_path : "",
			  s->log_path ? ")" : "", lines);
	free(lines);
	return r;
}

static int docker_build_query(struct buf *path,
			      const struct docker_build_opts *o)
{
	struct docker_json b = { 0 };
	json_t *args = NULL, *labels = NULL;
	char *text = NULL;
	int r;

	docker_path(path, "/build", NULL, NULL);
	if (o->tag)
		docker_query(path, "t", o->tag);
	docker_query(path, "dockerfile",
		     o->dockerfile ? o->dockerfile : "Dockerfile");
	if ((r = docker_jkv(&b, o->buildargs, "build arg", &args)) != 0 ||
	    (r = docker_jkv(&b, o->labels, "label", &labels)) != 0 ||
	    (r = docker_json_check(&b, "build")) != 0)
		goto out;
	if (json_object_size(args)) {
		text = json_dumps(args, JSON_COMPACT);
		docker_query(path, "buildargs", text);
		free(text);
	}
	if (json_object_size(labels)) {
		text = json_dumps(labels, JSON_COMPACT);
		docker_query(path, "labels", text);
		free(text);
	}
	docker_query(path, "rm", "1");
	docker_query(path, "forcerm", "1");
	if (o->pull)
		docker_query(path, "pull", "1");
	if (o->network)
		docker_query(path, "networkmode", o->network);
	if (o->cpuset)
		docker_query(path, "cpusetcpus", o->cpuset);
	if (o->memory > 0) {
		char mem[32];

		snprintf(mem, sizeof(mem), "%lld", (long long)o->memory);
		docker_query(path, "memory", mem);
		docker_query(path, "memswap", mem);	/* no swap */
	}
	docker_query(path, "version", "1");	/* the classic builder */
out:
	json_decref(args);
	json_decref(labels);
	return r;
}

int docker_image_build(struct docker_client *d,
		       const struct docker_build_opts *o)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_stream s = { BUF_INIT, BUF_INIT, BUF_INIT, NULL, 0, -1,
				   o->log_path, NULL };
	struct buf path = BUF_INIT;
	struct http_request req = { .method = "POST" };
	char *tar = NULL;
	char what[300], sid[256];
	int r;

	snprintf(what, sizeof(what), "build '%s'", docker_short(sid,
		 sizeof(sid), o->tag ? o->tag : "(untagged)"));
	if ((r = docker_build_query(&path, o)) != 0)
		goto out;
	if (o->log_path) {
		s.log_fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND |
				O_CLOEXEC, 0644);
		if (s.log_fd < 0) {
			r = crs_error_set(CRS_ERR, "%s: %s", o->log_path,
					  strerror(errno));
			goto out;
		}
	}
	if ((r = tar_context_temp_replacing(o->context_dir,
		o->dockerfile_text ? (o->dockerfile ? o->dockerfile :
				      "Dockerfile") : NULL,
		o->dockerfile_text, o->dockerfile_len, &tar)) != 0)
		goto out;
	req.path = path.ptr;
	req.content_type = "application/x-tar";
	req.body_file = tar;
	req.timeout_ms = o->timeout_ms;
	req.on_data = docker_stream_feed;
	req.on_data_ctx = &s;
	req.interrupted = o->interrupted;
	if ((r = d->t->request(d->t, &req, &resp)) != 0)
		goto out;
	if (resp.status != 200) {
		char msg[DOCKER_MSG_MAX];

		r = crs_error_set(CRS_EBUILD, "%s: HTTP %ld: %s", what,
				  resp.status,
				  docker_message(msg, sizeof(msg), &resp));
		goto out;
	}
	if ((r = docker_stream_finish(&s)) != 0)
		goto out;
	if (s.error.len) {
		r = docker_build_failed(&s, o->tag ? o->tag : "(untagged)",
					o->failed_step);
		goto out;
	}
	if (!s.id && !s.saw_success) {
		buf_adds(&s.error, "the engine's stream ended without a "
			 "result");
		r = docker_build_failed(&s, o->tag ? o->tag : "(untagged)",
					o->failed_step);
		goto out;
	}
	r = 0;
out:
	if (tar) {
		unlink(tar);
		free(tar);
	}
	if (s.log_fd >= 0)
		close(s.log_fd);
	docker_stream_release(&s);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

/*
 * POST a tar file to `path` (import, load) and read the JSON stream the
 * engine answers with: an "error" in it is a failure too.
 */
static int docker_post_tar(struct docker_client *d, const char *path,
			   const char *tar_path, const char *what)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_stream s = { BUF_INIT, BUF_INIT, BUF_INIT, NULL, 0, -1,
				   NULL, NULL };
	struct http_request req = { .method = "POST" };
	char msg[DOCKER_MSG_MAX];
	int r;

	req.path = path;
	req.content_type = "application/x-tar";
	req.body_file = tar_path;
	req.timeout_ms = DOCKER_LONG_TIMEOUT_MS;
	req.max_response = (size_t)1 << 20;
	if ((r = d->t->request(d->t, &req, &resp)) != 0)
		goto out;
	if (resp.status != 200) {
		r = docker_status_error(&resp, NULL, NULL, what);
		goto out;
	}
	if ((r = docker_stream_feed(resp.body.ptr, resp.body.len, &s)) != 0 ||
	    (r = docker_stream_finish(&s)) != 0)
		goto out;
	if (s.error.len) {
		r = crs_error_set(CRS_EENGINE, "%s: %s", what,
				  log_quote(msg, sizeof(msg), s.error.ptr,
					    s.error.len));
		goto out;
	}
	r = 0;
out:
	docker_stream_release(&s);
	http_response_release(&resp);
	return r;
}

int docker_image_import(struct docker_client *d, const char *tar_path,
			const char *repo, const char *tag,
			const char *const *changes)
{
	struct buf path = BUF_INIT;
	char what[300], sid[256];
	int r;

	snprintf(what, sizeof(what), "import '%s'",
		 docker_short(sid, sizeof(sid), repo));
	docker_path(&path, "/images/create", NULL, NULL);
	docker_query(&path, "fromSrc", "-");
	docker_query(&path, "repo", repo);
	if (tag)
		docker_query(&path, "tag", tag);
	for (; changes && *changes; changes++)
		docker_query(&path, "changes", *changes);
	r = docker_post_tar(d, path.ptr, tar_path, what);
	buf_release(&path);
	return r;
}

/* --- pulls -------------------------------------------------------------- */

/* Layers seen in a pull's stream, their last state, their sizes. */
struct docker_pull_track {
	const char *ref;
	struct strvec ids;
	struct strvec states;
	int64_t *sizes;
	size_t sizes_alloc;
	char *final;		/* "Status: ..." line: the pull completed */
};

static void docker_pull_status(struct docker_pull_track *t, json_t *j)
{
	const char *status = json_string_value(json_object_get(j, "status"));
	json_t *id = json_object_get(j, "id");	/* borrowed */
	json_t *total = json_object_get(json_object_get(j, "progressDetail"),
					"total");	/* borrowed */
	char qs[128], qi[80];
	size_t i;

	if (!strncmp(status, "Status: ", 8)) {
		free(t->final);
		t->final = xstrdup(status + 8);
		return;
	}
	if (!json_is_string(id) || !strncmp(status, "Pulling from ", 13))
		return;
	for (i = 0; i < t->ids.nr; i++)
		if (!strcmp(t->ids.v[i], json_string_value(id)))
			break;
	if (i == t->ids.nr) {
		strvec_push(&t->ids, json_string_value(id));
		strvec_push(&t->states, "");
		ALLOC_GROW(t->sizes, t->ids.nr, t->sizes_alloc);
		t->sizes[i] = 0;
	}
	if (json_is_integer(total) && json_integer_value(total) > t->sizes[i])
		t->sizes[i] = json_integer_value(total);
	if (!strcmp(t->states.v[i], status))
		return;	/* one line per state change, not per chunk */
	free(t->states.v[i]);
	t->states.v[i] = xstrdup(status);
	log_info("pull %s: layer %s: %s", t->ref,
		 log_quote(qi, sizeof(qi), json_string_value(id),
			   strlen(json_string_value(id))),
		 log_quote(qs, sizeof(qs), status, strlen(status)));
}

void docker_ref_split(const char *ref, char **repo_out, char **tag_out)
{
	const char *at = strchr(ref, '@');
	const char *slash = strrchr(ref, '/');
	const char *colon = strrchr(ref, ':');

	if (at) {
		*repo_out = xstrndup(ref, (size_t)(at - ref));
		*tag_out = xstrdup(at + 1);
	} else if (colon && (!slash || colon > slash)) {
		*repo_out = xstrndup(ref, (size_t)(colon - ref));
		*tag_out = xstrdup(colon + 1);
	} else {
		*repo_out = xstrdup(ref);
		*tag_out = xstrdup("latest");
	}
}

/* What the engine's message about a failed pull means. */
static enum docker_pull_failure docker_pull_classify(long status,
						     const char *msg)
{
	static const char *const unreachable[] = {
		"connection refused", "no such host", "i/o timeout",
		"timeout", "network is unreachable", "no route to host",
		"connection reset", "server misbehaving",
		"temporary failure in name resolution", NULL };
	static const char *const missing[] = {
		"manifest unknown", "not found", "repository does not exist",
		"name unknown", NULL };
	static const char *const denied[] = {
		"unauthorized", "authentication required", "denied",
		"no basic auth credentials", "incorrect username or password",
		NULL };

	for (const char *const *p = denied; *p; p++)
		if (strcasestr(msg, *p) && !strcasestr(msg, "does not exist"))
			return DOCKER_PULL_DENIED;
	for (const char *const *p = missing; *p; p++)
		if (strcasestr(msg, *p))
			return DOCKER_PULL_NOT_FOUND;
	if (status == 404)
		return DOCKER_PULL_NOT_FOUND;
	for (const char *const *p = unreachable; *p; p++)
		if (strcasestr(msg, *p))
			return DOCKER_PULL_UNREACHABLE;
	if (status == 0 || status >= 500)
		return DOCKER_PULL_TRANSIENT;
	return DOCKER_PULL_FAILED;
}

static int docker_pull_failed(enum docker_pull_failure why, const char *msg,
			      size_t len, enum docker_pull_failure *why_out)
{
	static const char *const reason[] = {
		[DOCKER_PULL_FAILED] = "pull failed",
		[DOCKER_PULL_UNREACHABLE] = "registry unreachable",
		[DOCKER_PULL_TRANSIENT] = "pull failed",
		[DOCKER_PULL_NOT_FOUND] = "not found",
		[DOCKER_PULL_DENIED] = "access denied",
	};
	char q[DOCKER_MSG_MAX];

	if (why_out)
		*why_out = why;
	log_quote(q, sizeof(q), msg, len);
	return crs_error_set(why == DOCKER_PULL_NOT_FOUND ? CRS_ENOTFOUND :
			     CRS_EENGINE, "%s (%s)", reason[why], q);
}

int docker_image_pull(struct docker_client *d,
		      const struct docker_pull_opts *o,
		      enum docker_pull_failure *why_out)
{
	struct docker_pull_track t = { .ref = o->ref, .ids = STRVEC_INIT,
				       .states = STRVEC_INIT };
	struct docker_stream s = { BUF_INIT, BUF_INIT, BUF_INIT, NULL, 0, -1,
				   NULL, &t };
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = { .method = "POST" };
	struct buf path = BUF_INIT, hdr = BUF_INIT;
	const char *headers[2] = { NULL, NULL };
	char *repo = NULL, *tag = NULL, msg[DOCKER_MSG_MAX];
	struct timespec t0, t1;
	int64_t bytes = 0;
	int r;

	if (why_out)
		*why_out = DOCKER_PULL_FAILED;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	docker_ref_split(o->ref, &repo, &tag);
	docker_path(&path, "/images/create", NULL, NULL);
	docker_query(&path, "fromImage", repo);
	docker_query(&path, "tag", tag);
	if (o->auth) {
		buf_printf(&hdr, "X-Registry-Auth: %s", o->auth);
		headers[0] = hdr.ptr;
	}
	req.path = path.ptr;
	req.headers = headers;
	req.timeout_ms = o->timeout_ms;
	req.interrupted = o->interrupted;
	req.on_data = docker_stream_feed;
	req.on_data_ctx = &s;
	r = d->t->request(d->t, &req, &resp);
	if (r == CRS_EENGINE) {
		/* the engine's connection broke: worth another try */
		if (why_out)
			*why_out = DOCKER_PULL_TRANSIENT;
		goto out;
	}
	if (r != 0)
		goto out;
	if (resp.status != 200) {
		docker_message(msg, sizeof(msg), &resp);
		r = docker_pull_failed(docker_pull_classify(resp.status, msg),
				       msg, strlen(msg), why_out);
		goto out;
	}
	if ((r = docker_stream_finish(&s)) != 0)
		goto out;
	if (s.error.len) {
		r = docker_pull_failed(docker_pull_classify(0, s.error.ptr),
				       s.error.ptr, s.error.len, why_out);
		goto out;
	}
	if (!t.final) {
		static const char cut[] = "the engine's stream ended before "
			"the pull completed";

		r = docker_pull_failed(DOCKER_PULL_TRANSIENT, cut,
				       sizeof(cut) - 1, why_out);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (size_t i = 0; i < t.ids.nr; i++)
		bytes += t.sizes[i];
	log_info("pull %s: %s (%zu layer(s), %.1f MB in %.1f s)", o->ref,
		 log_quote(msg, sizeof(msg), t.final, strlen(t.final)),
		 t.ids.nr, (double)bytes / 1e6, (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	r = 0;
out:
	if (hdr.len)
		OPENSSL_cleanse(hdr.ptr, hdr.len);
	buf_release(&hdr);
	docker_stream_release(&s);
	http_response_release(&resp);
	buf_release(&path);
	strvec_release(&t.ids);
	strvec_release(&t.states);
	free(t.sizes);
	free(t.final);
	free(repo);
	free(tag);
	return r;
}

/* on_data callback of image save: the tar stream goes straight to a file. */
static int docker_save_feed(const char *data, size_t len, void *ctx)
{
	FILE *f = ctx;

	if (fwrite(data, 1, len, f) != len)
		return crs_error_set(CRS_ERR, "writing the image archive: %s",
				     strerror(errno));
	return 0;
}

int docker_image_save(struct docker_client *d, const char *const *refs,
		      const char *tar_path)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = { .method = "GET" };
	struct buf path = BUF_INIT;
	char *tmp = xasprintf("%s.part", tar_path);
	FILE *f = NULL;
	int r;

	docker_path(&path, "/images/get", NULL, NULL);
	for (; refs && *refs; refs++)
		docker_query(&path, "names", *refs);
	if (!(f = fopen(tmp, "wbe"))) {
		r = crs_error_set(CRS_ERR, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	req.path = path.ptr;
	req.timeout_ms = DOCKER_LONG_TIMEOUT_MS;
	req.on_data = docker_save_feed;
	req.on_data_ctx = f;
	if ((r = d->t->request(d->t, &req, &resp)) != 0)
		goto out;
	if (resp.status != 200) {
		r = docker_status_error(&resp, NULL, NULL, "save images");
		goto out;
	}
	if (fclose(f) != 0) {
		f = NULL;
		r = crs_error_set(CRS_ERR, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, tar_path) != 0) {
		r = crs_error_set(CRS_ERR, "rename to '%s': %s", tar_path,
				  strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (f)
		fclose(f);
	if (r != 0)
		unlink(tmp);
	free(tmp);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

int docker_image_load(struct docker_client *d, const char *tar_path)
{
	struct buf path = BUF_INIT;
	int r;

	docker_path(&path, "/images/load", NULL, NULL);
	docker_query(&path, "quiet", "1");
	r = docker_post_tar(d, path.ptr, tar_path, "load images");
	buf_release(&path);
	return r;
}

int docker_image_tag(struct docker_client *d, const char *src,
		     const char *repo, const char *tag)
{
	static const long ok[] = { 201, 200, 0 };
	const char *query[] = { "repo", repo, "tag", tag, NULL };

	return docker_object_op(d, "POST", "image", src, "/tag", query, ok,
				DOCKER_CALL_TIMEOUT_MS, "tag", NULL);
}

int docker_image_remove(struct docker_client *d, const char *ref, int force)
{
	static const long ok[] = { 200, 0 };
	const char *query[] = { "force", force ? "1" : NULL, NULL };

	return docker_object_op(d, "DELETE", "image", ref, NULL, query, ok,
				DOCKER_LONG_TIMEOUT_MS, "remove", NULL);
}

/* --- containers --------------------------------------------------------- */

/* What every container may do: see docker_container_create(). */
static void docker_limits(struct docker_json *b, json_t *hc,
			  const struct docker_run_opts *o)
{
	json_t *log = json_object(), *cfg = json_object();
	char files[16];

	docker_jset(b, hc, "CapDrop", json_pack("[s]", "ALL"));
	docker_jset(b, hc, "CapAdd", docker_jstrv(b, o->cap_add));
	docker_jset(b, hc, "SecurityOpt",
		    json_pack("[s]", "no-new-privileges"));
	docker_jset(b, hc, "PidsLimit", json_integer(o->pids_limit > 0 ?
		    o->pids_limit : DOCKER_PIDS_LIMIT_DEFAULT));
	snprintf(files, sizeof(files), "%d", o->log_max_file > 0 ?
		 o->log_max_file : DOCKER_LOG_MAX_FILE);
	docker_jset(b, cfg, "max-size", docker_jstr(b, o->log_max_size ?
		    o->log_max_size : DOCKER_LOG_MAX_SIZE));
	docker_jset(b, cfg, "max-file", json_string(files));
	docker_jset(b, log, "Type", json_string("json-file"));
	docker_jset(b, log, "Config", cfg);
	docker_jset(b, hc, "LogConfig", log);
}

static int docker_create_body(const struct docker_run_opts *o, json_t **out)
{
	struct docker_json b = { 0 };
	json_t *c = json_object(), *hc = json_object();
	json_t *labels = NULL;
	int r;

	*out = NULL;
	if ((r = docker_jkv(&b, o->labels, "label", &labels)) != 0)
		goto out;
	docker_jset(&b, c, "Image", docker_jstr(&b, o->image));
	if (o->cmd)
		docker_jset(&b, c, "Cmd", docker_jstrv(&b, o->cmd));
	if (o->entrypoint)
		docker_jset(&b, c, "Entrypoint",
			    docker_jstrv(&b, o->entrypoint));
	if (o->env)
		docker_jset(&b, c, "Env", docker_jstrv(&b, o->env));
	if (o->workdir)
		docker_jset(&b, c, "WorkingDir", docker_jstr(&b, o->workdir));
	if (o->user)
		docker_jset(&b, c, "User", docker_jstr(&b, o->user));
	docker_jset(&b, c, "Labels", labels);
	labels = NULL;
	docker_jset(&b, c, "Tty", json_false());
	docker_jset(&b, c, "OpenStdin", json_false());

	if (o->binds)
		docker_jset(&b, hc, "Binds", docker_jstrv(&b, o->binds));
	if (o->cpuset)
		docker_jset(&b, hc, "CpusetCpus", docker_jstr(&b, o->cpuset));
	if (o->cpu_shares > 0)
		docker_jset(&b, hc, "CpuShares", json_integer(o->cpu_shares));
	if (o->memory > 0) {
		docker_jset(&b, hc, "Memory", json_integer(o->memory));
		/* No swap: the limit is the limit. */
		docker_jset(&b, hc, "MemorySwap", json_integer(o->memory));
	}
	if (o->shm_size > 0)
		docker_jset(&b, hc, "ShmSize", json_integer(o->shm_size));
	if (o->network)
		docker_jset(&b, hc, "NetworkMode",
			    docker_jstr(&b, o->network));
	docker_jset(&b, hc, "Privileged", json_false());
	docker_jset(&b, hc, "Init", json_true());
	docker_limits(&b, hc, o);
	docker_jset(&b, c, "HostConfig", hc);
	hc = NULL;

	if (o->network && o->aliases && o->aliases[0]) {
		json_t *ep = json_object(), *eps = json_object();
		json_t *nc = json_object();

		docker_jset(&b, ep, "Aliases", docker_jstrv(&b, o->aliases));
		docker_jset(&b, eps, o->network, ep);
		docker_jset(&b, nc, "EndpointsConfig", eps);
		docker_jset(&b, c, "NetworkingConfig", nc);
	}
	if ((r = docker_json_check(&b, "create container")) != 0)
		goto out;
	*out = c;
	c = NULL;
out:
	json_decref(labels);
	json_decref(hc);
	json_decref(c);
	return r;
}

int docker_container_create(struct docker_client *d,
			    const struct docker_run_opts *o, char **id_out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct buf path = BUF_INIT;
	json_t *body = NULL, *j = NULL, *w;
	char what[300], sid[256], q[DOCKER_MSG_MAX];
	int r;

	*id_out = NULL;
	snprintf(what, sizeof(what), "create container '%s' from '%s'",
		 o->name ? o->name : "", o->image ? o->image : "");
	if (!o->image) {
		r = crs_error_set(CRS_EINPUT, "create container: no image");
		goto out;
	}
	if ((r = docker_create_body(o, &body)) != 0)
		goto out;
	docker_path(&path, "/containers/create", NULL, NULL);
	if (o->name)
		docker_query(&path, "name", o->name);
	if ((r = docker_call(d, "POST", path.ptr, body,
			     DOCKER_CALL_TIMEOUT_MS, &resp)) != 0)
		goto out;
	if (resp.status != 201) {
		r = docker_status_error(&resp, "image", o->image, what);
		goto out;
	}
	if ((r = docker_parse_json(&resp, what, &j)) != 0)
		goto out;
	w = json_object_get(j, "Warnings");
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *s = json_string_value(json_array_get(w, i));

		if (s)
			log_warn("container from '%s': %s",
				 docker_short(sid, sizeof(sid), o->image),
				 log_quote(q, sizeof(q), s, strlen(s)));
	}
	if (!json_is_string(json_object_get(j, "Id"))) {
		r = crs_error_set(CRS_EENGINE, "%s: engine answer has no "
				  "\"Id\"", what);
		goto out;
	}
	*id_out = xstrdup(json_string_value(json_object_get(j, "Id")));
	r = 0;
out:
	json_decref(j);
	json_decref(body);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

int docker_container_start(struct docker_client *d, const char *id)
{
	/* 304: already running, which is what the caller wants. */
	static const long ok[] = { 204, 304, 0 };

	return docker_object_op(d, "POST", "container", id, "/start", NULL,
				ok, DOCKER_CALL_TIMEOUT_MS, "start", NULL);
}

static int docker_container_inspect(struct docker_client *d, const char *id,
				    json_t **out)
{
	static const long ok[] = { 200, 0 };

	return docker_object_op(d, "GET", "container", id, "/json", NULL, ok,
				DOCKER_CALL_TIMEOUT_MS, "inspect", out);
}

/* State.Running and State.ExitCode of a container. */
static int docker_container_state(struct docker_client *d, const char *id,
				  int *running, int *exit_code)
{
	json_t *j = NULL, *state, *run;
	char sid[256];
	int r;

	if ((r = docker_container_inspect(d, id, &j)) != 0)
		return r;
	state = json_object_get(j, "State");
	run = json_object_get(state, "Running");
	if (!json_is_boolean(run)) {
		r = crs_error_set(CRS_EENGINE, "inspect container '%s': no "
				  "State.Running in the answer",
				  docker_short(sid, sizeof(sid), id));
	} else {
		*running = json_is_true(run);
		if (exit_code)
			*exit_code = (int)json_integer_value(
				json_object_get(state, "ExitCode"));
	}
	json_decref(j);
	return r;
}

int docker_container_running(struct docker_client *d, const char *id)
{
	int running = 0;
	int r = docker_container_state(d, id, &running, NULL);

	return r != 0 ? r : running;
}

static long docker_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int docker_container_wait(struct docker_client *d, const char *id,
			  long timeout_ms, volatile int *interrupted,
			  int *exit_code_out)
{
	long start = docker_now_ms();
	char sid[256];
	int running = 1, code = 0;
	int r;

	for (;;) {
		long left;
		struct timespec ts;

		if (interrupted && *interrupted)
			return crs_error_set(CRS_EINTR, "waiting for container "
				"'%s' interrupted",
				docker_short(sid, sizeof(sid), id));
		if ((r = docker_container_state(d, id, &running, &code)) != 0)
			return r;
		if (!running)
			break;
		left = timeout_ms < 0 ? DOCKER_WAIT_POLL_MS :
			timeout_ms - (docker_now_ms() - start);
		if (left <= 0)
			return crs_error_set(CRS_ETIMEOUT, "container '%s' "
					     "still running after %ld ms",
					     docker_short(sid, sizeof(sid), id),
					     timeout_ms);
		if (left > DOCKER_WAIT_POLL_MS)
			left = DOCKER_WAIT_POLL_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = left * 1000000L;
		nanosleep(&ts, NULL);	/* a signal ends it early: fine */
	}
	if (exit_code_out)
		*exit_code_out = code;
	return 0;
}

/*
 * Demultiplexer for the logs stream of a non-TTY container: frames of an
 * 8-byte header (stream type, 3 zero bytes, big-endian length) and the
 * payload. Headers and payloads may be split across chunks.
 */
struct docker_demux {
	unsigned char hdr[8];
	size_t hdr_len;
	size_t left;		/* payload bytes still to come */
	struct buf *out;
	size_t max;
	const char *id;
};

static void docker_keep_tail(struct buf *b, size_t max)
{
	if (b->len <= max)
		return;
	memmove(b->ptr, b->ptr + b->len - max, max);
	b->len = max;
	b->ptr[max] = '\0';
}

static int docker_demux_feed(const char *data, size_t len, void *ctx)
{
	struct docker_demux *x = ctx;
	char sid[256];

	while (len) {
		size_t n;

		if (!x->left) {
			n = sizeof(x->hdr) - x->hdr_len;
			if (n > len)
				n = len;
			memcpy(x->hdr + x->hdr_len, data, n);
			x->hdr_len += n;
			data += n;
			len -= n;
			if (x->hdr_len < sizeof(x->hdr))
				break;
			x->hdr_len = 0;
			if (x->hdr[0] > 2 || x->hdr[1] || x->hdr[2] ||
			    x->hdr[3])
				return crs_error_set(CRS_EENGINE, "logs of "
					"container '%s': not a multiplexed "
					"stream (a TTY container?)",
					docker_short(sid, sizeof(sid), x->id));
			x->left = (size_t)x->hdr[4] << 24 |
				(size_t)x->hdr[5] << 16 |
				(size_t)x->hdr[6] << 8 | x->hdr[7];
			continue;
		}
		n = x->left < len ? x->left : len;
		buf_add(x->out, data, n);
		data += n;
		len -= n;
		x->left -= n;
		/* Trim now and then, not on every chunk. */
		if (x->out->len > 2 * x->max + 65536)
			docker_keep_tail(x->out, x->max);
	}
	return 0;
}

int docker_container_logs(struct docker_client *d, const char *id,
			  struct buf *out, size_t max)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_demux x = { .out = out, .id = id };
	struct buf path = BUF_INIT;
	struct http_request req = { .method = "GET" };
	char what[300], sid[256];
	int r;

	x.max = max ? max : DOCKER_LOGS_DEFAULT_MAX;
	buf_reset(out);
	snprintf(what, sizeof(what), "logs of container '%s'",
		 docker_short(sid, sizeof(sid), id));
	docker_path(&path, "/containers/", id, "/logs");
	docker_query(&path, "stdout", "1");
	docker_query(&path, "stderr", "1");
	req.path = path.ptr;
	req.timeout_ms = DOCKER_LONG_TIMEOUT_MS;
	req.on_data = docker_demux_feed;
	req.on_data_ctx = &x;
	r = d->t->request(d->t, &req, &resp);
	if (r == 0 && resp.status != 200)
		r = docker_status_error(&resp, "container", id, what);
	if (r == 0)
		docker_keep_tail(out, x.max);
	else
		buf_reset(out);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

int docker_container_kill(struct docker_client *d, const char *id,
			  const char *signal)
{
	static const long ok[] = { 204, 0 };
	const char *query[] = { "signal", signal, NULL };

	return docker_object_op(d, "POST", "container", id, "/kill", query,
				ok, DOCKER_CALL_TIMEOUT_MS, "kill", NULL);
}

int docker_container_stop(struct docker_client *d, const char *id,
			  int grace_s)
{
	/* 304: not running, which is what the caller wants. */
	static const long ok[] = { 204, 304, 0 };
	char t[24];
	const char *query[] = { "t", t, NULL };

	if (grace_s < 0)
		grace_s = 0;
	snprintf(t, sizeof(t), "%d", grace_s);
	return docker_object_op(d, "POST", "container", id, "/stop", query,
				ok, (grace_s + 60) * 1000L, "stop", NULL);
}

int docker_container_remove(struct docker_client *d, const char *id,
			    int force)
{
	static const long ok[] = { 204, 0 };
	const char *query[] = { "v", "1", "force", force ? "1" : NULL, NULL };

	return docker_object_op(d, "DELETE", "container", id, NULL, query,
				ok, DOCKER_CALL_TIMEOUT_MS, "remove", NULL);
}

int docker_container_commit(struct docker_client *d, const char *id,
			    const char *repo, const char *tag,
			    char **id_out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct buf path = BUF_INIT;
	char what[300], sid[256];
	int r;

	if (id_out)
		*id_out = NULL;
	snprintf(what, sizeof(what), "commit container '%s'",
		 docker_short(sid, sizeof(sid), id));
	docker_path(&path, "/commit", NULL, NULL);
	docker_query(&path, "container", id);
	if (repo)
		docker_query(&path, "repo", repo);
	if (tag)
		docker_query(&path, "tag", tag);
	r = docker_call(d, "POST", path.ptr, NULL, DOCKER_LONG_TIMEOUT_MS,
			&resp);
	if (r == 0 && resp.status != 201)
		r = docker_status_error(&resp, "container", id, what);
	if (r == 0)
		r = docker_answer_string(&resp, what, "Id", id_out);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

/* --- networks ----------------------------------------------------------- */

int docker_network_create(struct docker_client *d, const char *name,
			  int internal, const char *const *labels,
			  char **id_out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_json b = { 0 };
	json_t *body = json_object(), *lab = NULL;
	char what[300], sid[256];
	int r;

	if (id_out)
		*id_out = NULL;
	snprintf(what, sizeof(what), "create network '%s'",
		 docker_short(sid, sizeof(sid), name));
	if ((r = docker_jkv(&b, labels, "label", &lab)) != 0)
		goto out;
	docker_jset(&b, body, "Name", docker_jstr(&b, name));
	docker_jset(&b, body, "CheckDuplicate", json_true());
	docker_jset(&b, body, "Internal", json_boolean(internal));
	docker_jset(&b, body, "Labels", lab);
	if ((r = docker_json_check(&b, what)) != 0 ||
	    (r = docker_call(d, "POST", DOCKER_API "/networks/create", body,
			     DOCKER_CALL_TIMEOUT_MS, &resp)) != 0)
		goto out;
	if (resp.status != 201) {
		r = docker_status_error(&resp, NULL, NULL, what);
		goto out;
	}
	r = docker_answer_string(&resp, what, "Id", id_out);
out:
	json_decref(body);
	http_response_release(&resp);
	return r;
}

int docker_network_remove(struct docker_client *d, const char *id)
{
	static const long ok[] = { 204, 200, 0 };

	return docker_object_op(d, "DELETE", "network", id, NULL, NULL, ok,
				DOCKER_CALL_TIMEOUT_MS, "remove", NULL);
}

int docker_network_connect(struct docker_client *d, const char *net,
			   const char *container, const char *const *aliases)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_json b = { 0 };
	struct buf path = BUF_INIT;
	json_t *body = json_object(), *ep = json_object();
	char what[600], sid[256], sid2[256];
	int r;

	snprintf(what, sizeof(what), "connect container '%s' to network "
		 "'%s'", docker_short(sid, sizeof(sid), container),
		 docker_short(sid2, sizeof(sid2), net));
	docker_jset(&b, body, "Container", docker_jstr(&b, container));
	if (aliases && aliases[0])
		docker_jset(&b, ep, "Aliases", docker_jstrv(&b, aliases));
	docker_jset(&b, body, "EndpointConfig", ep);
	if ((r = docker_json_check(&b, what)) != 0)
		goto out;
	docker_path(&path, "/networks/", net, "/connect");
	if ((r = docker_call(d, "POST", path.ptr, body,
			     DOCKER_CALL_TIMEOUT_MS, &resp)) != 0)
		goto out;
	if (resp.status != 200)
		r = docker_status_error(&resp, NULL, NULL, what);
out:
	json_decref(body);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

/* --- what a scan owns --------------------------------------------------- */

int docker_list_labelled(struct docker_client *d, enum docker_kind kind,
			 const char *label, struct docker_objects *out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct buf path = BUF_INIT;
	json_t *filter = NULL, *list = NULL;
	const char *what_kind = kind == DOCKER_CONTAINERS ? "containers" :
		"networks";
	char *text = NULL;
	char what[300], q[256];
	int r;

	docker_objects_release(out);
	snprintf(what, sizeof(what), "list %s labelled '%s'", what_kind,
		 log_quote(q, sizeof(q), label, strlen(label)));
	filter = json_pack("{s:[s]}", "label", label);
	if (!filter) {
		r = crs_error_set(CRS_EINPUT, "%s: the label is not valid "
				  "UTF-8", what);
		goto out;
	}
	text = json_dumps(filter, JSON_COMPACT);
	docker_path(&path, kind == DOCKER_CONTAINERS ? "/containers/json" :
		    "/networks", NULL, NULL);
	if (kind == DOCKER_CONTAINERS)
		docker_query(&path, "all", "1");
	docker_query(&path, "filters", text);
	if ((r = docker_call(d, "GET", path.ptr, NULL, DOCKER_CALL_TIMEOUT_MS,
			     &resp)) != 0)
		goto out;
	if (resp.status != 200) {
		r = docker_status_error(&resp, NULL, NULL, what);
		goto out;
	}
	if ((r = docker_parse_json(&resp, what, &list)) != 0)
		goto out;
	out->v = xcalloc(json_array_size(list) + 1, sizeof(*out->v));
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *o = json_array_get(list, i);
		json_t *id = json_object_get(o, "Id"), *v;
		struct docker_object *dst = &out->v[out->nr];
		struct strvec labels = STRVEC_INIT;
		const char *key;

		if (!json_is_string(id))
			continue;
		json_object_foreach(json_object_get(o, "Labels"), key, v)
			if (json_is_string(v))
				strvec_pushf(&labels, "%s=%s", key,
					     json_string_value(v));
		strvec_list(&labels);	/* never NULL */
		dst->id = xstrdup(json_string_value(id));
		dst->labels = labels.v ? labels.v : xcalloc(1, sizeof(char *));
		out->nr++;
	}
	r = 0;
out:
	json_decref(list);
	json_decref(filter);
	free(text);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

void docker_objects_release(struct docker_objects *o)
{
	for (size_t i = 0; i < o->nr; i++) {
		for (char **l = o->v[i].labels; l && *l; l++)
			free(*l);
		free(o->v[i].labels);
		free(o->v[i].id);
	}
	free(o->v);
	o->v = NULL;
	o->nr = 0;
}

const char *docker_object_label(const struct docker_object *o,
				const char *key)
{
	size_t n = strlen(key);

	for (char **l = o->labels; l && *l; l++)
		if (!strncmp(*l, key, n) && (*l)[n] == '=')
			return *l + n + 1;
	return NULL;
}

/* What carries CRS_CI_LABEL=<owner>. */
static int docker_list_owned(struct docker_client *d, enum docker_kind kind,
			     const char *owner, struct docker_objects *out)
{
	char *label = xasprintf("%s=%s", CRS_CI_LABEL, owner);
	int r = docker_list_labelled(d, kind, label, out);

	free(label);
	return r;
}

int docker_remove_object(struct docker_client *d, enum docker_kind kind,
			 const char *id)
{
	int r = kind == DOCKER_CONTAINERS ? docker_container_remove(d, id, 1) :
		docker_network_remove(d, id);

	if (r == CRS_ENOTFOUND) {	/* gone already */
		crs_error_clear();
		r = 0;
	}
	return r;
}

int docker_remove_owned(struct docker_client *d, const char *owner)
{
	static const enum docker_kind kinds[] = { DOCKER_CONTAINERS,
						  DOCKER_NETWORKS };
	char first_msg[1024] = "";
	int first = 0;

	for (size_t k = 0; k < 2; k++) {
		struct docker_objects o = DOCKER_OBJECTS_INIT;
		int r = docker_list_owned(d, kinds[k], owner, &o);

		for (size_t i = 0; r == 0 && i < o.nr; i++) {
			int e = docker_remove_object(d, kinds[k], o.v[i].id);

			if (e != 0 && !first) {
				first = e;
				snprintf(first_msg, sizeof(first_msg), "%s",
					 crs_error_last());
			}
		}
		if (r != 0 && !first) {
			first = r;
			snprintf(first_msg, sizeof(first_msg), "%s",
				 crs_error_last());
		}
		docker_objects_release(&o);
	}
	if (first)
		return crs_error_set(first, "%s", first_msg);
	return 0;
}
