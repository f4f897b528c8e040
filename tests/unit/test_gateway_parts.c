/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gateway_parts.c - the gateway's parts without HTTP
 *
 * Money parsing and formatting, the shipped price table, the ledger
 * (including many threads reserving at the edge of a budget), key files,
 * the LiteLLM-subset config, and usage metering of bodies and SSE
 * streams, each fed literals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_keys.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_policy.h"
#include "runner/gateway/gw_price.h"
#include "runner/gateway/gw_report.h"
#include "runner/gateway/gw_usage.h"

#include "tests/unit/dense_text.h"

#define USD(x) ((int64_t)((x) * 1e12 + 0.5))

static struct buf warnings = BUF_INIT;

static void capture(enum log_level level, const char *file, const char *func,
		    int line, const char *msg, void *ctx)
{
	(void)file; (void)func; (void)line; (void)ctx;
	if (level <= LOG_WARN) {
		buf_adds(&warnings, msg);
		buf_addch(&warnings, '\n');
	}
}

/* ---- money and prices --------------------------------------------------- */

static void test_money_parse(void **state)
{
	int64_t v = -1;

	(void)state;
	assert_int_equal(gw_money_parse(&v, "1.50"), 0);
	assert_int_equal(v, INT64_C(1500000000000));
	assert_int_equal(gw_money_parse(&v, "0.05"), 0);
	assert_int_equal(v, INT64_C(50000000000));
	assert_int_equal(gw_money_parse(&v, "2.5e-06"), 0);
	assert_int_equal(v, 2500000);
	assert_int_equal(gw_money_parse(&v, "3.75E-8"), 0);
	assert_int_equal(v, 37500);
	assert_int_equal(gw_money_parse(&v, "7"), 0);
	assert_int_equal(v, INT64_C(7000000000000));
	assert_int_equal(gw_money_parse(&v, ".5"), 0);
	assert_int_equal(v, INT64_C(500000000000));
	/* below a picodollar: half up */
	assert_int_equal(gw_money_parse(&v, "0.0000000000005"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(gw_money_parse(&v, "0.0000000000004"), 0);
	assert_int_equal(v, 0);
	assert_int_equal(gw_money_parse(&v, "5e-14"), 0);
	assert_int_equal(v, 0);
	v = 42;
	assert_int_equal(gw_money_parse(&v, "-1"), CRS_EINPUT);
	assert_string_equal(crs_error_last(),
			    "\"-1\" is not an amount of dollars");
	assert_int_equal(gw_money_parse(&v, "1.5$"), CRS_EINPUT);
	assert_int_equal(gw_money_parse(&v, ""), CRS_EINPUT);
	assert_int_equal(gw_money_parse(&v, "1e"), CRS_EINPUT);
	assert_int_equal(gw_money_parse(&v, "1e300"), CRS_EINPUT);
	assert_int_equal(v, 42);
}

static void test_money_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(gw_money_format(b, sizeof(b), USD(1.5)), "$1.50");
	assert_string_equal(gw_money_format(b, sizeof(b), USD(0.0075)),
			    "$0.0075");
	assert_string_equal(gw_money_format(b, sizeof(b), 25000),
			    "$0.000000025");
	assert_string_equal(gw_money_format(b, sizeof(b), 0), "$0.00");
	assert_string_equal(gw_money_format(b, sizeof(b), -USD(2)), "-$2.00");
}

static void test_price_table(void **state)
{
	struct gw_price p;

	(void)state;
	assert_int_equal(gw_price_lookup(&p, "gpt-4o"), 0);
	assert_int_equal(p.in_pusd, 2500000);
	assert_int_equal(p.out_pusd, 10000000);
	assert_int_equal(gw_price_lookup(&p, "gpt-4o-2024-08-06"), 0);
	assert_int_equal(p.in_pusd, 2500000);
	/* a snapshot costs what it costs, not its alias's price */
	assert_int_equal(gw_price_lookup(&p, "gpt-4o-2024-05-13"), 0);
	assert_int_equal(p.in_pusd, USD(5) / 1000000);
	assert_int_equal(p.out_pusd, USD(15) / 1000000);
	assert_int_equal(gw_price_lookup(&p, "chatgpt-4o-latest"), 0);
	assert_int_equal(p.out_pusd, USD(15) / 1000000);
	assert_int_equal(gw_price_lookup(&p, "claude-opus-4-1-20250805"), 0);
	assert_int_equal(p.out_pusd, USD(75) / 1000000);
	assert_int_equal(gw_price_lookup(&p, "gpt-4o-mini"), 0);
	assert_int_equal(p.in_pusd, 150000);
	assert_int_equal(gw_price_lookup(&p, "claude-sonnet-4-20250514"), 0);
	assert_int_equal(p.out_pusd, 15000000);
	assert_int_equal(gw_price_lookup(&p, "claude-3-5-sonnet-latest"), 0);
	assert_int_equal(gw_price_lookup(&p, "no-such-model"), CRS_ENOTFOUND);
	/* an unknown snapshot or alias of a known model: not priced */
	assert_int_equal(gw_price_lookup(&p, "gpt-4o-2099-01-01"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "gpt-4o-latest"), CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "claude-opus-4-1-20991231"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "grok-4-1231"), CRS_ENOTFOUND);
	/* a provider prefix must be the model's own */
	assert_int_equal(gw_price_lookup(&p, "openai/gpt-4o-2024-05-13"), 0);
	assert_int_equal(p.in_pusd, USD(5) / 1000000);
	assert_int_equal(gw_price_lookup(&p, "anthropic/claude-3-haiku"), 0);
	assert_int_equal(p.in_pusd, USD(0.25) / 1000000);
	assert_int_equal(gw_price_lookup(&p, "anthropic/gpt-4o-mini"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "openrouter/openai/gpt-4o-mini"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "/gpt-4o-mini"), CRS_ENOTFOUND);
	assert_int_equal(gw_price_lookup(&p, "openai/"), CRS_ENOTFOUND);
	/* 1000 in + 500 out of gpt-4o: $0.0025 + $0.005 */
	assert_int_equal(gw_price_lookup(&p, "gpt-4o"), 0);
	assert_int_equal(gw_price_cost(&p, 1000, 500), USD(0.0075));
	assert_int_equal(gw_price_cost(&p, INT64_MAX, 1), INT64_MAX);
	assert_int_equal(gw_price_cost(&p, -5, 0), 0);
}

