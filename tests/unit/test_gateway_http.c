/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gateway_http.c - the gateway end to end over real HTTP
 *
 * A fake provider (tests/fakes/fake_llm.c) and the gateway both listen on
 * 127.0.0.1 ephemeral ports in this process; clients are libcurl. Every
 * cost asserted is computed from the fake's configured usage and the
 * prices in the test config, to the picodollar. Each test uses its own
 * CRS account so ledger deltas do not mix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_keys.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_price.h"
#include "runner/gateway/gw_server.h"

#include "tests/fakes/fake_llm.c"

#define PROVIDER_KEY "sk-provider-test-0123456789"
/* test prices: $1 per million prompt tokens, $2 per million output */
#define IN_PUSD INT64_C(1000000)
#define OUT_PUSD INT64_C(2000000)
#define USD(x) ((int64_t)((x) * 1e12 + 0.5))

static const char *const crs_names[] = {
	"plain", "stream", "left", "edge", "badkey", "malformed", "slow",
	"other", "errors", "misc", "anthropic", "nousage", "gone", "ext",
	"stopped",
};
#define NCRS (sizeof(crs_names) / sizeof(*crs_names))

static struct {
	struct fake_llm *fake;
	struct gw_config *cfg;
	struct gw_ledger *ledger;
	struct gw_keys *keys;
	struct gw_server *srv;
	char dir[64];
	char key[NCRS][GW_KEY_LEN + 1];
	char base[64];
} t;

static size_t crs_id(const char *name)
{
	size_t id = 0;

	if (gw_ledger_find(t.ledger, &id, name) != 0)
		fail_msg("no account %s", name);
	return id;
}

static const char *key_of(const char *name)
{
	return t.key[crs_id(name)];
}

static struct gw_account account(const char *name)
{
	struct gw_account a;

	gw_ledger_account(t.ledger, crs_id(name), &a);
	return a;
}

static void quiet(enum log_level level, const char *file, const char *func,
		  int line, const char *msg, void *ctx)
{
	(void)level; (void)file; (void)func; (void)line; (void)msg; (void)ctx;
}

