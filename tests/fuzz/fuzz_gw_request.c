/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_gw_request.c - libFuzzer target: the gateway's handling of a CRS
 * request body (runner/gateway/gw_forward.c), without the network
 *
 * gw_forward() parses and checks the JSON body, routes the model, rewrites
 * the output limits and prices the worst case; the CRS's account has a
 * budget of zero, so every request stops at the ledger (HTTP 429) and
 * nothing is sent. The first input byte picks the endpoint (value - '0',
 * modulo 10: 0 chat, 1 completions, 2 embeddings, 3 messages, 4
 * responses; 5..9 the same in external mode), the rest is the body.
 * Every reply must be an error whose body is a JSON object.
 */
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_forward.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_reply.h"
#include "common/error.h"
#include "common/log.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* port 9 (discard) on loopback: refused, should anything get through */
static const char routes[] =
	"model_list:\n"
	"  - model_name: fake-model\n"
	"    litellm_params:\n"
	"      model: openai/fake-model\n"
	"      api_base: http://127.0.0.1:9/v1\n"
	"      api_key: os.environ/OPENAI_API_KEY\n"
	"      input_cost_per_token: 0.000001\n"
	"      output_cost_per_token: 0.000002\n"
	"  - model_name: claude\n"
	"    litellm_params:\n"
	"      model: anthropic/claude-sonnet-4-20250514\n"
	"      api_base: http://127.0.0.1:9\n"
	"      api_key: os.environ/ANTHROPIC_API_KEY\n"
	"  - model_name: gpt-4o\n"
	"    litellm_params:\n"
	"      model: openai/gpt-4o\n"
	"      api_base: http://127.0.0.1:9/v1\n"
	"      api_key: os.environ/OPENAI_API_KEY\n";

static const enum gw_endpoint eps[] = {
	GW_EP_CHAT, GW_EP_COMPLETIONS, GW_EP_EMBEDDINGS, GW_EP_MESSAGES,
	GW_EP_RESPONSES,
};
static const char *const paths[] = {
	"/v1/chat/completions", "/v1/completions", "/v1/embeddings",
	"/v1/messages", "/v1/responses",
};

static struct gw_config *cfg[2];	/* internal, external */
static struct gw_ledger *ledger;
static volatile int stopping;

static void quiet(enum log_level level, const char *file, const char *func,
		  int line, const char *msg, void *ctx)
{
	(void)level, (void)file, (void)func, (void)line, (void)msg, (void)ctx;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t id;

	(void)argc;
	(void)argv;
	log_set_handler(quiet, NULL);
	setenv("OPENAI_API_KEY", "sk-fuzz-openai-0123456789", 1);
	setenv("ANTHROPIC_API_KEY", "sk-fuzz-anthropic-0123456789", 1);
	for (int i = 0; i < 2; i++)
		if (gw_config_parse(&cfg[i], routes, strlen(routes),
				    "fuzz-litellm.yaml", NULL) != 0)
			abort();
	if (gw_config_set_external(cfg[1], "http://127.0.0.1:9",
				   "OPENAI_API_KEY") != 0)
		abort();
	ledger = gw_ledger_new();
	if (gw_ledger_add(ledger, &id, "fuzz", 0) != 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_reply out = GW_REPLY_INIT;
	struct gw_forward_env env = { .ledger = ledger, .stopping = &stopping };
	struct gw_forward_req req = { 0 };
	unsigned sel;
	json_t *j;

	if (size < 1)
		return 0;
	sel = (unsigned)(uint8_t)(data[0] - '0') % 10;
	env.cfg = cfg[sel >= 5];
	req.ep = eps[sel % 5];
	req.path = paths[sel % 5];
	req.body = (const char *)data + 1;
	req.body_len = size - 1;
	if (req.ep == GW_EP_MESSAGES)
		req.anthropic_version = "2023-06-01";
	gw_forward(&out, &env, &req);
	if (out.stream || out.status < 400 || out.status > 499)
		abort();	/* nothing may reach the provider */
	j = json_loadb(out.body.ptr, out.body.len, 0, NULL);
	if (!json_is_object(j))
		abort();
	json_decref(j);
	gw_reply_release(&out);
	crs_error_clear();
	return 0;
}