/* ---- ledger ------------------------------------------------------------- */

static void test_ledger_reserve_settle(void **state)
{
	struct gw_ledger *l = gw_ledger_new();
	struct gw_charge ch = { .cost_pusd = USD(0.30), .tokens_in = 10,
				.tokens_out = 20 };
	struct gw_account a;
	size_t id = 99, other;

	(void)state;
	assert_int_equal(gw_ledger_add(l, &id, "crsA", USD(1.00)), 0);
	assert_int_equal(id, 0);
	assert_int_equal(gw_ledger_add(l, &other, "crsB", USD(0.05)), 0);
	assert_int_equal(other, 1);
	assert_int_equal(gw_ledger_add(l, &other, "crsA", USD(1)),
			 CRS_ECONFLICT);
	assert_int_equal(gw_ledger_find(l, &other, "crsB"), 0);
	assert_int_equal(other, 1);
	assert_int_equal(gw_ledger_find(l, &other, "nope"), CRS_ENOTFOUND);

	assert_int_equal(gw_ledger_reserve(l, id, USD(0.60)), 0);
	assert_int_equal(gw_ledger_reserve(l, id, USD(0.50)), CRS_ECONFLICT);
	assert_string_equal(crs_error_last(),
			    "budget of CRS 'crsA' exceeded: budget $1.00, "
			    "spent $0.00, reserved by requests in flight "
			    "$0.60, this request may cost up to $0.50");
	assert_int_equal(gw_ledger_reserve(l, id, USD(0.40)), 0);
	gw_ledger_account(l, id, &a);
	assert_int_equal(a.reserved_pusd, USD(1.00));
	assert_int_equal(a.in_flight, 2);
	assert_int_equal(gw_ledger_settle(l, id, USD(0.60), &ch), 0);
	gw_ledger_account(l, id, &a);
	assert_int_equal(a.spent_pusd, USD(0.30));
	assert_int_equal(a.reserved_pusd, USD(0.40));
	/* freed room lets the next one in */
	assert_int_equal(gw_ledger_reserve(l, id, USD(0.30)), 0);
	assert_int_equal(gw_ledger_reserve(l, id, 1), CRS_ECONFLICT);
	ch.cost_pusd = USD(0.50);	/* above its reservation: an overrun */
	assert_int_equal(gw_ledger_settle(l, id, USD(0.40), &ch), 1);
	ch.cost_pusd = 0;
	ch.error = 1;
	assert_int_equal(gw_ledger_settle(l, id, USD(0.30), &ch), 0);
	gw_ledger_account(l, id, &a);
	assert_string_equal(a.name, "crsA");
	assert_int_equal(a.spent_pusd, USD(0.80));
	assert_int_equal(a.reserved_pusd, 0);
	assert_int_equal(a.requests, 3);
	assert_int_equal(a.refusals, 2);
	assert_int_equal(a.errors, 1);
	assert_int_equal(a.overruns, 1);
	assert_int_equal(a.tokens_in, 30);
	assert_int_equal(a.tokens_out, 60);
	assert_int_equal(a.in_flight, 0);
	gw_ledger_free(l);
}

static void test_ledger_unlimited(void **state)
{
	struct gw_ledger *l = gw_ledger_new();
	size_t id;

	(void)state;
	assert_int_equal(gw_ledger_add(l, &id, "free", GW_BUDGET_UNLIMITED), 0);
	assert_int_equal(gw_ledger_reserve(l, id, INT64_MAX / 2), 0);
	assert_int_equal(gw_ledger_reserve(l, id, INT64_MAX / 2), 0);
	assert_int_equal(gw_ledger_add(l, &id, "neg", -1), CRS_EINPUT);
	gw_ledger_free(l);
}

struct hammer {
	struct gw_ledger *l;
	size_t id;
	int64_t amount, cost;
	int ok, refused;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct gw_charge ch = { .cost_pusd = h->cost };

