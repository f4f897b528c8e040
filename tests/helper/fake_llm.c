/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_llm.c - fake model provider for the gateway tests and benchmark
 *
 * Thread per connection (a hung answer holds only its own thread). Usage
 * numbers are what the test configured, so a test can compute the exact
 * cost the gateway must book. Not product code: plain malloc, no crs-ci
 * headers, so it also builds as a standalone server (-DFAKE_LLM_MAIN).
 */
#include "tests/helper/fake_llm.h"
#include "tests/helper/mhd_fake.h"

#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A response made of events handed out one per reader call. */
struct fake_stream {
	struct fake_llm *f;
	char **ev;
	size_t nr, next, off;
	size_t gate_before;	/* index to wait before; 0: none */
};

static void fake_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void copy_header(struct MHD_Connection *c, const char *name,
			char *dst, size_t n)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);

	snprintf(dst, n, "%s", v ? v : "");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *ct, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", ct);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct fake_stream *s = cls;
	size_t n;

	(void)pos;
	if (s->next >= s->nr)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (s->gate_before && s->next == s->gate_before && s->off == 0) {
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 5;
		pthread_mutex_lock(&s->f->lock);
		while (!s->f->gate_open && !s->f->stopping)
			if (pthread_cond_timedwait(&s->f->cond, &s->f->lock,
						   &dl) != 0) {
				s->f->gate_timed_out = 1;
				break;
			}
		pthread_mutex_unlock(&s->f->lock);
	}
	n = strlen(s->ev[s->next]) - s->off;
	if (n > max)
		n = max;
	memcpy(buf, s->ev[s->next] + s->off, n);
	s->off += n;
	if (!s->ev[s->next][s->off]) {
		s->next++;
		s->off = 0;
	}
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct fake_stream *s = cls;

	for (size_t i = 0; i < s->nr; i++)
		free(s->ev[i]);
	free(s->ev);
	free(s);
}

static void add_ev(struct fake_stream *s, const char *event, json_t *j)
{
	char *d = json_dumps(j, JSON_COMPACT);
	size_t n = strlen(d) + (event ? strlen(event) : 0) + 32;
	char *e = malloc(n);

	if (event)
		snprintf(e, n, "event: %s\ndata: %s\n\n", event, d);
	else
		snprintf(e, n, "data: %s\n\n", d);
	free(d);
	json_decref(j);
	s->ev = realloc(s->ev, (s->nr + 1) * sizeof(*s->ev));
	s->ev[s->nr++] = e;
}

static enum MHD_Result stream_reply(struct MHD_Connection *c,
				    struct fake_stream *s)
{
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 4096, stream_read, s, stream_free);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static json_t *chunk(const char *model, json_t *choices, json_t *usage)
{
	json_t *j = json_pack("{s:s, s:s, s:i, s:s, s:o}", "id", "chatcmpl-f",
			      "object", "chat.completion.chunk", "created", 0,
			      "model", model, "choices", choices);

	json_object_set_new(j, "usage", usage ? usage : json_null());
	return j;
}

static json_t *delta(const char *content, const char *finish)
{
	json_t *d = content ? json_pack("{s:s}", "content", content)
			    : json_object();

	return json_pack("[{s:i, s:o, s:o}]", "index", 0, "delta", d,
			 "finish_reason",
			 finish ? json_string(finish) : json_null());
}

/* Encode and release j. */
static char *dump_new(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);

	json_decref(j);
	return s;
}

/* The whole file at path (at most 1 MiB, NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, n;

	if (!fp)
		return NULL;
	text = malloc((1u << 20) + 1);
	while (len < (1u << 20) &&
	       (n = fread(text + len, 1, (1u << 20) - len, fp)) > 0)
		len += n;
	text[len] = '\0';
	fclose(fp);
	return text;
}

/*
 * The next scripted chat answer (free it), or NULL without replies_dir
 * or when not even replies_dir/1 exists.
 */
