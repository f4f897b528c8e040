/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker_container.c - containers on the engine: create with their
 * limits, start, wait, logs (demultiplexed, capped), stop, kill, commit
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
	/*
	 * No network at all: NetworkDisabled as well, so the engine skips its
	 * libnetwork sandbox and the prestart hook that re-executes dockerd
	 * twice per container (about 0.3 s of CPU each time, measured). The
	 * container still gets a namespace of its own with loopback only.
	 */
	if (o->network && !strcmp(o->network, "none"))
		docker_jset(&b, c, "NetworkDisabled", json_true());
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