	for (int i = 0; i < 20000; i++) {
		if (gw_ledger_reserve(h->l, h->id, h->amount) != 0) {
			h->refused++;
			continue;
		}
		h->ok++;
		gw_ledger_settle(h->l, h->id, h->amount, &ch);
	}
	return NULL;
}

/* Eight threads race at the edge: spend never passes the budget. */
static void test_ledger_threads(void **state)
{
	struct gw_ledger *l = gw_ledger_new();
	struct hammer h[8];
	pthread_t t[8];
	struct gw_account a;
	size_t id;
	int ok = 0;

	(void)state;
	assert_int_equal(gw_ledger_add(l, &id, "edge", USD(0.05)), 0);
	for (int i = 0; i < 8; i++) {
		h[i] = (struct hammer){ l, id, USD(0.001), USD(0.0004), 0, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, hammer_run, &h[i]),
				 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		ok += h[i].ok;
	}
	gw_ledger_account(l, id, &a);
	assert_true(a.spent_pusd <= USD(0.05));
	assert_int_equal(a.spent_pusd, (int64_t)ok * USD(0.0004));
	/* $0.05 - $0.0004 * n < $0.001 once the budget is used up */
	assert_true(USD(0.05) - a.spent_pusd < USD(0.001));
	assert_int_equal(a.requests, (uint64_t)ok);
	assert_int_equal(a.refusals, 8 * 20000 - (uint64_t)ok);
	assert_int_equal(a.reserved_pusd, 0);
	gw_ledger_free(l);
}

/* ---- keys --------------------------------------------------------------- */

static char tmpdir[64];

static int mk_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gwtest.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int rm_tmp(void **state)
{
	(void)state;
	return fs_remove_tree(tmpdir);
}

static void test_keys(void **state)
{
	struct gw_keys *k = gw_keys_new();
	char dir[128], key[GW_KEY_LEN + 1], again[GW_KEY_LEN + 1];
	char *path;
	struct buf b = BUF_INIT;
	struct stat st;
	size_t id = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/keys", tmpdir);
	assert_int_equal(gw_keys_issue(k, dir, "crsA", 0), 0);
	assert_int_equal(gw_keys_issue(k, dir, "crsB", 1), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	path = gw_keys_path(dir, "crsA");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fs_read_file(&b, path, 4096), 0);
	assert_int_equal(b.len, GW_KEY_LEN);
	assert_memory_equal(b.ptr, "sk-crsci-", 9);
	memcpy(key, b.ptr, GW_KEY_LEN + 1);
	assert_int_equal(gw_keys_find(k, key, strlen(key), &id), 0);
	assert_int_equal(id, 0);
	/* one wrong hex digit, a prefix, the empty string */
	key[20] = key[20] == 'a' ? 'b' : 'a';
	assert_int_equal(gw_keys_find(k, key, strlen(key), &id),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_keys_find(k, b.ptr, 20, &id), CRS_ENOTFOUND);
	assert_int_equal(gw_keys_find(k, "", 0, &id), CRS_ENOTFOUND);
	buf_release(&b);
	free(path);
	/* issued again: the stored key is kept, not replaced */
	path = gw_keys_path(dir, "crsB");
	assert_int_equal(fs_read_file(&b, path, 4096), 0);
	memcpy(again, b.ptr, GW_KEY_LEN + 1);
	gw_keys_free(k);
	k = gw_keys_new();
	assert_int_equal(gw_keys_issue(k, dir, "crsB", 7), 0);
	assert_int_equal(gw_keys_find(k, again, GW_KEY_LEN, &id), 0);
	assert_int_equal(id, 7);
	buf_release(&b);
	free(path);
	/* a damaged key file and a bad CRS name are refused */
	path = gw_keys_path(dir, "crsC");
	assert_int_equal(fs_write_file_atomic(path, "sk-short", 8), 0);
	assert_int_equal(gw_keys_issue(k, dir, "crsC", 2), CRS_ECONFIG);
	assert_non_null(strstr(crs_error_last(), "does not hold one crs-ci"));
	assert_int_equal(gw_keys_issue(k, dir, "../x", 3), CRS_EINPUT);
	free(path);
	/* two fresh keys differ */
	assert_int_equal(gw_keys_generate(key), 0);
	assert_int_equal(gw_keys_generate(again), 0);
	assert_int_equal(strlen(key), GW_KEY_LEN);
	assert_string_not_equal(key, again);
	gw_keys_free(k);
}

/* ---- config ------------------------------------------------------------- */

static struct gw_config *config_ok(const char *yaml)
{
	struct gw_config *c = NULL;
	int r = gw_config_parse(&c, yaml, strlen(yaml), "llm.yaml", NULL);

	if (r != 0)
		fail_msg("config: %s", crs_error_last());
	return c;
}

static void config_bad(const char *yaml, const char *msg)
{
	struct gw_config *c = NULL;

	assert_int_equal(gw_config_parse(&c, yaml, strlen(yaml), "llm.yaml",
					 NULL),
			 CRS_ECONFIG);
	assert_null(c);
	assert_string_equal(crs_error_last(), msg);
}

