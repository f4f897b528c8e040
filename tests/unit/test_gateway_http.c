/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gateway_http.c - the gateway end to end over real HTTP
 *
 * A fake provider (tests/helper/fake_llm.c) and the gateway both listen on
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
#include "runner/gateway/gw_policy.h"
#include "runner/gateway/gw_price.h"
#include "runner/gateway/gw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "tests/helper/fake_llm.h"
#include "tests/unit/dense_text.h"

#define PROVIDER_KEY "sk-provider-test-0123456789"
/* test prices: $1 per million prompt tokens, $2 per million output */
#define IN_PUSD INT64_C(1000000)
#define OUT_PUSD INT64_C(2000000)
#define USD(x) ((int64_t)((x) * 1e12 + 0.5))

static const char *const crs_names[] = {
	"plain", "stream", "left", "edge", "badkey", "malformed", "slow",
	"other", "errors", "misc", "anthropic", "nousage", "gone", "ext",
	"stopped", "dense", "fields", "capped", "uncapped", "idle",
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
	const char *client_ip;	/* source address of call_at, or NULL */
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

/* The test models on the fake, with more crs_ci_settings lines. */
static struct gw_config *test_config(const char *settings)
{
	struct buf yaml = BUF_INIT;
	struct gw_config *cfg = NULL;
	static const char *const models[] = {
		"fake-model", "fake-500", "fake-400", "fake-401",
		"fake-nousage",
	};

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
		   "  max_tokens_cap: 1000\n%s",
		   t.fake->port, t.fake->port, t.fake->port, t.fake->port,
		   settings);
	if (gw_config_parse(&cfg, yaml.ptr, yaml.len, "test.yaml",
			    NULL) != 0)
		fprintf(stderr, "%s\n", crs_error_last());
	buf_release(&yaml);
	return cfg;
}