static int group_setup(void **state)
{
	struct buf yaml = BUF_INIT, kb = BUF_INIT;
	static const char *const models[] = {
		"fake-model", "fake-500", "fake-400", "fake-401",
		"fake-nousage",
	};
	size_t id;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	log_set_handler(quiet, NULL);
	if (fake_llm_start(&t.fake, PROVIDER_KEY) != 0)
		return -1;
	setenv("GWTEST_PROVIDER_API_KEY", PROVIDER_KEY, 1);
	buf_adds(&yaml, "model_list:\n");
	for (size_t i = 0; i < sizeof(models) / sizeof(*models); i++)
		buf_printf(&yaml,
			   "  - model_name: %s\n"
			   "    litellm_params:\n"
			   "      model: openai/%s\n"
			   "      api_base: http://127.0.0.1:%u/v1\n"
			   "      api_key: os.environ/GWTEST_PROVIDER_API_KEY\n"
			   "      input_cost_per_token: 0.000001\n"
			   "      output_cost_per_token: 0.000002\n",
			   models[i], models[i], t.fake->port);
	buf_printf(&yaml,
		   "  - model_name: fake-hang\n"
		   "    litellm_params:\n"
		   "      model: openai/fake-hang\n"
		   "      api_base: http://127.0.0.1:%u/v1\n"
		   "      api_key: os.environ/GWTEST_PROVIDER_API_KEY\n"
		   "      input_cost_per_token: 0.000001\n"
		   "      output_cost_per_token: 0.000002\n"
		   "      timeout: 2\n"
		   "  - model_name: fake-claude\n"
		   "    litellm_params:\n"
		   "      model: anthropic/fake-claude\n"
		   "      api_base: http://127.0.0.1:%u\n"
		   "      api_key: os.environ/GWTEST_PROVIDER_API_KEY\n"
		   "      input_cost_per_token: 0.000003\n"
		   "      output_cost_per_token: 0.000015\n"
		   "  - model_name: fake-embed\n"
		   "    litellm_params:\n"
		   "      model: openai/fake-embed\n"
		   "      api_base: http://127.0.0.1:%u/v1\n"
		   "      api_key: os.environ/GWTEST_PROVIDER_API_KEY\n"
		   "      input_cost_per_token: 0.0000001\n"
		   "  - model_name: unpriced\n"
		   "    litellm_params:\n"
		   "      model: openai/unpriced\n"
		   "      api_base: http://127.0.0.1:%u/v1\n"
		   "crs_ci_settings:\n"
		   "  max_tokens_cap: 1000\n",
		   t.fake->port, t.fake->port, t.fake->port, t.fake->port);
	if (gw_config_parse(&t.cfg, yaml.ptr, yaml.len, "test.yaml",
			    NULL) != 0) {
		fprintf(stderr, "%s\n", crs_error_last());
		return -1;
	}
	buf_release(&yaml);
	snprintf(t.dir, sizeof(t.dir), "/tmp/gwhttp.XXXXXX");
	if (!mkdtemp(t.dir))
		return -1;
	t.ledger = gw_ledger_new();
	t.keys = gw_keys_new();
	for (size_t i = 0; i < NCRS; i++) {
		char keys_dir[128], *path;
		int64_t budget = USD(1.00);

		if (!strcmp(crs_names[i], "left"))
			budget = USD(0.10);
		if (!strcmp(crs_names[i], "edge"))
			budget = USD(0.0205);
		snprintf(keys_dir, sizeof(keys_dir), "%s/keys", t.dir);
		if (gw_ledger_add(t.ledger, &id, crs_names[i], budget) != 0 ||
		    gw_keys_issue(t.keys, keys_dir, crs_names[i], id) != 0)
			return -1;
		path = gw_keys_path(keys_dir, crs_names[i]);
		buf_reset(&kb);
		if (fs_read_file(&kb, path, 4096) != 0)
			return -1;
		memcpy(t.key[id], kb.ptr, GW_KEY_LEN + 1);
		free(path);
	}
	buf_release(&kb);
	if (gw_server_start(&t.srv, "127.0.0.1:0", t.cfg, t.ledger,
			    t.keys) != 0) {
		fprintf(stderr, "%s\n", crs_error_last());
		return -1;
	}
	snprintf(t.base, sizeof(t.base), "http://127.0.0.1:%u",
		 gw_server_port(t.srv));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	gw_server_free(t.srv);
	fake_llm_stop(t.fake);
	gw_keys_free(t.keys);
	gw_ledger_free(t.ledger);
	gw_config_free(t.cfg);
	fs_remove_tree(t.dir);
	log_set_handler(NULL, NULL);
	curl_global_cleanup();
	return 0;
}

/* Each test starts with a quiet fake. */
static int reset(void **state)
{
	(void)state;
	fake_llm_reset(t.fake);
	t.fake->prompt_tokens = 0;
	t.fake->completion_tokens = 0;
	t.fake->delay_ms = 0;
	t.fake->stream_gate = 0;
	return 0;
}

/* ---- a small HTTP client ------------------------------------------------ */

struct resp {
	long status;
	struct buf body;
	double seconds;
	/* streaming checks */
	int saw_hello_before_gate;
	int open_gate;
	int abort_on_hello;	/* hang up once "hello" arrived */
};

static size_t on_data(char *p, size_t sz, size_t n, void *ctx)
{
	struct resp *r = ctx;

	buf_add(&r->body, p, sz * n);
	if (r->abort_on_hello && strstr(r->body.ptr, "hello"))
		return 0;
	if (r->open_gate && strstr(r->body.ptr, "hello") &&
	    !r->saw_hello_before_gate) {
		pthread_mutex_lock(&t.fake->lock);
		r->saw_hello_before_gate = !t.fake->gate_open;
		pthread_mutex_unlock(&t.fake->lock);
		fake_llm_open_gate(t.fake);
	}
	return sz * n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* `auth`: a full header line, or NULL for none. */
static void call_at(struct resp *r, const char *base, const char *method,
		    const char *path, const char *auth, const char *body,
		    const char *extra)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	char url[256];
	double t0 = now();

	buf_init(&r->body);
	snprintf(url, sizeof(url), "%s%s", base, path);
	hd = curl_slist_append(hd, "Content-Type: application/json");
	if (auth)
		hd = curl_slist_append(hd, auth);
	if (extra)
		hd = curl_slist_append(hd, extra);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	if (!strcmp(method, "POST"))
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
	if (curl_easy_perform(h) != CURLE_OK)
		r->status = -1;
	else
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	r->seconds = now() - t0;
	curl_slist_free_all(hd);
	curl_easy_cleanup(h);
}

static void call(struct resp *r, const char *method, const char *path,
		 const char *auth, const char *body, const char *extra)
{
	call_at(r, t.base, method, path, auth, body, extra);
}