static void test_config(void **state)
{
	struct gw_config *c;
	const struct gw_model *m;

	(void)state;
	setenv("GWTEST_OPENAI_API_KEY", "sk-provider-secret", 1);
	setenv("GWTEST_API_BASE", "http://10.0.0.1:8000/v1/", 1);
	unsetenv("GWTEST_UNSET_API_KEY");
	log_set_handler(capture, NULL);
	buf_reset(&warnings);
	c = config_ok(
		"model_list:\n"
		"  - model_name: gpt-4o\n"
		"    litellm_params:\n"
		"      model: openai/gpt-4o\n"
		"      api_key: os.environ/GWTEST_OPENAI_API_KEY\n"
		"  - model_name: local\n"
		"    litellm_params:\n"
		"      model: openai/Qwen/Qwen3-0.6B\n"
		"      api_base: os.environ/GWTEST_API_BASE\n"
		"      input_cost_per_token: 1e-07\n"
		"      output_cost_per_token: 0.0000002\n"
		"      timeout: 30\n"
		"      rpm: 10\n"
		"  - model_name: claude\n"
		"    litellm_params:\n"
		"      model: anthropic/claude-sonnet-4-20250514\n"
		"      api_key: null\n"
		"  - model_name: mystery\n"
		"    litellm_params:\n"
		"      model: hosted_vllm/mystery\n"
		"      api_base: http://h:1\n"
		"litellm_settings:\n"
		"  request_timeout: 120\n"
		"  json_logs: true\n"
		"crs_ci_settings:\n"
		"  max_tokens_cap: 1024\n"
		"  connect_timeout: 3\n"
		"  prompt_bytes_per_token: 3\n"
		"  max_in_flight_per_crs: 2\n"
		"  max_connections_per_address: 8\n"
		"  idle_timeout: 5\n");
	log_set_handler(NULL, NULL);
	assert_int_equal(c->models_nr, 4);
	m = gw_config_model(c, "gpt-4o");
	assert_non_null(m);
	assert_string_equal(m->provider, "openai");
	assert_string_equal(m->upstream_model, "gpt-4o");
	assert_string_equal(m->api_base, "https://api.openai.com/v1");
	assert_string_equal(m->api_key, "sk-provider-secret");
	assert_string_equal(m->api_key_env, "GWTEST_OPENAI_API_KEY");
	assert_int_equal(m->price.in_pusd, 2500000);
	m = gw_config_model(c, "local");
	assert_string_equal(m->upstream_model, "Qwen/Qwen3-0.6B");
	assert_string_equal(m->api_base, "http://10.0.0.1:8000/v1");
	assert_null(m->api_key);
	assert_int_equal(m->price.in_pusd, 100000);
	assert_int_equal(m->price.out_pusd, 200000);
	assert_int_equal(m->timeout_s, 30);
	m = gw_config_model(c, "claude");
	assert_int_equal(m->style, GW_STYLE_ANTHROPIC);
	assert_string_equal(m->api_base, "https://api.anthropic.com");
	assert_int_equal(m->price.in_pusd, 3000000);
	m = gw_config_model(c, "mystery");
	assert_false(m->has_in_price);
	assert_null(gw_config_model(c, "nope"));
	assert_int_equal(c->settings.request_timeout_s, 120);
	assert_int_equal(c->settings.max_tokens_cap, 1024);
	assert_int_equal(c->settings.connect_timeout_s, 3);
	assert_int_equal(c->settings.max_in_flight, 2);
	assert_int_equal(c->settings.max_connections_per_address, 8);
	assert_int_equal(c->settings.max_connections, 1000);
	assert_int_equal(c->settings.idle_timeout_s, 5);
	assert_non_null(strstr(warnings.ptr, "crs_ci_settings."
				"prompt_bytes_per_token: ignored: a prompt is "
				"bounded at one token per byte"));
	assert_non_null(strstr(warnings.ptr, "llm.yaml:13:7: model_list[1]."
				"litellm_params.rpm: not supported"));
	assert_non_null(strstr(warnings.ptr, "no price known for \"mystery\""));
	assert_null(strstr(warnings.ptr, "sk-provider-secret"));
	gw_config_free(c);
	buf_release(&warnings);
}