static int group_setup(void **state)
{
	struct buf kb = BUF_INIT;
	size_t id;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	log_set_handler(quiet, NULL);
	if (fake_llm_start(&t.fake, PROVIDER_KEY) != 0)
		return -1;
	setenv("GWTEST_PROVIDER_API_KEY", PROVIDER_KEY, 1);
	/* room for test_concurrent_edge's 50 requests at once */
	t.cfg = test_config("  max_in_flight_per_crs: 64\n"
			    "  max_connections_per_address: 128\n");
	if (!t.cfg)
		return -1;
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
		if (!strcmp(crs_names[i], "dense"))
			budget = USD(0.05);
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
	t.fake->bill_bytes = 0;
	t.client_ip = NULL;
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
	CURLcode rc;

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
	if (t.client_ip)
		curl_easy_setopt(h, CURLOPT_INTERFACE, t.client_ip);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	if (!strcmp(method, "POST"))
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
	if ((rc = curl_easy_perform(h)) != CURLE_OK) {
		r->status = -1;
		if (getenv("GWTEST_DEBUG"))
			fprintf(stderr, "curl: %s\n", curl_easy_strerror(rc));
	}
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
	/* $0.0205 holds ten at $0.00201, and no eleventh; all at once,
	 * each reserves its bound (a body under 200 bytes, 200 prompt
	 * tokens with the overhead), and nine such bounds fit */
	assert_true(ok <= a.budget_pusd / cost);
	assert_true(ok >= a.budget_pusd / (cost + 200 * IN_PUSD));
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
		  "unsupported_parameter" },
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
	/* prompt bound: one token per byte of what was forwarded, plus the
	 * overhead of its one message and of the request */
	worst = (int64_t)(strlen(sent) + GW_POLICY_TOKENS_PER_MESSAGE +
			  GW_POLICY_TOKENS_PER_REQUEST) * IN_PUSD +
		50 * OUT_PUSD;
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
	/* a dated snapshot at its own price: $5/M in, $15/M out */
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("openai/gpt-4o-2024-05-13", ",\"max_tokens\":1000"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	assert_non_null(strstr(t.fake->last_body,
			       "\"model\":\"openai/gpt-4o-2024-05-13\""));
	assert_int_equal(account("ext").spent_pusd,
			 USD(0.00075) + USD(0.005) + USD(0.015));
	/* unknown snapshots, another provider's prefix: refused */
	for (size_t i = 0; i < 3; i++) {
		static const char *const refused[] = {
			"no-price-model", "gpt-4o-2099-01-01",
			"anthropic/gpt-4o-mini",
		};
		char body[256];

		snprintf(body, sizeof(body), CHAT("%s", ""), refused[i]);
		call_at(&r, base, "POST", "/v1/chat/completions", auth, body,
			NULL);
		assert_int_equal(r.status, 400);
		assert_string_equal(error_code(&r, code, sizeof(code)),
				    "model_not_priced");
		resp_release(&r);
	}
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

/* ---- what a CRS cannot make the provider bill --------------------------- */

/*
 * A chat request whose one message is `n` characters of text that
 * tokenizes densely (dense_text.h).
 */
static char *dense_chat(int kind, size_t n, unsigned *seed)
{
	struct buf text = BUF_INIT;
	json_t *j;
	char *body;

	dense_text(&text, kind, n, seed);
	j = json_pack("{s:s, s:[{s:s, s:s%}], s:i}", "model", "fake-model",
		      "messages", "role", "user", "content", text.ptr,
		      text.len, "max_tokens", 50);
	body = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	buf_release(&text);
	return body;
}

/*
 * The provider bills one prompt token per byte it receives (no real
 * tokenizer bills more): a CRS sending dense prompts, halving their size
 * at each refusal, never gets billed past its budget.
 */
static void test_dense_prompts_within_budget(void **state)
{
	struct gw_account a;
	unsigned seed = 11;
	size_t n = 8192;
	int served = 0, refused = 0;
	int64_t billed;
	char code[64];

	(void)state;
	t.fake->bill_bytes = 1;
	t.fake->completion_tokens = 50;
	for (int i = 0; n >= 16 && i < 400; i++) {
		struct resp r = { 0 };
		char *body = dense_chat(i % DENSE_KINDS, n, &seed);

		post(&r, "dense", "/v1/chat/completions", body);
		free(body);
		if (r.status == 200) {
			served++;
		} else if (r.status == 429 &&
			   !strcmp(error_code(&r, code, sizeof(code)),
				   "budget_exceeded")) {
			refused++;
			n /= 2;
		} else {
			fail_msg("HTTP %ld: %s", r.status, r.body.ptr);
		}
		resp_release(&r);
	}
	a = account("dense");
	billed = t.fake->billed_in * IN_PUSD + t.fake->billed_out * OUT_PUSD;
	print_message("dense prompts: %d served, %d refused, billed $%.6f of "
		      "$%.2f\n", served, refused, (double)billed / 1e12,
		      (double)a.budget_pusd / 1e12);
	assert_true(served > 0 && refused > 0);
	assert_true(billed <= a.budget_pusd);
	assert_int_equal(a.spent_pusd, billed);
	assert_int_equal(a.overruns, 0);
}

/* A request the fake must never see: 400 naming `param`. */
static void expect_refused(const char *path, const char *body,
			   const char *param, const char *extra)
{
	struct resp r = { 0 };
	char auth[160], code[64], msg[1024], want[80];

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("fields"));
	call(&r, "POST", path, auth, body, extra);
	snprintf(want, sizeof(want), "\"%s\"", param);
	if (!strcmp(path, "/v1/messages")) {	/* Anthropic's shape */
		json_t *j = json_loads(r.body.ptr, 0, NULL);

		snprintf(msg, sizeof(msg), "%s", json_string_value(
			json_object_get(json_object_get(j, "error"),
					"message")) ?: "");
		snprintf(code, sizeof(code), "unsupported_parameter");
		json_decref(j);
	} else {
		error_code(&r, code, sizeof(code));
		error_message(&r, msg, sizeof(msg));
	}
	if (r.status != 400 || strcmp(code, "unsupported_parameter") ||
	    !strstr(msg, want))
		fail_msg("%s %s: HTTP %ld %s", path, body, r.status,
			 r.body.ptr);
	resp_release(&r);
}

