/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_config.h - the gateway's model routes and settings
 *
 * Read from a compatible subset of LiteLLM's proxy config: model_list[]
 * with model_name and litellm_params {model, api_base, api_key:
 * os.environ/NAME, input_cost_per_token, output_cost_per_token, timeout},
 * plus an optional crs_ci_settings block. Provider keys come from the
 * environment only and are wiped when the config is freed; no message
 * ever holds one.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_CONFIG_H
#define CRS_RUNNER_GATEWAY_GW_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "runner/gateway/gw_price.h"

struct strvec;
struct config_env_allow;

/* How a provider is spoken to. */
enum gw_style {
	GW_STYLE_OPENAI,	/* <api_base>/chat/completions, Bearer key */
	GW_STYLE_ANTHROPIC,	/* <api_base>/v1/messages, x-api-key */
};

struct gw_model {
	char *name;		/* model_name: what a CRS asks for */
	char *upstream_model;	/* litellm_params.model, provider cut */
	char *provider;		/* "openai", "anthropic", "xai", ... */
	enum gw_style style;
	char *api_base;		/* without a trailing slash */
	char *api_key;		/* the provider key, or NULL for none */
	char *api_key_env;	/* the variable it came from, or NULL */
	struct gw_price price;
	int has_in_price, has_out_price;
	long timeout_s;		/* 0: settings.request_timeout_s */
};

struct gw_settings {
	int64_t max_tokens_cap;		/* sent and reserved when a
					 * request names no max_tokens */
	long request_timeout_s;		/* whole upstream exchange */
	long connect_timeout_s;
	size_t max_request_bytes;	/* larger bodies get HTTP 413 */
	size_t max_response_bytes;	/* larger upstream bodies: 502 */
	/* what one CRS may hold of the gateway */
	unsigned max_in_flight;		/* requests per CRS key (429) */
	unsigned max_connections;	/* all clients */
	unsigned max_connections_per_address;
	unsigned idle_timeout_s;	/* a connection silent this long,
					 * headers unfinished or idle
					 * between requests, is closed */
};

#define GW_SETTINGS_INIT { \
	.max_tokens_cap = 4096, \
	.request_timeout_s = 600, .connect_timeout_s = 10, \
	.max_request_bytes = (size_t)32 << 20, \
	.max_response_bytes = (size_t)64 << 20, \
	.max_in_flight = 4, .max_connections = 1000, \
	.max_connections_per_address = 16, .idle_timeout_s = 10 }

struct gw_config {
	struct gw_model *models;
	size_t models_nr, models_alloc;
	struct gw_settings settings;
	/*
	 * External mode: every request goes to external_url (path as the
	 * CRS sent it, model unchanged) with external_key; models[] then
	 * only supply prices.
	 */
	int external;
	char *external_url;	/* without a trailing slash */
	char *external_key;	/* wiped when freed; NULL for none */
	char *external_key_env;
};

/* A config with no models and default settings. Cannot fail. */
struct gw_config *gw_config_new(void);
/* Wipe the keys and free; accepts NULL. */
void gw_config_free(struct gw_config *c);

/*
 * Parse LiteLLM-style YAML from memory; `name` is shown in messages.
 * 0, or CRS_ECONFIG with "name:line:col: field: problem" (an unknown
 * provider without api_base, a literal api_key, an unset variable, a
 * bad price, an os.environ/NAME the config may not read: see
 * config_env_allowed(); `allow` holds the trusted --allow-env names, may
 * be NULL). Unknown keys are warned about and ignored. *out is set
 * only on success; the caller frees it with gw_config_free().
 */
int gw_config_parse(struct gw_config **out, const char *buf, size_t len,
		    const char *name, const struct config_env_allow *allow);
/* The same from a file (at most CONFIG_FILE_MAX bytes). */
int gw_config_load(struct gw_config **out, const char *path,
		   const struct config_env_allow *allow);

/*
 * Switch `c` to external mode: requests go to `url` (http:// or
 * https://) with the key read from environment variable `key_env` (NULL
 * for no key). 0 or CRS_ECONFIG (bad URL, variable unset or empty).
 */
int gw_config_set_external(struct gw_config *c, const char *url,
			   const char *key_env);

/* The route for a model name, or NULL. Borrowed from c. */
const struct gw_model *gw_config_model(const struct gw_config *c,
				       const char *name);

/*
 * The price of `model` in external mode, the whole string the CRS sent:
 * a model_list entry of that name with prices, else the shipped table's
 * row of that exact id, whose provider a prefix must name
 * (gw_price_lookup). 0 or CRS_ENOTFOUND (no message): refused.
 */
int gw_config_external_price(struct gw_price *out,
			     const struct gw_config *c, const char *model);

/*
 * The names NAME of every "os.environ/NAME" value in the litellm_params of
 * the config file at `path` (api_key, api_base), each once, in file order,
 * appended to `names`. Only reads the YAML: the variables need not be set
 * (the orchestrator uses it to pass exactly these into the gateway's
 * container). 0, or CRS_ECONFIG/CRS_ENOTFOUND for an unreadable file,
 * bad YAML or a name the config may not read (config_env_allowed()).
 */
int gw_config_env_names(const char *path,
			const struct config_env_allow *allow,
			struct strvec *names);

#endif