static void post(struct resp *r, const char *crs, const char *path,
		 const char *body)
{
	char auth[160];

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key_of(crs));
	call(r, "POST", path, auth, body, NULL);
}

static void resp_release(struct resp *r)
{
	buf_release(&r->body);
}

/* The "code" of an OpenAI error body, or "". */
static const char *error_code(struct resp *r, char *out, size_t n)
{
	json_t *j = json_loads(r->body.ptr, 0, NULL);
	json_t *c = json_object_get(json_object_get(j, "error"), "code");

	snprintf(out, n, "%s", json_is_string(c) ? json_string_value(c) : "");
	json_decref(j);
	return out;
}

static const char *error_message(struct resp *r, char *out, size_t n)
{
	json_t *j = json_loads(r->body.ptr, 0, NULL);
	json_t *c = json_object_get(json_object_get(j, "error"), "message");

	snprintf(out, n, "%s", json_is_string(c) ? json_string_value(c) : "");
	json_decref(j);
	return out;
}

#define CHAT(model, extra) \
	"{\"model\":\"" model "\",\"messages\":[{\"role\":\"user\"," \
	"\"content\":\"say hello\"}]" extra "}"

/* ---- tests -------------------------------------------------------------- */

static void test_plain_accounted(void **state)
{
	struct resp r = { 0 };
	struct gw_account a;
	char *sent;

	(void)state;
	t.fake->prompt_tokens = 1000;
	post(&r, "plain", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":500"));
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "hello from the fake"));
	a = account("plain");
	/* 1000 * $1/M + 500 * $2/M = $0.002 */
	assert_int_equal(a.spent_pusd, 1000 * IN_PUSD + 500 * OUT_PUSD);
	assert_int_equal(a.spent_pusd, USD(0.002));
	assert_int_equal(a.tokens_in, 1000);
	assert_int_equal(a.tokens_out, 500);
	assert_int_equal(a.requests, 1);
	assert_int_equal(a.reserved_pusd, 0);
	assert_int_equal(a.unmetered, 0);
	/* the provider got its own key, never the CRS's */
	assert_string_equal(t.fake->last_auth, "Bearer " PROVIDER_KEY);
	assert_string_equal(t.fake->last_path, "/v1/chat/completions");
	sent = fake_llm_last_body(t.fake);
	assert_non_null(strstr(sent, "\"max_tokens\":500"));
	assert_null(strstr(sent, key_of("plain")));
	free(sent);
	resp_release(&r);

	/* no limit named: the cap is sent, so the reservation binds */
	t.fake->prompt_tokens = 10;
	post(&r, "plain", "/chat/completions", CHAT("fake-model", ""));
	assert_int_equal(r.status, 200);
	sent = fake_llm_last_body(t.fake);
	assert_non_null(strstr(sent, "\"max_tokens\":1000"));
	free(sent);
	a = account("plain");
	assert_int_equal(a.spent_pusd, USD(0.002) + 10 * IN_PUSD +
			 1000 * OUT_PUSD);
	assert_null(strstr(r.body.ptr, PROVIDER_KEY));
	resp_release(&r);
}

static void test_stream_accounted(void **state)
{
	struct resp r = { 0 };
	struct gw_account a;
	char *sent;

	(void)state;
	t.fake->prompt_tokens = 1000;
	t.fake->completion_tokens = 300;
	t.fake->stream_gate = 1;
	r.open_gate = 1;
	post(&r, "stream", "/v1/chat/completions",
	     CHAT("fake-model", ",\"stream\":true,\"max_tokens\":400"));
	assert_int_equal(r.status, 200);
	/* the first chunks reached us while the fake still held the rest */
	assert_true(r.saw_hello_before_gate);
	assert_false(t.fake->gate_timed_out);
	assert_non_null(strstr(r.body.ptr, " from the fake"));
	assert_non_null(strstr(r.body.ptr, "data: [DONE]\n\n"));
	/* usage was asked for on the CRS's behalf, and not shown to it */
	sent = fake_llm_last_body(t.fake);
	assert_non_null(strstr(sent, "\"include_usage\":true"));
	free(sent);
	assert_null(strstr(r.body.ptr, "\"choices\":[]"));
	a = account("stream");
	/* 1000 * $1/M + 300 * $2/M = $0.0016 */
	assert_int_equal(a.spent_pusd, USD(0.0016));
	assert_int_equal(a.tokens_in, 1000);
	assert_int_equal(a.tokens_out, 300);
	assert_int_equal(a.unmetered, 0);
	assert_int_equal(a.reserved_pusd, 0);
	resp_release(&r);

	/* a CRS that asks for usage gets the usage chunk */
	fake_llm_reset(t.fake);
	t.fake->stream_gate = 0;
	memset(&r, 0, sizeof(r));
	post(&r, "stream", "/v1/chat/completions",
	     CHAT("fake-model", ",\"stream\":true,\"max_tokens\":400,"
		  "\"stream_options\":{\"include_usage\":true}"));
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"choices\":[]"));
	assert_non_null(strstr(r.body.ptr, "\"completion_tokens\":300"));
	a = account("stream");
	assert_int_equal(a.spent_pusd, 2 * USD(0.0016));
	resp_release(&r);
}