static void test_config_errors(void **state)
{
	(void)state;
	setenv("GWTEST_OPENAI_API_KEY", "sk-provider-secret", 1);
	unsetenv("GWTEST_UNSET_API_KEY");
	config_bad("model_list:\n"
		   "  - model_name: a\n"
		   "    litellm_params:\n"
		   "      model: openai/gpt-4o\n"
		   "      api_key: sk-literal-secret\n",
		   "llm.yaml:5:7: model_list[0].litellm_params.api_key: write "
		   "os.environ/NAME: provider keys are read from the "
		   "environment only");
	config_bad("model_list:\n"
		   "  - model_name: a\n"
		   "    litellm_params:\n"
		   "      model: openai/gpt-4o\n"
		   "      api_key: os.environ/GWTEST_UNSET_API_KEY\n",
		   "llm.yaml:5:7: model_list[0].litellm_params.api_key: "
		   "environment variable GWTEST_UNSET_API_KEY is not set");
	config_bad("model_list:\n"
		   "  - model_name: a\n"
		   "    litellm_params:\n"
		   "      model: hosted_vllm/x\n",
		   "llm.yaml:4:7: model_list[0].litellm_params.model: provider "
		   "\"hosted_vllm\" needs an api_base");
	config_bad("model_list:\n"
		   "  - model_name: a\n"
		   "    litellm_params:\n"
		   "      model: azure/gpt-4o\n"
		   "      api_base: https://x\n",
		   "llm.yaml:4:7: model_list[0].litellm_params.model: provider "
		   "\"azure\" is not supported by the crs-ci gateway (use "
		   "openai/ with an OpenAI-compatible api_base)");
	config_bad("model_list:\n"
		   "  - litellm_params:\n"
		   "      model: openai/gpt-4o\n",
		   "llm.yaml:2:5: model_list[0]: model_name is required");
	config_bad("model_list:\n"
		   "  - model_name: a\n"
		   "    litellm_params:\n"
		   "      model: openai/gpt-4o\n"
		   "      input_cost_per_token: cheap\n",
		   "llm.yaml:5:7: model_list[0].litellm_params."
		   "input_cost_per_token: \"cheap\" is not a price in dollars "
		   "per token");
	config_bad("model_list: 3\n",
		   "llm.yaml:1:1: model_list: must be a list, not a scalar");
	config_bad("crs_ci_settings:\n  max_in_flight_per_crs: 0\n",
		   "llm.yaml:2:3: crs_ci_settings.max_in_flight_per_crs: 0 is "
		   "not between 1 and 256");
}

/* A routed model is priced by what it sends upstream, exactly. */
static void test_config_prices_by_upstream(void **state)
{
	struct gw_config *c;
	const struct gw_model *m;

	(void)state;
	log_set_handler(capture, NULL);
	buf_reset(&warnings);
	c = config_ok(
		"model_list:\n"
		"  - model_name: snap\n"
		"    litellm_params:\n"
		"      model: openai/gpt-4o-2024-05-13\n"
		"  - model_name: gpt-4o-mini\n"
		"    litellm_params:\n"
		"      model: openai/gpt-4o-2099-01-01\n"
		"  - model_name: gpt-4o\n"
		"    litellm_params:\n"
		"      model: openrouter/openai/gpt-4o\n"
		"  - model_name: bare\n"
		"    litellm_params:\n"
		"      model: gpt-4o-mini-2024-07-18\n"
		"  - model_name: claude\n"
		"    litellm_params:\n"
		"      model: anthropic/claude-sonnet-4-20250514\n");
	log_set_handler(NULL, NULL);
	m = gw_config_model(c, "snap");
	assert_true(m->has_in_price && m->has_out_price);
	assert_int_equal(m->price.in_pusd, 5000000);
	assert_int_equal(m->price.out_pusd, 15000000);
	/* an unknown snapshot is not its alias's (or its name's) price */
	assert_false(gw_config_model(c, "gpt-4o-mini")->has_in_price);
	assert_false(gw_config_model(c, "gpt-4o")->has_in_price);
	assert_non_null(strstr(warnings.ptr, "no price known for "
				"\"gpt-4o-mini\""));
	assert_int_equal(gw_config_model(c, "bare")->price.in_pusd, 150000);
	assert_int_equal(gw_config_model(c, "claude")->price.out_pusd,
			 15000000);
	gw_config_free(c);
	buf_release(&warnings);
}