static char *scripted_reply(struct fake_llm *f)
{
	char path[4096];
	char *text = NULL;
	int n;

	if (!f->replies_dir)
		return NULL;
	pthread_mutex_lock(&f->lock);
	n = ++f->chats;
	pthread_mutex_unlock(&f->lock);
	for (; n >= 1 && !text; n--) {
		snprintf(path, sizeof(path), "%s/%d", f->replies_dir, n);
		text = slurp(path);
	}
	return text;
}

/* Append the request body j, compact on one line, to request_log. */
static void log_request(struct fake_llm *f, json_t *j)
{
	char *d;
	FILE *fp;

	if (!f->request_log)
		return;
	d = json_dumps(j, JSON_COMPACT);
	pthread_mutex_lock(&f->lock);
	fp = fopen(f->request_log, "a");
	if (fp) {
		fprintf(fp, "%s\n", d ? d : "{}");
		fclose(fp);
	}
	pthread_mutex_unlock(&f->lock);
	free(d);
}

/* Record the usage about to be sent: what the provider bills. */
static void bill(struct fake_llm *f, long in, long out)
{
	FILE *fp;

	pthread_mutex_lock(&f->lock);
	f->billed_in += in;
	f->billed_out += out;
	if (f->bill_log && (fp = fopen(f->bill_log, "a"))) {
		fprintf(fp, "%ld %ld\n", in, out);
		fclose(fp);
	}
	pthread_mutex_unlock(&f->lock);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *body, size_t len)
{
	struct fake_llm *f = cls;

	json_t *j = NULL, *so;
	const char *model = "";
	long pt, ct = 16;
	int stream, want_usage, nousage;
	char *out = NULL, *scripted = NULL;
	enum MHD_Result ret;

	pthread_mutex_lock(&f->lock);
	f->requests++;
	snprintf(f->last_path, sizeof(f->last_path), "%s", url);
	free(f->last_body);
	f->last_body = strndup(body ? body : "", len);
	copy_header(c, "Authorization", f->last_auth, sizeof(f->last_auth));
	copy_header(c, "x-api-key", f->last_xkey, sizeof(f->last_xkey));
	copy_header(c, "anthropic-version", f->last_anthropic_version,
		    sizeof(f->last_anthropic_version));
	copy_header(c, "anthropic-beta", f->last_anthropic_beta,
		    sizeof(f->last_anthropic_beta));
	pthread_mutex_unlock(&f->lock);
	if (f->key) {
		char bearer[300];

		snprintf(bearer, sizeof(bearer), "Bearer %s", f->key);
		if (strcmp(f->last_auth, bearer) &&
		    strcmp(f->last_xkey, f->key))
			return reply(c, 401, "application/json",
				     "{\"error\":{\"message\":\"fake: wrong "
				     "provider key\"}}");
	}
	if (!strcmp(method, "GET") && !strcmp(url, "/v1/models"))
		return reply(c, 200, "application/json",
			     "{\"object\":\"list\",\"data\":[{\"id\":"
			     "\"fake-model\",\"object\":\"model\"}]}");
	j = json_loadb(body ? body : "", len, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return reply(c, 400, "application/json",
			     "{\"error\":{\"message\":\"fake: not JSON\"}}");
	}
	log_request(f, j);
	if (json_is_string(json_object_get(j, "model")))
		model = json_string_value(json_object_get(j, "model"));
	if (json_is_integer(json_object_get(j, "max_tokens")))
		ct = (long)json_integer_value(json_object_get(j, "max_tokens"));
	if (json_is_integer(json_object_get(j, "max_output_tokens")))
		ct = (long)json_integer_value(
			json_object_get(j, "max_output_tokens"));
	if (json_is_integer(json_object_get(j, "max_completion_tokens")))
		ct = (long)json_integer_value(
			json_object_get(j, "max_completion_tokens"));
	if (f->completion_tokens)
		ct = f->completion_tokens;
	pt = f->prompt_tokens ? f->prompt_tokens : (long)(len / 4);
	if (f->bill_bytes)
		pt = (long)len;
	stream = json_is_true(json_object_get(j, "stream"));
	so = json_object_get(j, "stream_options");
	want_usage = json_is_true(json_object_get(so, "include_usage"));
	nousage = !strcmp(model, "fake-nousage");
	if (f->delay_ms)
		fake_sleep_ms(f->delay_ms);
	if (!strcmp(model, "fake-hang")) {
		pthread_mutex_lock(&f->lock);
		while (!f->stopping)
			pthread_cond_wait(&f->cond, &f->lock);
		pthread_mutex_unlock(&f->lock);
		json_decref(j);
		return MHD_NO;
	}
	if (!strcmp(model, "fake-500")) {
		ret = reply(c, 500, "application/json",
			    "{\"error\":{\"message\":\"fake: internal "
			    "boom\"}}");
		goto done;
	}
	if (!strcmp(model, "fake-400")) {
		ret = reply(c, 400, "application/json",
			    "{\"error\":{\"message\":\"fake: bad parameter\","
			    "\"type\":\"invalid_request_error\"}}");
		goto done;
	}
	if (!strcmp(model, "fake-401")) {
		char msg[512];

		snprintf(msg, sizeof(msg), "{\"error\":{\"message\":"
			 "\"Incorrect API key provided: %s\"}}",
			 f->last_auth);
		ret = reply(c, 401, "application/json", msg);
		goto done;
	}
	if (!nousage)
		bill(f, pt, strcmp(url, "/v1/embeddings") ? ct : 0);
	if (!strcmp(url, "/v1/chat/completions"))
		scripted = scripted_reply(f);
	if (!strcmp(url, "/v1/messages")) {
		if (stream) {
			struct fake_stream *s = calloc(1, sizeof(*s));

			s->f = f;
			add_ev(s, "message_start", json_pack(
				"{s:s, s:{s:s, s:s, s:s, s:s, s:[],"
				" s:{s:i, s:i}}}",
				"type", "message_start", "message", "id",
				"msg_f", "type", "message", "role",
				"assistant", "model", model, "content",
				"usage", "input_tokens", (int)pt,
				"output_tokens", 1));
			add_ev(s, "content_block_start", json_pack(
				"{s:s, s:i, s:{s:s, s:s}}", "type",
				"content_block_start", "index", 0,
				"content_block", "type", "text", "text", ""));
			add_ev(s, "content_block_delta", json_pack(
				"{s:s, s:i, s:{s:s, s:s}}", "type",
				"content_block_delta", "index", 0, "delta",
				"type", "text_delta", "text", "hello"));
			add_ev(s, "content_block_stop", json_pack(
				"{s:s, s:i}", "type", "content_block_stop",
				"index", 0));
			add_ev(s, "message_delta", json_pack(
				"{s:s, s:{s:s}, s:{s:i}}", "type",
				"message_delta", "delta", "stop_reason",
				"end_turn", "usage", "output_tokens", (int)ct));
			add_ev(s, "message_stop", json_pack("{s:s}", "type",
							    "message_stop"));
			if (f->stream_gate)
				s->gate_before = 3;
			ret = stream_reply(c, s);
			goto done;
		}
		out = dump_new(json_pack(
			"{s:s, s:s, s:s, s:s, s:[{s:s, s:s}], s:s,"
			" s:{s:i, s:i}}",
			"id", "msg_f", "type", "message", "role", "assistant",
			"model", model, "content", "type", "text", "text",
			"hello", "stop_reason", "end_turn", "usage",
			"input_tokens", (int)pt, "output_tokens", (int)ct));
	} else if (!strcmp(url, "/v1/responses")) {
		json_t *usage = json_pack("{s:i, s:i, s:i}", "input_tokens",
					  (int)pt, "output_tokens", (int)ct,
					  "total_tokens", (int)(pt + ct));

		if (stream) {
			struct fake_stream *s = calloc(1, sizeof(*s));

			s->f = f;
			add_ev(s, "response.created", json_pack(
				"{s:s, s:{s:s, s:s}}", "type",
				"response.created", "response", "id", "resp_f",
				"status", "in_progress"));
			add_ev(s, "response.output_text.delta", json_pack(
				"{s:s, s:s}", "type",
				"response.output_text.delta", "delta",
				"hello"));
			add_ev(s, "response.completed", json_pack(
				"{s:s, s:{s:s, s:s, s:o}}", "type",
				"response.completed", "response", "id",
				"resp_f", "status", "completed", "usage",
				usage));
			ret = stream_reply(c, s);
			goto done;
		}
		out = dump_new(json_pack(
			"{s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:[{s:s, s:s}]}],"
			" s:o}", "id", "resp_f", "object", "response",
			"status", "completed", "model", model, "output",
			"type", "message", "role", "assistant", "content",
			"type", "output_text", "text", "hello", "usage",
			usage));
	} else if (!strcmp(url, "/v1/embeddings")) {
		out = dump_new(json_pack(
			"{s:s, s:[{s:s, s:i, s:[f, f]}], s:s, s:{s:i, s:i}}",
			"object", "list", "data", "object", "embedding",
			"index", 0, "embedding", 0.25, 0.5, "model", model,
			"usage", "prompt_tokens", (int)pt, "total_tokens",
			(int)pt));
	} else if (stream) {
		struct fake_stream *s = calloc(1, sizeof(*s));
		int text = !strcmp(url, "/v1/completions");

		s->f = f;
		if (text) {
			add_ev(s, NULL, json_pack("{s:s, s:[{s:s, s:i}]}",
				"object", "text_completion", "choices",
				"text", "hello", "index", 0));
			add_ev(s, NULL, json_pack("{s:s, s:[{s:s, s:i}]}",
				"object", "text_completion", "choices",
				"text", " there", "index", 0));
		} else if (scripted) {
			add_ev(s, NULL, chunk(model, delta("", NULL), NULL));
			add_ev(s, NULL, chunk(model, delta(scripted, NULL),
					      NULL));
			add_ev(s, NULL, chunk(model, delta(NULL, "stop"),
					      NULL));
		} else {
			add_ev(s, NULL, chunk(model, delta("", NULL), NULL));
			add_ev(s, NULL, chunk(model, delta("hello", NULL),
					      NULL));
			add_ev(s, NULL, chunk(model, delta(" from the fake",
							   NULL), NULL));
			add_ev(s, NULL, chunk(model, delta(NULL, "stop"),
					      NULL));
		}
		if (want_usage && !nousage)
			add_ev(s, NULL, chunk(model, json_array(), json_pack(
				"{s:i, s:i, s:i}", "prompt_tokens", (int)pt,
				"completion_tokens", (int)ct, "total_tokens",
				(int)(pt + ct))));
		s->ev = realloc(s->ev, (s->nr + 1) * sizeof(*s->ev));
		s->ev[s->nr++] = strdup("data: [DONE]\n\n");
		if (f->stream_gate)
			s->gate_before = 2;
		ret = stream_reply(c, s);
		goto done;
	} else {
		json_t *resp = json_pack(
			"{s:s, s:s, s:i, s:s, s:[{s:i, s:{s:s, s:s}, s:s}]}",
			"id", "chatcmpl-f", "object", "chat.completion",
			"created", 0, "model", model, "choices", "index", 0,
			"message", "role", "assistant", "content",
			scripted ? scripted : "hello from the fake",
			"finish_reason", "stop");

		if (!nousage)
			json_object_set_new(resp, "usage", json_pack(
				"{s:i, s:i, s:i}", "prompt_tokens", (int)pt,
				"completion_tokens", (int)ct, "total_tokens",
				(int)(pt + ct)));
		out = json_dumps(resp, JSON_COMPACT);
		json_decref(resp);
	}
	ret = reply(c, 200, "application/json", out ? out : "{}");
done:
	pthread_mutex_lock(&f->lock);
	f->requests_done++;
	pthread_mutex_unlock(&f->lock);
	free(out);
	free(scripted);
	json_decref(j);
	return ret;
}