static void test_refused_before_upstream(void **state)
{
	struct resp r = { 0 };
	struct gw_account a;
	char msg[512], code[64];

	(void)state;
	/* spend $0.05 of $0.10: 10000 * $1/M + 20000 * $2/M */
	t.fake->prompt_tokens = 10000;
	t.fake->completion_tokens = 20000;
	post(&r, "left", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":20000"));
	assert_int_equal(r.status, 200);
	resp_release(&r);
	a = account("left");
	assert_int_equal(a.spent_pusd, USD(0.05));
	assert_int_equal(fake_llm_requests(t.fake), 1);

	/* $0.05 left; 30000 output tokens could cost $0.06: refused */
	post(&r, "left", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":30000"));
	assert_int_equal(r.status, 429);
	assert_int_equal(fake_llm_requests(t.fake), 1); /* not called */
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "budget_exceeded");
	error_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "budget of CRS 'left' exceeded: budget "
			       "$0.10, spent $0.05"));
	assert_non_null(strstr(msg, "this request may cost up to $0.06"));
	resp_release(&r);
	a = account("left");
	assert_int_equal(a.refusals, 1);
	assert_int_equal(a.spent_pusd, USD(0.05));

	/* a request that fits is still served */
	t.fake->prompt_tokens = 10;
	t.fake->completion_tokens = 100;
	post(&r, "left", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":100"));
	assert_int_equal(r.status, 200);
	assert_int_equal(fake_llm_requests(t.fake), 2);
	resp_release(&r);
}

struct edge_job {
	pthread_t th;
	struct resp r;
};

static void *edge_run(void *arg)
{
	struct edge_job *j = arg;

	post(&j->r, "edge", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":1000"));
	return NULL;
}

static void test_concurrent_edge(void **state)
{
	static struct edge_job jobs[50];
	struct gw_account a;
	int ok = 0, refused = 0;
	int64_t cost = 10 * IN_PUSD + 1000 * OUT_PUSD;	/* $0.00201 */

	(void)state;
	t.fake->prompt_tokens = 10;
	t.fake->completion_tokens = 1000;
	t.fake->delay_ms = 50;	/* keep them in flight together */
	for (int i = 0; i < 50; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		assert_int_equal(pthread_create(&jobs[i].th, NULL, edge_run,
						&jobs[i]), 0);
	}
	for (int i = 0; i < 50; i++) {
		pthread_join(jobs[i].th, NULL);
		if (jobs[i].r.status == 200)
			ok++;
		else if (jobs[i].r.status == 429)
			refused++;
		else
			fail_msg("request %d: HTTP %ld", i, jobs[i].r.status);
		resp_release(&jobs[i].r);
	}
	a = account("edge");
	assert_int_equal(ok + refused, 50);
	assert_true(a.spent_pusd <= a.budget_pusd);
	assert_int_equal(a.spent_pusd, ok * cost);
	assert_int_equal(fake_llm_requests(t.fake), ok);
	assert_int_equal(a.requests, (uint64_t)ok);
	assert_int_equal(a.refusals, (uint64_t)refused);
	assert_int_equal(a.reserved_pusd, 0);
	assert_int_equal(a.in_flight, 0);
	/* $0.0205 holds ten at $0.00201, and no eleventh */
	assert_int_equal(ok, a.budget_pusd / cost);
}

