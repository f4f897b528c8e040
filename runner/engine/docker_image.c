/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker_image.c - images on the engine: inspect, build, import, pull,
 * save, load, tag, remove
 *
 * Build and pull answers are streamed JSON lines, read as they arrive.
 */
#include "runner/engine/docker.h"
#include "runner/engine/docker_call.h"
#include "runner/engine/tar_context.h"
#include "runner/http/http.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/log_lines.h"
#include "common/strvec.h"
#include "common/xalloc.h"

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