static void test_config_external(void **state)
{
	struct gw_config *c = config_ok(
		"model_list:\n"
		"  - model_name: corp-model\n"
		"    litellm_params:\n"
		"      model: openai/corp-model\n"
		"      api_base: http://corp\n"
		"      input_cost_per_token: 0.000001\n"
		"      output_cost_per_token: 0.000002\n");
	struct gw_price p;

	(void)state;
	setenv("GWTEST_EXT", "sk-ext", 1);
	unsetenv("GWTEST_UNSET_API_KEY");
	assert_int_equal(gw_config_set_external(c, "https://llm.corp/",
						"GWTEST_UNSET_API_KEY"), CRS_ECONFIG);
	assert_int_equal(gw_config_set_external(c, "ftp://x", NULL),
			 CRS_ECONFIG);
	assert_int_equal(gw_config_set_external(c, "https://llm.corp/",
						"GWTEST_EXT"), 0);
	assert_true(c->external);
	assert_string_equal(c->external_url, "https://llm.corp");
	assert_string_equal(c->external_key, "sk-ext");
	assert_int_equal(gw_config_external_price(&p, c, "corp-model"), 0);
	assert_int_equal(p.out_pusd, 2000000);
	assert_int_equal(gw_config_external_price(&p, c, "openai/gpt-4o-mini"),
			 0);
	assert_int_equal(p.in_pusd, 150000);
	assert_int_equal(gw_config_external_price(&p, c, "unknown"),
			 CRS_ENOTFOUND);
	/* the whole string the CRS chose is priced */
	assert_int_equal(gw_config_external_price(&p, c, "gpt-4o-2024-05-13"),
			 0);
	assert_int_equal(p.out_pusd, 15000000);
	assert_int_equal(gw_config_external_price(&p, c,
						  "openai/gpt-4o-2024-05-13"),
			 0);
	assert_int_equal(p.in_pusd, 5000000);
	assert_int_equal(gw_config_external_price(&p, c,
						  "cheap/gpt-4o-mini"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_config_external_price(&p, c,
						  "x/openai/gpt-4o-mini"),
			 CRS_ENOTFOUND);
	assert_int_equal(gw_config_external_price(&p, c, "gpt-4o-2099-01-01"),
			 CRS_ENOTFOUND);
	gw_config_free(c);
}

/* ---- usage -------------------------------------------------------------- */

static void test_usage_body(void **state)
{
	struct gw_usage u = { 0 };
	const char *oa = "{\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
			 "\"completion_tokens\":34,\"total_tokens\":46}}";
	const char *an = "{\"type\":\"message\",\"usage\":{\"input_tokens\":5,"
			 "\"cache_read_input_tokens\":100,"
			 "\"cache_creation_input_tokens\":7,"
			 "\"output_tokens\":9}}";
	const char *neg;

	(void)state;
	assert_int_equal(gw_usage_from_body(&u, oa, strlen(oa)), 1);
	assert_int_equal(u.tokens_in, 12);
	assert_int_equal(u.tokens_out, 34);
	memset(&u, 0, sizeof(u));
	assert_int_equal(gw_usage_from_body(&u, an, strlen(an)), 1);
	assert_int_equal(u.tokens_in, 112);
	assert_int_equal(u.tokens_out, 9);
	memset(&u, 0, sizeof(u));
	assert_int_equal(gw_usage_from_body(&u, "{\"usage\":null}", 14), 0);
	assert_int_equal(gw_usage_from_body(&u, "not json", 8), 0);
	neg = "{\"usage\":{\"prompt_tokens\":-4}}";
	assert_int_equal(gw_usage_from_body(&u, neg, strlen(neg)), 1);
	assert_int_equal(u.tokens_in, 0);
	assert_true(u.seen);
}

static void test_sse(void **state)
{
	const char *stream =
		"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],"
		"\"usage\":null}\n\n"
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,"
		"\"completion_tokens\":4}}\r\n\r\n"
		"data: [DONE]\n\n";
	struct gw_sse s;
	struct buf out = BUF_INIT;

	(void)state;
	/* fed one byte at a time: events are re-framed whole */
	gw_sse_init(&s, 1);
	for (size_t i = 0; stream[i]; i++)
		gw_sse_feed(&s, stream + i, 1, &out);
	gw_sse_finish(&s, &out);
	assert_string_equal(out.ptr,
			    "data: {\"choices\":[{\"delta\":{\"content\":"
			    "\"hi\"}}],\"usage\":null}\n\ndata: [DONE]\n\n");
	assert_int_equal(s.usage.tokens_in, 3);
	assert_int_equal(s.usage.tokens_out, 4);
	assert_true(s.done);
	gw_sse_release(&s);
	/* the CRS asked for usage itself: nothing is dropped */
	buf_reset(&out);
	gw_sse_init(&s, 0);
	gw_sse_feed(&s, stream, strlen(stream), &out);
	gw_sse_finish(&s, &out);
	assert_string_equal(out.ptr, stream);
	gw_sse_release(&s);
	/* Anthropic: cumulative usage, the last one wins */
	buf_reset(&out);
	gw_sse_init(&s, 0);
	gw_sse_feed(&s, "event: message_start\ndata: {\"type\":\"message_start"
		    "\",\"message\":{\"usage\":{\"input_tokens\":20,"
		    "\"output_tokens\":1}}}\n\nevent: message_delta\ndata: "
		    "{\"type\":\"message_delta\",\"usage\":{\"output_tokens\""
		    ":50}}\n\nevent: message_stop\ndata: {\"type\":"
		    "\"message_stop\"}\n\n", 244, &out);
	assert_int_equal(s.usage.tokens_in, 20);
	assert_int_equal(s.usage.tokens_out, 50);
	assert_true(s.done);
	gw_sse_release(&s);
	buf_release(&out);
}

/* ---- report ------------------------------------------------------------- */

static void test_report(void **state)
{
	struct gw_ledger *l = gw_ledger_new();
	struct gw_charge ch = { .cost_pusd = USD(0.0075), .tokens_in = 1000,
				.tokens_out = 500 };
	char path[128];
	struct buf b = BUF_INIT;
	json_t *j, *a;
	size_t id;

	(void)state;
	assert_int_equal(gw_ledger_add(l, &id, "crsA", USD(1.5)), 0);
	assert_int_equal(gw_ledger_add(l, &id, "crsB", GW_BUDGET_UNLIMITED), 0);
	assert_int_equal(gw_ledger_reserve(l, 0, USD(0.01)), 0);
	gw_ledger_settle(l, 0, USD(0.01), &ch);
	assert_int_equal(gw_ledger_reserve(l, 0, USD(2)), CRS_ECONFLICT);
	snprintf(path, sizeof(path), "%s/spend.json", tmpdir);
	assert_int_equal(gw_report_write(l, path), 0);
	assert_int_equal(fs_read_file(&b, path, 1 << 20), 0);
	j = json_loads(b.ptr, 0, NULL);
	assert_non_null(j);
	a = json_object_get(json_object_get(j, "crs"), "crsA");
	assert_true(json_real_value(json_object_get(a, "dollars")) == 0.0075);
	assert_true(json_real_value(json_object_get(a, "budget_dollars"))
		    == 1.5);
	assert_int_equal(json_integer_value(json_object_get(a, "requests")), 1);
	assert_int_equal(json_integer_value(json_object_get(a, "refusals")), 1);
	assert_int_equal(json_integer_value(json_object_get(a, "tokens_in")),
			 1000);
	assert_int_equal(json_integer_value(json_object_get(a, "tokens_out")),
			 500);
	a = json_object_get(json_object_get(j, "crs"), "crsB");
	assert_true(json_is_null(json_object_get(a, "budget_dollars")));
	a = json_object_get(j, "totals");
	assert_true(json_real_value(json_object_get(a, "credits_used"))
		    == 0.0075);
	assert_non_null(strstr(b.ptr, "\"dollars\": 0.0075"));
	json_decref(j);
	buf_release(&b);
	gw_ledger_free(l);
}

/* ---- what may be forwarded, and its bound -------------------------------- */

/* n dense characters of `kind` as a JSON string; their UTF-8 bytes. */
static json_t *dense_string(int kind, size_t n, unsigned *seed, size_t *bytes)
{
	struct buf b = BUF_INIT;
	json_t *s;

	dense_text(&b, kind, n, seed);
	*bytes = b.len;
	s = json_stringn(b.ptr, b.len);
	buf_release(&b);
	return s;
}

/*
 * A byte-level tokenizer emits at most one token per byte of text: the
 * bound covers every byte of every message's text, plus the template
 * overhead, for the densest text there is. The old estimate (a third of
 * the body) fell short of it.
 */
static void test_policy_bound_dense(void **state)
{
	unsigned seed = 5;

	(void)state;
	for (int kind = 0; kind < DENSE_KINDS; kind++) {
		for (size_t n = 1; n <= 65536; n *= 8) {
			json_t *j = json_pack("{s:s, s:[], s:i}", "model", "m",
					      "messages", "max_tokens", 10);
			json_t *msgs = json_object_get(j, "messages");
			struct gw_policy pol;
			size_t text = 0, bytes;
			char param[64], *body;
			int64_t bound, most;

			for (int m = 0; m < 3; m++) {
				json_array_append_new(msgs, json_pack(
					"{s:s, s:o}", "role", "user", "content",
					dense_string(kind, n, &seed, &bytes)));
				text += bytes;
			}
			assert_int_equal(gw_policy_check(&pol, j, GW_EP_CHAT,
							 param, sizeof(param)),
					 0);
			assert_int_equal(pol.messages, 3);
			assert_int_equal(pol.tools, 0);
			body = json_dumps(j, JSON_COMPACT);
			bound = gw_policy_input_tokens(strlen(body), &pol);
			most = (int64_t)text +
			       3 * GW_POLICY_TOKENS_PER_MESSAGE +
			       GW_POLICY_TOKENS_PER_REQUEST;
			assert_true(bound >= most);
			assert_int_equal(bound, (int64_t)strlen(body) +
					 3 * GW_POLICY_TOKENS_PER_MESSAGE +
					 GW_POLICY_TOKENS_PER_REQUEST);
			/* the old estimate: a third of the body */
			if (kind != DENSE_HEX && n >= 512)
				assert_true((int64_t)strlen(body) / 3 <
					    (int64_t)text);
			free(body);
			json_decref(j);
		}
	}
}

static void policy_ok(enum gw_endpoint ep, const char *in, const char *want,
		      size_t messages, size_t outputs, int tools)
{
	json_t *j = json_loads(in, 0, NULL), *w = json_loads(want, 0, NULL);
	struct gw_policy pol;
	char param[64];

	assert_non_null(j);
	assert_non_null(w);
	if (gw_policy_check(&pol, j, ep, param, sizeof(param)) != 0)
		fail_msg("%s: %s", in, crs_error_last());
	if (!json_equal(j, w)) {
		char *got = json_dumps(j, JSON_COMPACT);

		fail_msg("%s: became %s, want %s", in, got, want);
	}
	assert_int_equal(pol.messages, messages);
	assert_int_equal(pol.outputs, outputs);
	assert_int_equal(pol.tools, tools);
	json_decref(j);
	json_decref(w);
}

static void policy_refused(enum gw_endpoint ep, const char *in,
			   const char *param_want)
{
	json_t *j = json_loads(in, 0, NULL);
	struct gw_policy pol;
	char param[64] = "";

	assert_non_null(j);
	if (gw_policy_check(&pol, j, ep, param, sizeof(param)) != CRS_EINPUT)
		fail_msg("%s: not refused", in);
	assert_string_equal(param, param_want);
	json_decref(j);
}

static void test_policy_routes(void **state)
{
	char beta[256];

	(void)state;
	/* stripped: price only */
	policy_ok(GW_EP_CHAT, "{\"model\":\"m\",\"messages\":[{\"role\":"
		  "\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}],"
		  "\"service_tier\":\"priority\",\"tools\":[{\"type\":"
		  "\"function\",\"function\":{\"name\":\"f\"}}]}",
		  "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
		  "[{\"type\":\"text\",\"text\":\"a\"}]}],\"tools\":[{\"type\":"
		  "\"function\",\"function\":{\"name\":\"f\"}}]}", 1, 1, 1);
	policy_ok(GW_EP_MESSAGES, "{\"model\":\"m\",\"cache_control\":{},"
		  "\"system\":[{\"type\":\"text\",\"text\":\"s\","
		  "\"cache_control\":{}}],\"messages\":[{\"role\":\"user\","
		  "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\","
		  "\"content\":[{\"type\":\"text\",\"text\":\"r\"}],"
		  "\"cache_control\":{}}]}]}",
		  "{\"model\":\"m\",\"system\":[{\"type\":\"text\",\"text\":\"s\""
		  "}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
		  "\"tool_result\",\"tool_use_id\":\"t\",\"content\":[{\"type\":"
		  "\"text\",\"text\":\"r\"}]}]}]}", 2, 1, 0);
	policy_ok(GW_EP_RESPONSES, "{\"model\":\"m\",\"instructions\":\"i\","
		  "\"store\":true,\"input\":[{\"role\":\"user\",\"content\":"
		  "\"a\"},{\"type\":\"function_call\",\"call_id\":\"c\","
		  "\"name\":\"f\",\"arguments\":\"{}\"},{\"type\":"
		  "\"function_call_output\",\"call_id\":\"c\",\"output\":\"o\"}]}",
		  "{\"model\":\"m\",\"instructions\":\"i\",\"store\":false,"
		  "\"input\":[{\"role\":\"user\",\"content\":\"a\"},{\"type\":"
		  "\"function_call\",\"call_id\":\"c\",\"name\":\"f\","
		  "\"arguments\":\"{}\"},{\"type\":\"function_call_output\","
		  "\"call_id\":\"c\",\"output\":\"o\"}]}", 4, 1, 0);
	/* several prompts: several completions */
	policy_ok(GW_EP_COMPLETIONS, "{\"model\":\"m\",\"prompt\":[\"a\",\"b\","
		  "\"c\"],\"n\":1}", "{\"model\":\"m\",\"prompt\":[\"a\",\"b\","
		  "\"c\"],\"n\":1}", 3, 3, 0);
	policy_ok(GW_EP_COMPLETIONS, "{\"model\":\"m\",\"prompt\":[1,2,3]}",
		  "{\"model\":\"m\",\"prompt\":[1,2,3]}", 1, 1, 0);
	policy_ok(GW_EP_EMBEDDINGS, "{\"model\":\"m\",\"input\":[[1,2],[3]]}",
		  "{\"model\":\"m\",\"input\":[[1,2],[3]]}", 2, 1, 0);
	/* refused */
	policy_refused(GW_EP_CHAT, "{\"n\":3}", "n");
	policy_refused(GW_EP_CHAT, "{\"messages\":[{\"content\":[{\"type\":"
		       "\"image_url\"}]}]}", "messages");
	policy_refused(GW_EP_CHAT, "{\"tools\":[{\"type\":\"custom\"}]}",
		       "tools");
	policy_refused(GW_EP_CHAT, "{\"extra_body\":{}}", "extra_body");
	policy_refused(GW_EP_COMPLETIONS, "{\"best_of\":2}", "best_of");
	policy_refused(GW_EP_EMBEDDINGS, "{\"messages\":[]}", "messages");
	policy_refused(GW_EP_RESPONSES, "{\"previous_response_id\":\"r\"}",
		       "previous_response_id");
	policy_refused(GW_EP_RESPONSES, "{\"tools\":[{\"type\":"
		       "\"web_search\"}]}", "tools");
	policy_refused(GW_EP_RESPONSES, "{\"input\":[{\"type\":"
		       "\"function_call_output\",\"output\":[{\"type\":"
		       "\"input_image\"}]}]}", "input");
	policy_refused(GW_EP_MESSAGES, "{\"tools\":[{\"type\":"
		       "\"bash_20250124\",\"name\":\"bash\"}]}", "tools");
	policy_refused(GW_EP_MESSAGES, "{\"messages\":[{\"content\":[{"
		       "\"type\":\"search_result\"}]}]}", "messages");
	assert_non_null(strstr(crs_error_last(), "\"search_result\""));
	/* anthropic-beta: only the allowlist */
	assert_string_equal(gw_policy_anthropic_beta(beta, sizeof(beta),
		"context-1m-2025-08-07, token-efficient-tools-2025-02-19 ,"
		"files-api-2025-04-14,output-128k-2025-02-19"),
		"token-efficient-tools-2025-02-19,output-128k-2025-02-19");
	assert_string_equal(gw_policy_anthropic_beta(beta, sizeof(beta),
		"mcp-client-2025-04-04"), "");
	crs_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_money_parse),
		cmocka_unit_test(test_money_format),
		cmocka_unit_test(test_price_table),
		cmocka_unit_test(test_ledger_reserve_settle),
		cmocka_unit_test(test_ledger_unlimited),
		cmocka_unit_test(test_ledger_threads),
		cmocka_unit_test_setup_teardown(test_keys, mk_tmp, rm_tmp),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_prices_by_upstream),
		cmocka_unit_test(test_config_external),
		cmocka_unit_test(test_usage_body),
		cmocka_unit_test(test_sse),
		cmocka_unit_test_setup_teardown(test_report, mk_tmp, rm_tmp),
		cmocka_unit_test(test_policy_bound_dense),
		cmocka_unit_test(test_policy_routes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