static void test_bad_key(void **state)
{
	struct resp r = { 0 };
	char code[64], wrong[160];
	json_t *j;

	(void)state;
	call(&r, "POST", "/v1/chat/completions", NULL, CHAT("fake-model", ""),
	     NULL);
	assert_int_equal(r.status, 401);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "invalid_api_key");
	resp_release(&r);
	snprintf(wrong, sizeof(wrong), "Authorization: Bearer %s",
		 key_of("badkey"));
	wrong[40] = wrong[40] == '0' ? '1' : '0';
	call(&r, "POST", "/v1/chat/completions", wrong,
	     CHAT("fake-model", ""), NULL);
	assert_int_equal(r.status, 401);
	assert_null(strstr(r.body.ptr, wrong + 22));	/* not echoed */
	resp_release(&r);
	call(&r, "GET", "/v1/models", "Authorization: Bearer sk-crsci-x",
	     NULL, NULL);
	assert_int_equal(r.status, 401);
	resp_release(&r);
	/* Anthropic's route answers in Anthropic's dialect */
	call(&r, "POST", "/v1/messages", "x-api-key: nope",
	     "{\"model\":\"fake-claude\",\"max_tokens\":5,\"messages\":"
	     "[{\"role\":\"user\",\"content\":\"hi\"}]}", NULL);
	assert_int_equal(r.status, 401);
	j = json_loads(r.body.ptr, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "type")),
			    "error");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(j, "error"), "type")), "authentication_error");
	json_decref(j);
	resp_release(&r);
	assert_int_equal(fake_llm_requests(t.fake), 0);
	assert_int_equal(account("badkey").requests, 0);
}

static void test_malformed(void **state)
{
	static const struct {
		const char *path, *body, *code;
	} cases[] = {
		{ "/v1/chat/completions", "{not json", "invalid_json" },
		{ "/v1/chat/completions", "[1,2]", "invalid_json" },
		{ "/v1/chat/completions", "", "invalid_json" },
		{ "/v1/chat/completions", "{\"messages\":[]}",
		  "missing_model" },
		{ "/v1/chat/completions", "{\"model\":\"fake-model\"}",
		  "invalid_request" },
		{ "/v1/chat/completions", CHAT("fake-model",
		  ",\"max_tokens\":\"lots\""), "invalid_value" },
		{ "/v1/chat/completions", CHAT("fake-model",
		  ",\"max_tokens\":0"), "invalid_value" },
		{ "/v1/chat/completions", CHAT("fake-model", ",\"stream\":1"),
		  "invalid_value" },
		{ "/v1/chat/completions", CHAT("fake-model", ",\"n\":1000"),
		  "invalid_value" },
		{ "/v1/embeddings", "{\"model\":\"fake-embed\"}",
		  "invalid_request" },
	};
	char code[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct resp r = { 0 };

		post(&r, "malformed", cases[i].path, cases[i].body);
		if (r.status != 400 ||
		    strcmp(error_code(&r, code, sizeof(code)), cases[i].code))
			fail_msg("case %zu: HTTP %ld %s", i, r.status,
				 r.body.ptr);
		resp_release(&r);
	}
	assert_int_equal(fake_llm_requests(t.fake), 0);
	assert_int_equal(account("malformed").requests, 0);
}

struct slow_job {
	pthread_t th;
	struct resp r;
	volatile int done;
};

static void *slow_run(void *arg)
{
	struct slow_job *j = arg;

	post(&j->r, "slow", "/v1/chat/completions",
	     CHAT("fake-hang", ",\"max_tokens\":100"));
	j->done = 1;
	return NULL;
}

