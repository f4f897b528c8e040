/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_price.h - money in picodollars and the shipped per-model price table
 *
 * Every amount the gateway handles is an int64_t count of picodollars
 * (1e-12 USD): a per-token price such as $0.0375 per million tokens is
 * an exact integer (37500), and sums never round. Floating point appears
 * only when a report prints dollars.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_PRICE_H
#define CRS_RUNNER_GATEWAY_GW_PRICE_H

#include <stddef.h>
#include <stdint.h>

#define GW_PUSD_PER_USD INT64_C(1000000000000)

/* Dollars per million tokens, as picodollars per token (exact). */
#define GW_USD_PER_MTOK(x) ((int64_t)((x) * 1e6 + 0.5))

/* The price of one token of a model, in picodollars. */
struct gw_price {
	int64_t in_pusd;	/* per prompt (input) token */
	int64_t out_pusd;	/* per completion (output) token */
};

/*
 * The shipped price of `model`, an exact provider model id ("gpt-4o",
 * "gpt-4o-2024-05-13", "claude-sonnet-4-20250514"), optionally after its
 * LiteLLM provider prefix ("openai/gpt-4o"), which must then be that
 * model's own provider. Each dated snapshot is priced as itself: an id
 * the table lacks (another date, another provider's prefix, a longer
 * path such as "openrouter/openai/gpt-4o") is not priced, so the
 * gateway refuses it rather than charging a cheaper relative's price.
 * 0 with *out set, or CRS_ENOTFOUND (no message set: the caller knows
 * what to say).
 */
int gw_price_lookup(struct gw_price *out, const char *model);

/*
 * tokens_in * in + tokens_out * out, saturating at INT64_MAX (a cost that
 * large is refused by any budget). Negative token counts count as 0.
 * Cannot fail.
 */
int64_t gw_price_cost(const struct gw_price *p, int64_t tokens_in,
		      int64_t tokens_out);

/*
 * Parse a non-negative decimal amount of dollars ("1.50", "0.05",
 * "2.5e-06") exactly into picodollars, rounding half up below one
 * picodollar. 0 or CRS_EINPUT ("\"abc\" is not an amount of dollars");
 * *out is set only on success.
 */
int gw_money_parse(int64_t *out, const char *s);

/*
 * Format picodollars as dollars with every significant digit and at
 * least two decimals: "$0.0075", "$1.50", "$0.000000025". Writes at most
 * `outsz` bytes (32 is always enough). Returns out. Cannot fail.
 */
char *gw_money_format(char *out, size_t outsz, int64_t pusd);

/* Picodollars as a double number of dollars, for JSON reports. */
double gw_money_dollars(int64_t pusd);

#endif
