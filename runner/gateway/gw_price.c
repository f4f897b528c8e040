/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_price.c - picodollar arithmetic and the shipped model prices
 *
 * The table holds list prices (USD per million tokens) of a few common
 * models; the llm config overrides any of them per model with LiteLLM's
 * input_cost_per_token/output_cost_per_token. Where a provider charges
 * more above a prompt size (Gemini 2.5 Pro), the higher tier is shipped:
 * a budget must hold for the worst case. Amounts are parsed from their
 * decimal text, never through a double, so "0.05" is exactly 5e10 pUSD.
 */
#include "runner/gateway/gw_price.h"
#include "common/error.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct price_row {
	const char *provider;	/* the LiteLLM prefix that may name it */
	const char *model;	/* the exact model id */
	int64_t in_pusd, out_pusd;
};

#define ROW(provider, name, in, out) \
	{ provider, name, GW_USD_PER_MTOK(in), GW_USD_PER_MTOK(out) }
#define OPENAI(name, in, out) ROW("openai", name, in, out)
#define ANTHROPIC(name, in, out) ROW("anthropic", name, in, out)

/*
 * Every id is exact: a dated snapshot has its own row, because it may
 * cost more than its family's alias (gpt-4o-2024-05-13 is $5/$15 where
 * gpt-4o is $2.50/$10). Sources, read 2026-12-02: OpenAI's price list
 * (platform.openai.com/docs/pricing) as mirrored for each snapshot by
 * llmcloudhub.com/openai/gpt-4o-2024-05-13 and by the price table of
 * huggingface.co/spaces/Presidentlin/llm-pricing-calculator
 * (src/lib/benchmarks/openai.ts: the gpt-4o, gpt-4o-mini and gpt-4.1
 * snapshots); Anthropic's model pages (platform.claude.com/docs/
 * models/<model>/overview, "Model IDs" and "Pricing") and the dated ids
 * of LangChain's MODEL_COST_PER_1K_INPUT_TOKENS/OUTPUT_TOKENS
 * (reference.langchain.com, bedrock_anthropic_callback); Google's and
 * xAI's price pages for the rest.
 */
static const struct price_row shipped[] = {
	/* OpenAI */
	OPENAI("gpt-4o", 2.50, 10.00),
	OPENAI("gpt-4o-2024-05-13", 5.00, 15.00),
	OPENAI("gpt-4o-2024-08-06", 2.50, 10.00),
	OPENAI("gpt-4o-2024-11-20", 2.50, 10.00),
	OPENAI("chatgpt-4o-latest", 5.00, 15.00),
	OPENAI("gpt-4o-mini", 0.15, 0.60),
	OPENAI("gpt-4o-mini-2024-07-18", 0.15, 0.60),
	OPENAI("gpt-4.1", 2.00, 8.00),
	OPENAI("gpt-4.1-2025-04-14", 2.00, 8.00),
	OPENAI("gpt-4.1-mini", 0.40, 1.60),
	OPENAI("gpt-4.1-mini-2025-04-14", 0.40, 1.60),
	OPENAI("gpt-4.1-nano", 0.10, 0.40),
	OPENAI("gpt-4.1-nano-2025-04-14", 0.10, 0.40),
	OPENAI("gpt-5", 1.25, 10.00),
	OPENAI("gpt-5-2025-08-07", 1.25, 10.00),
	OPENAI("gpt-5-mini", 0.25, 2.00),
	OPENAI("gpt-5-mini-2025-08-07", 0.25, 2.00),
	OPENAI("gpt-5-nano", 0.05, 0.40),
	OPENAI("gpt-5-nano-2025-08-07", 0.05, 0.40),
	OPENAI("o1", 15.00, 60.00),
	OPENAI("o1-2024-12-17", 15.00, 60.00),
	OPENAI("o3", 2.00, 8.00),
	OPENAI("o3-2025-04-16", 2.00, 8.00),
	OPENAI("o3-mini", 1.10, 4.40),
	OPENAI("o3-mini-2025-01-31", 1.10, 4.40),
	OPENAI("o4-mini", 1.10, 4.40),
	OPENAI("o4-mini-2025-04-16", 1.10, 4.40),
	OPENAI("text-embedding-3-small", 0.02, 0.00),
	OPENAI("text-embedding-3-large", 0.13, 0.00),
	OPENAI("text-embedding-ada-002", 0.10, 0.00),
	/* Anthropic */
	ANTHROPIC("claude-opus-4-5", 5.00, 25.00),
	ANTHROPIC("claude-opus-4-5-20251101", 5.00, 25.00),
	ANTHROPIC("claude-opus-4-1", 15.00, 75.00),
	ANTHROPIC("claude-opus-4-1-20250805", 15.00, 75.00),
	ANTHROPIC("claude-opus-4", 15.00, 75.00),
	ANTHROPIC("claude-opus-4-0", 15.00, 75.00),
	ANTHROPIC("claude-opus-4-20250514", 15.00, 75.00),
	ANTHROPIC("claude-sonnet-4-5", 3.00, 15.00),
	ANTHROPIC("claude-sonnet-4-5-20250929", 3.00, 15.00),
	ANTHROPIC("claude-sonnet-4", 3.00, 15.00),
	ANTHROPIC("claude-sonnet-4-0", 3.00, 15.00),
	ANTHROPIC("claude-sonnet-4-20250514", 3.00, 15.00),
	ANTHROPIC("claude-3-7-sonnet", 3.00, 15.00),
	ANTHROPIC("claude-3-7-sonnet-latest", 3.00, 15.00),
	ANTHROPIC("claude-3-7-sonnet-20250219", 3.00, 15.00),
	ANTHROPIC("claude-3-5-sonnet", 3.00, 15.00),
	ANTHROPIC("claude-3-5-sonnet-latest", 3.00, 15.00),
	ANTHROPIC("claude-3-5-sonnet-20241022", 3.00, 15.00),
	ANTHROPIC("claude-3-5-sonnet-20240620", 3.00, 15.00),
	ANTHROPIC("claude-haiku-4-5", 1.00, 5.00),
	ANTHROPIC("claude-haiku-4-5-20251001", 1.00, 5.00),
	ANTHROPIC("claude-3-5-haiku", 0.80, 4.00),
	ANTHROPIC("claude-3-5-haiku-latest", 0.80, 4.00),
	ANTHROPIC("claude-3-5-haiku-20241022", 0.80, 4.00),
	ANTHROPIC("claude-3-haiku", 0.25, 1.25),
	ANTHROPIC("claude-3-haiku-20240307", 0.25, 1.25),
	/* Google (the above-200k-tokens tier where there is one) */
	ROW("gemini", "gemini-2.5-pro", 2.50, 15.00),
	ROW("gemini", "gemini-2.5-flash", 0.30, 2.50),
	ROW("gemini", "gemini-2.0-flash", 0.10, 0.40),
	ROW("gemini", "gemini-2.0-flash-001", 0.10, 0.40),
	/* xAI */
	ROW("xai", "grok-4", 3.00, 15.00),
	ROW("xai", "grok-4-0709", 3.00, 15.00),
	ROW("xai", "grok-3", 3.00, 15.00),
	ROW("xai", "grok-3-mini", 0.30, 0.50),
};