static void test_upstream_failures(void **state)
{
	struct slow_job slow;
	struct resp r = { 0 };
	struct gw_account a;
	char code[64], msg[512];

	(void)state;
	/* the provider hangs for crs "slow" (timeout 2 s) ... */
	memset(&slow, 0, sizeof(slow));
	assert_int_equal(pthread_create(&slow.th, NULL, slow_run, &slow), 0);
	while (fake_llm_requests(t.fake) < 1)
		usleep(10000);
	/* ... and "other" is served meanwhile */
	t.fake->prompt_tokens = 5;
	post(&r, "other", "/v1/chat/completions",
	     CHAT("fake-model", ",\"max_tokens\":5"));
	assert_int_equal(r.status, 200);
	assert_false(slow.done);
	assert_true(r.seconds < 1.0);
	resp_release(&r);
	pthread_join(slow.th, NULL);
	assert_int_equal(slow.r.status, 504);
	assert_string_equal(error_code(&slow.r, code, sizeof(code)),
			    "upstream_timeout");
	error_message(&slow.r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "did not answer within 2 s"));
	assert_true(slow.r.seconds >= 1.9 && slow.r.seconds < 5);
	resp_release(&slow.r);
	/* the hung request reached the provider: charged its worst case */
	a = account("slow");
	assert_int_equal(a.errors, 1);
	assert_int_equal(a.unmetered, 1);
	assert_true(a.spent_pusd >= 100 * OUT_PUSD);
	assert_int_equal(a.reserved_pusd, 0);

	/* HTTP 500 from the provider: 502, nothing charged */
	post(&r, "errors", "/v1/chat/completions", CHAT("fake-500", ""));
	assert_int_equal(r.status, 502);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "upstream_error");
	error_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "answered HTTP 500"));
	assert_non_null(strstr(msg, "internal boom"));
	resp_release(&r);
	/* 401 from the provider: the CRS never sees the provider's key */
	post(&r, "errors", "/v1/chat/completions", CHAT("fake-401", ""));
	assert_int_equal(r.status, 502);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "upstream_auth");
	assert_null(strstr(r.body.ptr, PROVIDER_KEY));
	resp_release(&r);
	/* 400 from the provider is the CRS's to fix: passed on */
	post(&r, "errors", "/v1/chat/completions", CHAT("fake-400", ""));
	assert_int_equal(r.status, 400);
	assert_non_null(strstr(r.body.ptr, "fake: bad parameter"));
	resp_release(&r);
	a = account("errors");
	assert_int_equal(a.errors, 3);
	assert_int_equal(a.spent_pusd, 0);
	assert_int_equal(a.reserved_pusd, 0);
}

static void test_routes(void **state)
{
	struct resp r = { 0 };
	char auth[160], code[64], *sent;
	int64_t spent;
	json_t *j;

	(void)state;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("misc"));
	call(&r, "GET", "/v1/models", auth, NULL, NULL);
	assert_int_equal(r.status, 200);
	j = json_loads(r.body.ptr, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(j, "data")),
			 t.cfg->models_nr);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "data"), 0), "id")), "fake-model");
	json_decref(j);
	resp_release(&r);
	call(&r, "GET", "/models", auth, NULL, NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	call(&r, "GET", "/health", NULL, NULL, NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	call(&r, "GET", "/v1/nothing", auth, NULL, NULL);
	assert_int_equal(r.status, 404);
	resp_release(&r);
	call(&r, "GET", "/v1/chat/completions", auth, NULL, NULL);
	assert_int_equal(r.status, 405);
	resp_release(&r);
	post(&r, "misc", "/v1/chat/completions", CHAT("no-such-model", ""));
	assert_int_equal(r.status, 404);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "model_not_found");
	resp_release(&r);
	post(&r, "misc", "/v1/chat/completions", CHAT("unpriced", ""));
	assert_int_equal(r.status, 400);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "model_not_priced");
	resp_release(&r);
	/* embeddings: prompt tokens only */
	t.fake->prompt_tokens = 2000;
	post(&r, "misc", "/v1/embeddings",
	     "{\"model\":\"fake-embed\",\"input\":\"some text\"}");
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"embedding\""));
	resp_release(&r);
	assert_int_equal(account("misc").spent_pusd, 2000 * INT64_C(100000));
	/* legacy completions */
	t.fake->prompt_tokens = 7;
	post(&r, "misc", "/v1/completions",
	     "{\"model\":\"fake-model\",\"prompt\":\"x\",\"max_tokens\":3}");
	assert_int_equal(r.status, 200);
	resp_release(&r);
	assert_int_equal(account("misc").spent_pusd, 2000 * INT64_C(100000) +
			 7 * IN_PUSD + 3 * OUT_PUSD);
	/* the Responses API: max_output_tokens, usage in the response */
	t.fake->prompt_tokens = 11;
	t.fake->completion_tokens = 0;
	post(&r, "misc", "/v1/responses",
	     "{\"model\":\"fake-model\",\"input\":\"x\"}");
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"output_text\""));
	resp_release(&r);
	sent = fake_llm_last_body(t.fake);
	assert_non_null(strstr(sent, "\"max_output_tokens\":1000"));
	free(sent);
	spent = account("misc").spent_pusd;
	assert_int_equal(spent, 2000 * INT64_C(100000) + 7 * IN_PUSD +
			 3 * OUT_PUSD + 11 * IN_PUSD + 1000 * OUT_PUSD);
	post(&r, "misc", "/v1/responses", "{\"model\":\"fake-model\","
	     "\"input\":\"x\",\"stream\":true,\"max_output_tokens\":20}");
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "event: response.completed"));
	resp_release(&r);
	assert_int_equal(account("misc").spent_pusd,
			 spent + 11 * IN_PUSD + 20 * OUT_PUSD);
	assert_int_equal(account("misc").unmetered, 0);
	/* the CRS's own spend */
	call(&r, "GET", "/key/info", auth, NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"key_alias\":\"misc\""));
	assert_null(strstr(r.body.ptr, "sk-crsci-"));
	resp_release(&r);
	/* /v1/messages needs an Anthropic model */
	post(&r, "misc", "/v1/messages",
	     "{\"model\":\"fake-model\",\"max_tokens\":5,\"messages\":"
	     "[{\"role\":\"user\",\"content\":\"hi\"}]}");
	assert_int_equal(r.status, 400);
	resp_release(&r);
}