#define MSGS "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
#define CHATX(x) "{\"model\":\"fake-model\"," MSGS "," x "}"
#define PART(p) "{\"model\":\"fake-model\",\"messages\":[{\"role\":" \
	"\"user\",\"content\":[" p "]}]}"
#define RESP(x) "{\"model\":\"fake-model\",\"input\":\"hi\"," x "}"
#define RITEM(i) "{\"model\":\"fake-model\",\"input\":[" i "]}"
#define ANTH(x) "{\"model\":\"fake-claude\",\"max_tokens\":10," MSGS "," x "}"
#define ABLOCK(b) "{\"model\":\"fake-claude\",\"max_tokens\":10," \
	"\"messages\":[{\"role\":\"user\",\"content\":[" b "]}]}"

static void test_fields_refused(void **state)
{
	static const struct {
		const char *path, *body, *param;
	} cases[] = {
		/* chat completions */
		{ "/v1/chat/completions", CHATX("\"n\":2"), "n" },
		{ "/v1/chat/completions", CHATX("\"tools\":[{\"type\":"
		  "\"web_search_preview\"}]"), "tools" },
		{ "/v1/chat/completions", CHATX("\"audio\":{\"voice\":"
		  "\"alloy\"}"), "audio" },
		{ "/v1/chat/completions", CHATX("\"modalities\":[\"text\","
		  "\"audio\"]"), "modalities" },
		{ "/v1/chat/completions", CHATX("\"prediction\":{\"type\":"
		  "\"content\",\"content\":\"x\"}"), "prediction" },
		{ "/v1/chat/completions", CHATX("\"web_search_options\":{}"),
		  "web_search_options" },
		{ "/v1/chat/completions", CHATX("\"some_new_field\":1"),
		  "some_new_field" },
		{ "/v1/chat/completions", PART("{\"type\":\"image_url\","
		  "\"image_url\":{\"url\":\"https://x/a.png\"}}"),
		  "messages" },
		{ "/v1/chat/completions", PART("{\"type\":\"input_audio\","
		  "\"input_audio\":{\"data\":\"AAAA\",\"format\":\"wav\"}}"),
		  "messages" },
		{ "/v1/chat/completions", PART("{\"type\":\"file\",\"file\":"
		  "{\"file_id\":\"file-1\"}}"), "messages" },
		{ "/v1/chat/completions", "{\"model\":\"fake-model\","
		  "\"messages\":[{\"role\":\"assistant\",\"audio\":{\"id\":"
		  "\"audio_1\"}}]}", "messages" },
		/* completions and embeddings */
		{ "/v1/completions", "{\"model\":\"fake-model\",\"prompt\":"
		  "\"hi\",\"best_of\":3}", "best_of" },
		{ "/v1/completions", "{\"model\":\"fake-model\",\"prompt\":"
		  "\"hi\",\"n\":2}", "n" },
		{ "/v1/embeddings", "{\"model\":\"fake-embed\",\"input\":"
		  "\"hi\",\"file_id\":\"f\"}", "file_id" },
		/* responses */
		{ "/v1/responses", RESP("\"previous_response_id\":\"resp_1\""),
		  "previous_response_id" },
		{ "/v1/responses", RESP("\"conversation\":\"conv_1\""),
		  "conversation" },
		{ "/v1/responses", RESP("\"prompt\":{\"id\":\"pmpt_1\"}"),
		  "prompt" },
		{ "/v1/responses", RESP("\"background\":true"),
		  "background" },
		{ "/v1/responses", RESP("\"tools\":[{\"type\":"
		  "\"file_search\",\"vector_store_ids\":[\"vs_1\"]}]"),
		  "tools" },
		{ "/v1/responses", RESP("\"tools\":[{\"type\":\"mcp\","
		  "\"server_url\":\"https://x\"}]"), "tools" },
		{ "/v1/responses", RESP("\"tools\":[{\"type\":"
		  "\"code_interpreter\"}]"), "tools" },
		{ "/v1/responses", RESP("\"tools\":[{\"type\":"
		  "\"computer_use_preview\"}]"), "tools" },
		{ "/v1/responses", RITEM("{\"role\":\"user\",\"content\":[{"
		  "\"type\":\"input_image\",\"image_url\":\"https://x\"}]}"),
		  "input" },
		{ "/v1/responses", RITEM("{\"role\":\"user\",\"content\":[{"
		  "\"type\":\"input_file\",\"file_id\":\"file-1\"}]}"),
		  "input" },
		{ "/v1/responses", RITEM("{\"type\":\"item_reference\","
		  "\"id\":\"msg_1\"}"), "input" },
		{ "/v1/responses", RITEM("{\"type\":\"reasoning\",\"id\":"
		  "\"rs_1\",\"encrypted_content\":\"x\"}"), "input" },
		/* Anthropic messages */
		{ "/v1/messages", ABLOCK("{\"type\":\"image\",\"source\":{"
		  "\"type\":\"url\",\"url\":\"https://x/a.png\"}}"),
		  "messages" },
		{ "/v1/messages", ABLOCK("{\"type\":\"document\",\"source\":{"
		  "\"type\":\"file\",\"file_id\":\"file_1\"}}"), "messages" },
		{ "/v1/messages", ANTH("\"tools\":[{\"type\":"
		  "\"web_search_20250305\",\"name\":\"web_search\"}]"),
		  "tools" },
		{ "/v1/messages", ANTH("\"mcp_servers\":[{\"type\":\"url\","
		  "\"url\":\"https://x\"}]"), "mcp_servers" },
		{ "/v1/messages", ANTH("\"container\":\"c_1\""),
		  "container" },
		{ "/v1/messages", "{\"model\":\"fake-claude\",\"max_tokens\":"
		  "10,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
		  "\"tool_result\",\"tool_use_id\":\"t\",\"content\":[{"
		  "\"type\":\"image\",\"source\":{\"type\":\"base64\"}}]}]}]}",
		  "messages" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		expect_refused(cases[i].path, cases[i].body, cases[i].param,
			       NULL);
	assert_int_equal(fake_llm_requests(t.fake), 0);
	assert_int_equal(account("fields").requests, 0);
}

/* What changes only the price or storage goes, stripped. */
static void test_fields_stripped(void **state)
{
	struct resp r = { 0 };
	char auth[160], *sent;
	json_t *j;

	(void)state;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("fields"));
	/* two output limits: the larger, in the one field */
	call(&r, "POST", "/v1/chat/completions", auth, CHATX(
	     "\"service_tier\":\"priority\",\"max_tokens\":20,"
	     "\"max_completion_tokens\":30,\"tools\":[{\"type\":\"function\","
	     "\"function\":{\"name\":\"f\"}}]"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	sent = fake_llm_last_body(t.fake);
	j = json_loads(sent, 0, NULL);
	assert_null(json_object_get(j, "service_tier"));
	assert_null(json_object_get(j, "max_completion_tokens"));
	assert_int_equal(json_integer_value(json_object_get(j, "max_tokens")),
			 30);
	assert_non_null(json_object_get(j, "tools"));
	json_decref(j);
	free(sent);

	call(&r, "POST", "/v1/responses", auth, RESP("\"store\":true"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	sent = fake_llm_last_body(t.fake);
	j = json_loads(sent, 0, NULL);
	assert_true(json_is_false(json_object_get(j, "store")));
	json_decref(j);
	free(sent);

	call(&r, "POST", "/v1/messages", auth,
	     "{\"model\":\"fake-claude\",\"max_tokens\":10,\"cache_control\":"
	     "{\"type\":\"ephemeral\"},\"system\":[{\"type\":\"text\","
	     "\"text\":\"s\",\"cache_control\":{\"type\":\"ephemeral\","
	     "\"ttl\":\"1h\"}}],\"messages\":[{\"role\":\"user\",\"content\":"
	     "[{\"type\":\"text\",\"text\":\"hi\",\"cache_control\":{\"type\":"
	     "\"ephemeral\"}}]}],\"tools\":[{\"name\":\"f\",\"input_schema\":"
	     "{},\"cache_control\":{\"type\":\"ephemeral\"}}]}",
	     "anthropic-beta: context-1m-2025-08-07, "
	     "fine-grained-tool-streaming-2025-05-14,files-api-2025-04-14");
	assert_int_equal(r.status, 200);
	resp_release(&r);
	sent = fake_llm_last_body(t.fake);
	assert_null(strstr(sent, "cache_control"));
	free(sent);
	assert_string_equal(t.fake->last_anthropic_beta,
			    "fine-grained-tool-streaming-2025-05-14");
	assert_int_equal(fake_llm_requests(t.fake), 3);
}

/* A server on the shared ledger and keys with its own settings. */
static struct gw_server *limited_server(struct gw_config **cfg,
					const char *settings, char *base,
					size_t basesz)
{
	struct gw_server *srv = NULL;

	*cfg = test_config(settings);
	assert_non_null(*cfg);
	assert_int_equal(gw_server_start(&srv, "127.0.0.1:0", *cfg,
					 t.ledger, t.keys), 0);
	snprintf(base, basesz, "http://127.0.0.1:%u", gw_server_port(srv));
	return srv;
}

struct cap_job {
	pthread_t th;
	const char *base, *crs;
	struct resp r;
};

static void *cap_run(void *arg)
{
	struct cap_job *j = arg;
	char auth[160];

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of(j->crs));
	call_at(&j->r, j->base, "POST", "/v1/chat/completions", auth,
		CHAT("fake-model", ",\"max_tokens\":10"), NULL);
	return NULL;
}

/* A key holds at most max_in_flight requests; the others are served. */
static void test_in_flight_cap(void **state)
{
	struct gw_config *cfg = NULL;
	struct gw_server *srv;
	struct cap_job jobs[2], more = { 0 }, other = { 0 };
	char base[64], code[64];

	(void)state;
	srv = limited_server(&cfg, "  max_in_flight_per_crs: 2\n", base,
			     sizeof(base));
	t.fake->delay_ms = 1500;
	for (int i = 0; i < 2; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].base = base;
		jobs[i].crs = "capped";
		assert_int_equal(pthread_create(&jobs[i].th, NULL, cap_run,
						&jobs[i]), 0);
	}
	while (fake_llm_requests(t.fake) < 2)
		usleep(10000);
	/* the third of the same key, while two are in flight */
	more.base = base;
	more.crs = "capped";
	cap_run(&more);
	assert_int_equal(more.r.status, 429);
	assert_string_equal(error_code(&more.r, code, sizeof(code)),
			    "too_many_requests");
	resp_release(&more.r);
	/* another CRS meanwhile */
	other.base = base;
	other.crs = "uncapped";
	cap_run(&other);
	assert_int_equal(other.r.status, 200);
	resp_release(&other.r);
	for (int i = 0; i < 2; i++) {
		pthread_join(jobs[i].th, NULL);
		assert_int_equal(jobs[i].r.status, 200);
		resp_release(&jobs[i].r);
	}
	/* places free again */
	t.fake->delay_ms = 0;
	cap_run(&more);
	assert_int_equal(more.r.status, 200);
	resp_release(&more.r);
	assert_int_equal(fake_llm_requests(t.fake), 4);
	assert_int_equal(account("capped").refusals, 0);
	gw_server_free(srv);
	gw_config_free(cfg);
}

/* A socket with half a request's headers, or -1. */
static int idle_socket(unsigned port)
{
	static const char part[] = "POST /v1/chat/completions HTTP/1.1\r\n"
				   "Host: gateway\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, part, sizeof(part) - 1, MSG_NOSIGNAL) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* 1 once the peer closed fd (EOF or reset) by the deadline `until`
 * (now() seconds), whatever it sent before. */
static int closed_by(int fd, double until)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	int ms;

	for (;;) {
		ms = (int)((until - now()) * 1000);
		if (poll(&p, 1, ms > 0 ? ms : 0) <= 0)
			return 0;
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			return 1;
	}
}

#define IDLE_SOCKETS 40

/*
 * One address opens more connections than the whole gateway takes and
 * never finishes their headers: it gets its per-address share only,
 * another address is still served, and the idle ones are closed by the
 * idle timeout. A slow provider or a pause mid-stream longer than that
 * timeout does not cut a request.
 */
static void test_idle_and_address_limits(void **state)
{
	struct gw_config *cfg = NULL;
	struct gw_server *srv;
	struct resp r = { 0 };
	char base[64], auth[160];
	int fds[IDLE_SOCKETS], closed = 0;
	unsigned port;
	double t0;

	(void)state;
	srv = limited_server(&cfg, "  idle_timeout: 1\n"
			     "  max_connections: 10\n"
			     "  max_connections_per_address: 4\n", base,
			     sizeof(base));
	port = (unsigned)atoi(strrchr(base, ':') + 1);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 key_of("idle"));
	for (int i = 0; i < IDLE_SOCKETS; i++)
		assert_true((fds[i] = idle_socket(port)) >= 0);
	/* another address: served while those are open */
	t.client_ip = "127.0.0.2";
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("fake-model", ",\"max_tokens\":10"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	/* every idle one is closed by the timeout (1 s) plus a grace */
	t0 = now();
	for (int i = 0; i < IDLE_SOCKETS; i++) {
		closed += closed_by(fds[i], t0 + 4);
		close(fds[i]);
	}
	assert_int_equal(closed, IDLE_SOCKETS);
	/*
	 * Kept alive after an answer, a silent connection is closed too.
	 * The server frees a timed-out connection's per-address slot just
	 * after it closes the socket, so a new connection may still be over
	 * the address's share for a moment: then it is refused unanswered,
	 * and the request is sent again on a new one.
	 */
	for (int tries = 0; fake_llm_requests(t.fake) < 2 && tries < 20;
	     tries++) {
		if (tries)
			usleep(100 * 1000);
		assert_true((fds[0] = idle_socket(port)) >= 0);
		dprintf(fds[0], "%s\r\nContent-Type: application/json\r\n"
			"Content-Length: %zu\r\n\r\n%s", auth,
			strlen(CHAT("fake-model", "")),
			CHAT("fake-model", ""));
		assert_true(closed_by(fds[0], now() + 4));
		close(fds[0]);
	}
	assert_int_equal(fake_llm_requests(t.fake), 2);
	/* the provider takes longer than the idle timeout */
	t.client_ip = NULL;
	t.fake->delay_ms = 2500;
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("fake-model", ",\"max_tokens\":10"), NULL);
	assert_int_equal(r.status, 200);
	resp_release(&r);
	/* and a stream pauses (the fake's gate, 5 s) past it */
	t.fake->delay_ms = 0;
	t.fake->stream_gate = 1;
	call_at(&r, base, "POST", "/v1/chat/completions", auth,
		CHAT("fake-model", ",\"max_tokens\":10,\"stream\":true"),
		NULL);
	assert_int_equal(r.status, 200);
	assert_true(t.fake->gate_timed_out);
	assert_non_null(strstr(r.body.ptr, " from the fake"));
	assert_non_null(strstr(r.body.ptr, "[DONE]"));
	resp_release(&r);
	assert_int_equal(account("idle").unmetered, 0);
	gw_server_free(srv);
	gw_config_free(cfg);
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
		cmocka_unit_test_setup(test_dense_prompts_within_budget, reset),
		cmocka_unit_test_setup(test_fields_refused, reset),
		cmocka_unit_test_setup(test_fields_stripped, reset),
		cmocka_unit_test_setup(test_in_flight_cap, reset),
		cmocka_unit_test_setup(test_idle_and_address_limits, reset),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