int gw_price_lookup(struct gw_price *out, const char *model)
{
	const char *slash = strchr(model, '/');
	const char *id = slash ? slash + 1 : model;
	size_t plen = slash ? (size_t)(slash - model) : 0;

	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		const struct price_row *row = &shipped[i];

		if (strcmp(row->model, id) != 0)
			continue;
		if (slash && (strlen(row->provider) != plen ||
			      strncmp(row->provider, model, plen) != 0))
			return CRS_ENOTFOUND;	/* another provider's */
		out->in_pusd = row->in_pusd;
		out->out_pusd = row->out_pusd;
		return 0;
	}
	return CRS_ENOTFOUND;
}

static int64_t mul_sat(int64_t a, int64_t b)
{
	if (a <= 0 || b <= 0)
		return 0;
	if (a > INT64_MAX / b)
		return INT64_MAX;
	return a * b;
}

int64_t gw_price_cost(const struct gw_price *p, int64_t tokens_in,
		      int64_t tokens_out)
{
	int64_t a = mul_sat(p->in_pusd, tokens_in);
	int64_t b = mul_sat(p->out_pusd, tokens_out);

	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int gw_money_parse(int64_t *out, const char *s)
{
	const char *p = s;
	int64_t mant = 0, v;
	int digits = 0, frac = 0, exp = 0, dropped = 0, seen_point = 0;
	int e, exp_sign = 1, exp_digits = 0;

	if (*p == '+')
		p++;
	for (; *p; p++) {
		if (*p == '.' && !seen_point) {
			seen_point = 1;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			break;
		digits++;
		if (mant < INT64_C(100000000000000000)) {
			mant = mant * 10 + (*p - '0');
			frac += seen_point;
		} else {
			dropped += !seen_point;	/* integer digit lost */
		}
	}
	if (!digits)
		goto bad;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			exp_sign = *p++ == '-' ? -1 : 1;
		for (; isdigit((unsigned char)*p); p++, exp_digits++)
			if (exp < 1000)
				exp = exp * 10 + (*p - '0');
		if (!exp_digits)
			goto bad;
	}
	if (*p)
		goto bad;
	/* value = mant * 10^(e - 12) dollars, i.e. mant * 10^e picodollars */
	e = exp_sign * exp + dropped - frac + 12;
	v = mant;
	if (e >= 0) {
		for (; e > 0 && v; e--) {
			if (v > INT64_MAX / 10)
				goto bad;
			v *= 10;
		}
	} else {
		int64_t rem = 0;

		for (; e < 0; e++) {
			rem = v % 10;
			v /= 10;
			if (!v && !rem)
				break;	/* only zeros left to drop */
		}
		v += rem >= 5;	/* half up on the last digit dropped */
	}
	*out = v;
	return 0;
bad:
	return crs_error_set(CRS_EINPUT, "\"%.40s\" is not an amount of "
			     "dollars", s);
}

char *gw_money_format(char *out, size_t outsz, int64_t pusd)
{
	char frac[16];
	int n;
	const char *sign = pusd < 0 ? "-" : "";
	uint64_t u = pusd < 0 ? -(uint64_t)pusd : (uint64_t)pusd;

	snprintf(frac, sizeof(frac), "%012llu",
		 (unsigned long long)(u % (uint64_t)GW_PUSD_PER_USD));
	for (n = 12; n > 2 && frac[n - 1] == '0'; n--)
		;
	frac[n] = '\0';
	snprintf(out, outsz, "%s$%llu.%s", sign,
		 (unsigned long long)(u / (uint64_t)GW_PUSD_PER_USD), frac);
	return out;
}

double gw_money_dollars(int64_t pusd)
{
	return (double)(pusd / GW_PUSD_PER_USD) +
	       (double)(pusd % GW_PUSD_PER_USD) / 1e12;
}