static void test_anthropic(void **state)
{
	struct resp r = { 0 };
	char auth[160];
	int64_t each = 40 * 3 * IN_PUSD + 60 * 15 * IN_PUSD;

	(void)state;
	t.fake->prompt_tokens = 40;
	t.fake->completion_tokens = 60;
	snprintf(auth, sizeof(auth), "x-api-key: %s", key_of("anthropic"));
	call(&r, "POST", "/v1/messages", auth,
	     "{\"model\":\"fake-claude\",\"max_tokens\":100,\"messages\":"
	     "[{\"role\":\"user\",\"content\":\"hi\"}]}",
	     "anthropic-version: 2023-06-01");
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"type\":\"message\""));
	assert_string_equal(t.fake->last_path, "/v1/messages");
	assert_string_equal(t.fake->last_xkey, PROVIDER_KEY);
	assert_string_equal(t.fake->last_anthropic_version, "2023-06-01");
	resp_release(&r);
	assert_int_equal(account("anthropic").spent_pusd, each);
	/* streamed: input from message_start, output from message_delta */
	call(&r, "POST", "/v1/messages", auth,
	     "{\"model\":\"fake-claude\",\"max_tokens\":100,\"stream\":true,"
	     "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", NULL);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "event: message_stop"));
	resp_release(&r);
	assert_int_equal(account("anthropic").spent_pusd, 2 * each);
	assert_int_equal(account("anthropic").unmetered, 0);
	/* OpenAI-style call to the same model: Anthropic's compatible
	 * /v1/chat/completions with a Bearer key */
	post(&r, "anthropic", "/v1/chat/completions",
	     CHAT("fake-claude", ",\"max_tokens\":100"));
	assert_string_equal(t.fake->last_path, "/v1/chat/completions");
	assert_string_equal(t.fake->last_auth, "Bearer " PROVIDER_KEY);
	assert_int_equal(r.status, 200);
	resp_release(&r);
}

static void test_no_usage_charged_worst_case(void **state)
{
	struct resp r = { 0 };
	struct gw_account a;
	char *sent;
	int64_t worst;

	(void)state;
	post(&r, "nousage", "/v1/chat/completions",
	     CHAT("fake-nousage", ",\"max_tokens\":50"));
	assert_int_equal(r.status, 200);
	resp_release(&r);
	sent = fake_llm_last_body(t.fake);
	/* prompt estimate: one token per 3 bytes of what was forwarded */
	worst = (int64_t)((strlen(sent) + 2) / 3) * IN_PUSD + 50 * OUT_PUSD;
	free(sent);
	a = account("nousage");
	assert_int_equal(a.spent_pusd, worst);
	assert_int_equal(a.unmetered, 1);
	/* streamed without a usage chunk: the same */
	post(&r, "nousage", "/v1/chat/completions",
	     CHAT("fake-nousage", ",\"max_tokens\":50,\"stream\":true"));
	assert_int_equal(r.status, 200);
	resp_release(&r);
	a = account("nousage");
	assert_int_equal(a.unmetered, 2);
	assert_true(a.spent_pusd > worst);
}