int fake_llm_start(struct fake_llm **out, const char *key)
{
	return fake_llm_start_on(out, key, 0, 0);
}

int fake_llm_start_on(struct fake_llm **out, const char *key, int any,
		      unsigned port)
{
	struct fake_llm *f = calloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	f->key = key;
	f->route.answer = answer;
	f->route.cls = f;
	f->d = mhd_fake_start(&f->route, any, port, 1, &f->port);
	if (!f->d) {
		free(f);
		return -1;
	}
	*out = f;
	return 0;
}

void fake_llm_stop(struct fake_llm *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	MHD_stop_daemon(f->d);
	free(f->last_body);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

void fake_llm_open_gate(struct fake_llm *f)
{
	pthread_mutex_lock(&f->lock);
	f->gate_open = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int fake_llm_requests(struct fake_llm *f)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = f->requests;
	pthread_mutex_unlock(&f->lock);
	return n;
}

char *fake_llm_last_body(struct fake_llm *f)
{
	char *s;

	pthread_mutex_lock(&f->lock);
	s = f->last_body ? strdup(f->last_body) : NULL;
	pthread_mutex_unlock(&f->lock);
	return s;
}

void fake_llm_reset(struct fake_llm *f)
{
	pthread_mutex_lock(&f->lock);
	f->requests = f->requests_done = 0;
	f->last_path[0] = f->last_auth[0] = f->last_xkey[0] = '\0';
	f->last_anthropic_version[0] = f->last_anthropic_beta[0] = '\0';
	free(f->last_body);
	f->last_body = NULL;
	f->gate_open = f->gate_timed_out = 0;
	f->chats = 0;
	f->billed_in = f->billed_out = 0;
	pthread_mutex_unlock(&f->lock);
}

#ifdef FAKE_LLM_MAIN
#include <signal.h>

static volatile sig_atomic_t fake_stop;

static void fake_on_signal(int sig)
{
	(void)sig;
	fake_stop = 1;
}

/*
 * fake-llm [--any] [--port N] [--replies DIR] [--log-requests FILE]
 *          [--bill-bytes] [--completion-tokens N] [--bill-log FILE] [KEY]:
 * serve (on 127.0.0.1, or every address with --any), print the port,
 * stop on SIGTERM. With KEY, only requests carrying it are answered.
 * --replies and --log-requests: replies_dir and request_log of
 * fake_llm.h (scripted chat answers; every request body appended).
 * --bill-bytes, --completion-tokens, --bill-log: bill_bytes,
 * completion_tokens and bill_log (one prompt token per body byte).
 */
int main(int argc, char **argv)
{
	struct fake_llm *f = NULL;
	const char *key = NULL, *replies = NULL, *reqlog = NULL;
	const char *billlog = NULL;
	unsigned port = 0;
	long completion = 0;
	int any = 0, bytes = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--any"))
			any = 1;
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--replies") && i + 1 < argc)
			replies = argv[++i];
		else if (!strcmp(argv[i], "--log-requests") && i + 1 < argc)
			reqlog = argv[++i];
		else if (!strcmp(argv[i], "--bill-log") && i + 1 < argc)
			billlog = argv[++i];
		else if (!strcmp(argv[i], "--completion-tokens") &&
			 i + 1 < argc)
			completion = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--bill-bytes"))
			bytes = 1;
		else
			key = argv[i];
	}
	signal(SIGTERM, fake_on_signal);
	signal(SIGINT, fake_on_signal);
	if (fake_llm_start_on(&f, key, any, port) != 0)
		return 1;
	/* set before the port is printed: clients wait for that */
	f->replies_dir = replies;
	f->request_log = reqlog;
	f->bill_log = billlog;
	f->bill_bytes = bytes;
	f->completion_tokens = completion;
	printf("%u\n", f->port);
	fflush(stdout);
	while (!fake_stop)
		pause();
	fake_llm_stop(f);
	return 0;
}
#endif