/* The CRS hangs up mid-stream: the reservation is not leaked. */
static void test_client_gone(void **state)
{
	struct resp r = { 0 };
	struct gw_account a;

	(void)state;
	t.fake->stream_gate = 1;
	r.abort_on_hello = 1;
	post(&r, "gone", "/v1/chat/completions",
	     CHAT("fake-nousage", ",\"stream\":true,\"max_tokens\":100"));
	assert_int_equal(r.status, -1);	/* we aborted */
	resp_release(&r);
	fake_llm_open_gate(t.fake);
	for (int i = 0; i < 500; i++) {
		a = account("gone");
		if (!a.in_flight)
			break;
		usleep(10000);
	}
	assert_int_equal(a.in_flight, 0);
	assert_int_equal(a.reserved_pusd, 0);
	assert_int_equal(a.unmetered, 1);	/* charged its worst case */
	assert_true(a.spent_pusd >= 100 * OUT_PUSD);
}

/* External mode: any model to one endpoint, priced by name. */
static void test_external(void **state)
{
	struct gw_config *cfg = gw_config_new();
	struct gw_server *srv = NULL;
	struct resp r = { 0 };
	char base[64], url[64], auth[160], code[64];

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", t.fake->port);
	assert_int_equal(gw_config_set_external(cfg, url,
						"GWTEST_PROVIDER_API_KEY"), 0);
	assert_int_equal(gw_server_start(&srv, "127.0.0.1:0", cfg, t.ledger,
					 t.keys), 0);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u",
		 gw_server_port(srv));
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("ext"));
	t.fake->prompt_tokens = 1000;
	t.fake->completion_tokens = 1000;
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("gpt-4o-mini", ",\"max_tokens\":1000"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	/* model unchanged, path as sent, the external key */
	assert_string_equal(t.fake->last_path, "/v1/chat/completions");
	assert_string_equal(t.fake->last_auth, "Bearer " PROVIDER_KEY);
	/* shipped price of gpt-4o-mini: $0.15/M in, $0.60/M out */
	assert_int_equal(account("ext").spent_pusd, USD(0.00075));
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("no-price-model", ""), NULL);
	assert_int_equal(r.status, 400);
	assert_string_equal(error_code(&r, code, sizeof(code)),
			    "model_not_priced");
	resp_release(&r);
	/* the model list is the endpoint's */
	call_at(&r, base, "GET", "/v1/models", auth, NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "\"fake-model\""));
	resp_release(&r);
	gw_server_free(srv);
	gw_config_free(cfg);
}

struct stop_job {
	pthread_t th;
	const char *base;
	struct resp r;
};

static void *stop_run(void *arg)
{
	struct stop_job *j = arg;
	char auth[160];

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("stopped"));
	call_at(&j->r, j->base, "POST", "/v1/chat/completions", auth,
		CHAT("fake-hang", ",\"max_tokens\":10"), NULL);
	return NULL;
}

/* Stopping the server does not wait for a hung provider. */
static void test_stop_with_request_in_flight(void **state)
{
	struct gw_server *srv = NULL;
	struct stop_job j;
	char base[64], code[64];
	double t0;

	(void)state;
	memset(&j, 0, sizeof(j));
	assert_int_equal(gw_server_start(&srv, "127.0.0.1:0", t.cfg, t.ledger,
					 t.keys), 0);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u",
		 gw_server_port(srv));
	j.base = base;
	assert_int_equal(pthread_create(&j.th, NULL, stop_run, &j), 0);
	while (fake_llm_requests(t.fake) < 1)
		usleep(10000);
	t0 = now();
	gw_server_free(srv);
	assert_true(now() - t0 < 1.5);
	pthread_join(j.th, NULL);
	assert_int_equal(j.r.status, 503);
	assert_string_equal(error_code(&j.r, code, sizeof(code)),
			    "gateway_stopping");
	resp_release(&j.r);
	assert_int_equal(account("stopped").in_flight, 0);
	assert_int_equal(account("stopped").reserved_pusd, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_plain_accounted, reset),
		cmocka_unit_test_setup(test_stream_accounted, reset),
		cmocka_unit_test_setup(test_refused_before_upstream, reset),
		cmocka_unit_test_setup(test_concurrent_edge, reset),
		cmocka_unit_test_setup(test_bad_key, reset),
		cmocka_unit_test_setup(test_malformed, reset),
		cmocka_unit_test_setup(test_upstream_failures, reset),
		cmocka_unit_test_setup(test_routes, reset),
		cmocka_unit_test_setup(test_anthropic, reset),
		cmocka_unit_test_setup(test_no_usage_charged_worst_case, reset),
		cmocka_unit_test_setup(test_client_gone, reset),
		cmocka_unit_test_setup(test_external, reset),
		cmocka_unit_test_setup(test_stop_with_request_in_flight, reset),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
