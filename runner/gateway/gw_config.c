/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_config.c - LiteLLM model_list subset into gateway routes
 *
 * Walks the libyaml tree from yaml_doc; knows providers' default
 * endpoints and which LiteLLM keys the gateway honours. Everything a
 * provider is asked is decided here, at start-up, so a bad config fails
 * before any CRS runs. A secret never enters a message: a literal api_key
 * is refused without being quoted.
 */
#include "runner/gateway/gw_config.h"
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/num.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#define ENV_PREFIX "os.environ/"

struct provider {
	const char *name;
	const char *api_base;	/* NULL: api_base required */
	enum gw_style style;
};

static const struct provider providers[] = {
	{ "openai", "https://api.openai.com/v1", GW_STYLE_OPENAI },
	{ "anthropic", "https://api.anthropic.com", GW_STYLE_ANTHROPIC },
	{ "gemini", "https://generativelanguage.googleapis.com/v1beta/openai",
	  GW_STYLE_OPENAI },
	{ "xai", "https://api.x.ai/v1", GW_STYLE_OPENAI },
	{ "deepseek", "https://api.deepseek.com/v1", GW_STYLE_OPENAI },
	{ "mistral", "https://api.mistral.ai/v1", GW_STYLE_OPENAI },
	{ "groq", "https://api.groq.com/openai/v1", GW_STYLE_OPENAI },
	{ "openrouter", "https://openrouter.ai/api/v1", GW_STYLE_OPENAI },
};

/* LiteLLM providers whose wire protocol is not OpenAI's or Anthropic's. */
static const char *const unsupported[] = {
	"azure", "azure_ai", "bedrock", "vertex_ai", "sagemaker", "cohere",
	"huggingface", "ollama", "ollama_chat", "replicate", "watsonx",
};

static void model_release(struct gw_model *m)
{
	free(m->name);
	free(m->upstream_model);
	free(m->provider);
	free(m->api_base);
	if (m->api_key) {
		OPENSSL_cleanse(m->api_key, strlen(m->api_key));
		free(m->api_key);
	}
	free(m->api_key_env);
	memset(m, 0, sizeof(*m));
}

struct gw_config *gw_config_new(void)
{
	struct gw_config *c = xcalloc(1, sizeof(*c));
	struct gw_settings def = GW_SETTINGS_INIT;

	c->settings = def;
	return c;
}

void gw_config_free(struct gw_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->models_nr; i++)
		model_release(&c->models[i]);
	free(c->models);
	free(c->external_url);
	if (c->external_key) {
		OPENSSL_cleanse(c->external_key, strlen(c->external_key));
		free(c->external_key);
	}
	free(c->external_key_env);
	free(c);
}

const struct gw_model *gw_config_model(const struct gw_config *c,
				       const char *name)
{
	for (size_t i = 0; i < c->models_nr; i++)
		if (!strcmp(c->models[i].name, name))
			return &c->models[i];
	return NULL;
}

int gw_config_external_price(struct gw_price *out,
			     const struct gw_config *c, const char *model)
{
	const struct gw_model *m = gw_config_model(c, model);

	if (m && m->has_in_price && m->has_out_price) {
		*out = m->price;
		return 0;
	}
	return gw_price_lookup(out, model);
}

static int url_ok(const char *s)
{
	return (!strncmp(s, "http://", 7) && s[7]) ||
	       (!strncmp(s, "https://", 8) && s[8]);
}

static char *strip_slash(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

/* CRS_ECONFIG at `v` unless the config may read variable `name`. */
static int env_name_check(const struct yaml_doc *d, const yaml_node_t *v,
			  const char *field, const char *name,
			  const struct config_env_allow *allow)
{
	char q[YAML_DOC_QUOTE_MAX];

	if (config_env_allowed(name, allow))
		return 0;
	return yaml_doc_error(d, v, field, "environment variable %s may not "
			      "be read: %s (a trusted --allow-env %.64s "
			      "allows it)", yaml_doc_quote(q, name),
			      config_env_allow_rule, name);
}

/* A value that may be "os.environ/NAME": resolve it, if `allow`ed.
 * `secret` keeps the value (and a literal) out of every message. */
static int env_value(struct yaml_doc *d, const yaml_node_t *k,
		     const yaml_node_t *v, const char *field, int secret,
		     const struct config_env_allow *allow, char **out,
		     char **env_out)
{
	char *s = NULL;
	const char *val;
	int r;

	*out = NULL;
	if ((r = yaml_doc_get_str(d, k, v, field, &s)) != 0)
		return r;
	if (strncmp(s, ENV_PREFIX, strlen(ENV_PREFIX))) {
		if (secret) {
			OPENSSL_cleanse(s, strlen(s));
			free(s);
			return yaml_doc_error(d, k, field, "write "
					      "os.environ/NAME: provider keys "
					      "are read from the environment "
					      "only");
		}
		*out = s;
		return 0;
	}
	if ((r = env_name_check(d, v, field, s + strlen(ENV_PREFIX),
				allow)) != 0) {
		free(s);
		return r;
	}
	val = getenv(s + strlen(ENV_PREFIX));
	if (!val || !*val) {
		r = yaml_doc_error(d, k, field, "environment variable %s is "
				   "not set", s + strlen(ENV_PREFIX));
		free(s);
		return r;
	}
	*out = xstrdup(val);
	if (env_out)
		*env_out = xstrdup(s + strlen(ENV_PREFIX));
	free(s);
	return 0;
}

static int get_price(struct yaml_doc *d, const yaml_node_t *k,
		     const yaml_node_t *v, const char *field, int64_t *out)
{
	const char *s = yaml_doc_scalar(v);
	char q[YAML_DOC_QUOTE_MAX];

	if (!s || yaml_doc_is_null(v) || gw_money_parse(out, s) != 0)
		return yaml_doc_error(d, k, field, "%s is not a price in "
				      "dollars per token",
				      s ? yaml_doc_quote(q, s)
					: "a non-scalar");
	return 0;
}

static int get_int(struct yaml_doc *d, const yaml_node_t *k,
		   const yaml_node_t *v, const char *field, long long min,
		   long long max, long long *out)
{
	const char *s = yaml_doc_scalar(v);
	char q[YAML_DOC_QUOTE_MAX];
	long x;

	if (!s || yaml_doc_is_null(v))
		return yaml_doc_error(d, k, field, "must be a whole number, "
				      "not %s", yaml_doc_kind(v));
	if (num_parse_long(s, LONG_MIN, LONG_MAX, &x) != 0)
		return yaml_doc_error(d, k, field, "%s is not a whole number",
				      yaml_doc_quote(q, s));
	if (x < min || x > max)
		return yaml_doc_error(d, k, field, "%lld is not between %lld "
				      "and %lld", (long long)x, min, max);
	*out = x;
	return 0;
}

static int get_seconds(struct yaml_doc *d, const yaml_node_t *k,
		       const yaml_node_t *v, const char *field, long *out)
{
	double x;
	int r;

	if ((r = yaml_doc_get_number(d, k, v, field, &x)) != 0)
		return r;
	if (x <= 0 || x > 86400)
		return yaml_doc_error(d, k, field, "must be between 0 and "
				      "86400 seconds");
	*out = x < 1 ? 1 : (long)(x + 0.5);
	return 0;
}

/* The two cost keys, found in litellm_params or model_info. */
static int cost_key(struct yaml_doc *d, const yaml_node_t *k,
		    const yaml_node_t *v, const char *field,
		    struct gw_model *m, int *handled)
{
	const char *key = yaml_doc_scalar(k);

	*handled = 1;
	if (!strcmp(key, "input_cost_per_token")) {
		m->has_in_price = 1;
		return get_price(d, k, v, field, &m->price.in_pusd);
	}
	if (!strcmp(key, "output_cost_per_token")) {
		m->has_out_price = 1;
		return get_price(d, k, v, field, &m->price.out_pusd);
	}
	*handled = 0;
	return 0;
}

static int parse_params(struct yaml_doc *d, const yaml_node_t *at,
			const yaml_node_t *v, const char *field,
			const struct config_env_allow *allow,
			struct gw_model *m, char **model_out,
			const yaml_node_t **model_node)
{
	char f[256];
	int r, handled;

	if ((r = yaml_doc_want_mapping(d, at, v, field)) != 0)
		return r;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = YAML_DOC_KEY(d, p);
		yaml_node_t *val = YAML_DOC_VALUE(d, p);
		const char *key = yaml_doc_scalar(k);

		yaml_doc_field(f, sizeof(f), "%s.%s", field, key);
		if ((r = cost_key(d, k, val, f, m, &handled)) != 0)
			return r;
		if (handled)
			continue;
		if (!strcmp(key, "model")) {
			free(*model_out);
			*model_node = k;
			r = yaml_doc_get_str(d, k, val, f, model_out);
		} else if (!strcmp(key, "api_base")) {
			free(m->api_base);
			r = env_value(d, k, val, f, 0, allow, &m->api_base,
				      NULL);
			if (r == 0 && !url_ok(m->api_base))
				r = yaml_doc_error(d, k, f, "must be an "
						   "http:// or https:// URL");
		} else if (!strcmp(key, "api_key")) {
			if (yaml_doc_is_null(val))
				continue;
			r = env_value(d, k, val, f, 1, allow, &m->api_key,
				      &m->api_key_env);
		} else if (!strcmp(key, "timeout")) {
			r = get_seconds(d, k, val, f, &m->timeout_s);
		} else {
			yaml_doc_warn(d, k, f, "not supported by the crs-ci "
				      "gateway, ignored");
		}
		if (r != 0)
			return r;
	}
	return 0;
}

/* Split "provider/model" and pick the endpoint. */
static int resolve_route(struct yaml_doc *d, const yaml_node_t *at,
			 const char *field, struct gw_model *m,
			 const char *model)
{
	const char *slash = strchr(model, '/');
	const struct provider *pv = NULL;

	m->provider = slash ? xstrndup(model, (size_t)(slash - model))
			    : xstrdup("openai");
	m->upstream_model = xstrdup(slash ? slash + 1 : model);
	if (!*m->upstream_model || !*m->provider)
		return yaml_doc_error(d, at, field, "\"%s\" is not "
				      "provider/model", model);
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(*unsupported);
	     i++)
		if (!strcmp(m->provider, unsupported[i]))
			return yaml_doc_error(d, at, field, "provider "
					      "\"%s\" is not supported by "
					      "the crs-ci gateway (use openai/"
					      " with an OpenAI-compatible "
					      "api_base)", m->provider);
	for (size_t i = 0; i < sizeof(providers) / sizeof(*providers); i++)
		if (!strcmp(m->provider, providers[i].name))
			pv = &providers[i];
	m->style = pv ? pv->style : GW_STYLE_OPENAI;
	if (!m->api_base && (!pv || !pv->api_base))
		return yaml_doc_error(d, at, field, "provider \"%s\" needs an "
				      "api_base", m->provider);
	if (!m->api_base)
		m->api_base = xstrdup(pv->api_base);
	strip_slash(m->api_base);
	return 0;
}

/*
 * The shipped price of what is sent upstream, by its provider and exact
 * id: never by model_name, which may name a cheaper model than the one
 * it routes to.
 */
static void resolve_price(struct gw_model *m)
{
	struct gw_price p;
	char *full;
	int r;

	if (m->has_in_price && m->has_out_price)
		return;
	full = xasprintf("%s/%s", m->provider, m->upstream_model);
	r = gw_price_lookup(&p, full);
	free(full);
	if (r != 0)
		return;
	if (!m->has_in_price)
		m->price.in_pusd = p.in_pusd;
	if (!m->has_out_price)
		m->price.out_pusd = p.out_pusd;
	m->has_in_price = m->has_out_price = 1;
}

static int parse_model(struct gw_config *c, struct yaml_doc *d,
		       const yaml_node_t *item, size_t idx,
		       const struct config_env_allow *allow)
{
	struct gw_model m;
	const yaml_node_t *model_node = NULL, *params_node = NULL;
	char field[64], f[256], *model = NULL;
	int r = CRS_ECONFIG, handled;

	memset(&m, 0, sizeof(m));
	yaml_doc_field(field, sizeof(field), "model_list[%zu]", idx);
	if ((r = yaml_doc_want_mapping(d, item, item, field)) != 0)
		goto out;
	for (yaml_node_pair_t *p = item->data.mapping.pairs.start;
	     p < item->data.mapping.pairs.top; p++) {
		yaml_node_t *k = YAML_DOC_KEY(d, p), *v = YAML_DOC_VALUE(d, p);
		const char *key = yaml_doc_scalar(k);

		yaml_doc_field(f, sizeof(f), "%s.%s", field, key);
		r = 0;
		if (!strcmp(key, "model_name")) {
			free(m.name);
			r = yaml_doc_get_str(d, k, v, f, &m.name);
		} else if (!strcmp(key, "litellm_params")) {
			params_node = k;
			r = parse_params(d, k, v, f, allow, &m, &model,
					 &model_node);
		} else if (!strcmp(key, "model_info")) {
			if (yaml_doc_is_null(v))
				continue;
			if ((r = yaml_doc_want_mapping(d, k, v, f)) != 0)
				goto out;
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
			     q < v->data.mapping.pairs.top && r == 0; q++) {
				yaml_node_t *qk = YAML_DOC_KEY(d, q);

				yaml_doc_field(f, sizeof(f), "%s.model_info.%s",
					       field, yaml_doc_scalar(qk));
				r = cost_key(d, qk, YAML_DOC_VALUE(d, q), f, &m,
					     &handled);
			}
		} else {
			yaml_doc_warn_unknown(d, k, field);
		}
		if (r != 0)
			goto out;
	}
	if (!m.name || !*m.name) {
		r = yaml_doc_error(d, item, field, "model_name is required");
		goto out;
	}
	if (!params_node || !model) {
		r = yaml_doc_error(d, params_node ? params_node : item, field,
				   "litellm_params.model is required");
		goto out;
	}
	yaml_doc_field(f, sizeof(f), "%s.litellm_params.model", field);
	if ((r = resolve_route(d, model_node, f, &m, model)) != 0)
		goto out;
	resolve_price(&m);
	if (gw_config_model(c, m.name)) {
		yaml_doc_warn(d, item, field, "model_name \"%s\" is listed "
			      "before; the first entry serves it", m.name);
		r = 0;
		goto out;
	}
	if (!m.has_in_price)
		yaml_doc_warn(d, item, field, "no price known for \"%s\": "
			      "requests for it are refused (set "
			      "input_cost_per_token and output_cost_per_token)",
			      m.name);
	ALLOC_GROW(c->models, c->models_nr + 1, c->models_alloc);
	c->models[c->models_nr++] = m;
	memset(&m, 0, sizeof(m));	/* transferred */
	r = 0;
out:
	free(model);
	model_release(&m);
	return r;
}

static int parse_settings(struct gw_config *c, struct yaml_doc *d,
			  const yaml_node_t *at, const yaml_node_t *v)
{
	struct gw_settings *s = &c->settings;
	char f[128];
	long long x = 0;
	int r;

	if (yaml_doc_is_null(v))
		return 0;
	if ((r = yaml_doc_want_mapping(d, at, v, "crs_ci_settings")) != 0)
		return r;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = YAML_DOC_KEY(d, p);
		yaml_node_t *val = YAML_DOC_VALUE(d, p);
		const char *key = yaml_doc_scalar(k);

		yaml_doc_field(f, sizeof(f), "crs_ci_settings.%s", key);
		r = 0;
		if (!strcmp(key, "max_tokens_cap")) {
			if ((r = get_int(d, k, val, f, 1, 10000000, &x)) == 0)
				s->max_tokens_cap = x;
		} else if (!strcmp(key, "prompt_bytes_per_token")) {
			yaml_doc_warn(d, k, f, "ignored: a prompt is bounded "
				      "at one token per byte");
		} else if (!strcmp(key, "max_in_flight_per_crs")) {
			if ((r = get_int(d, k, val, f, 1, 256, &x)) == 0)
				s->max_in_flight = (unsigned)x;
		} else if (!strcmp(key, "max_connections")) {
			if ((r = get_int(d, k, val, f, 1, 10000, &x)) == 0)
				s->max_connections = (unsigned)x;
		} else if (!strcmp(key, "max_connections_per_address")) {
			if ((r = get_int(d, k, val, f, 1, 10000, &x)) == 0)
				s->max_connections_per_address = (unsigned)x;
		} else if (!strcmp(key, "idle_timeout")) {
			if ((r = get_int(d, k, val, f, 1, 3600, &x)) == 0)
				s->idle_timeout_s = (unsigned)x;
		} else if (!strcmp(key, "request_timeout")) {
			r = get_seconds(d, k, val, f, &s->request_timeout_s);
		} else if (!strcmp(key, "connect_timeout")) {
			r = get_seconds(d, k, val, f, &s->connect_timeout_s);
		} else if (!strcmp(key, "max_request_bytes")) {
			if ((r = get_int(d, k, val, f, 1024, (long long)1 << 30,
					 &x)) == 0)
				s->max_request_bytes = (size_t)x;
		} else {
			yaml_doc_warn_unknown(d, k, "crs_ci_settings");
		}
		if (r != 0)
			return r;
	}
	return 0;
}

/* litellm_settings: only request_timeout means something here. */
static int parse_litellm_settings(struct gw_config *c, struct yaml_doc *d,
				  const yaml_node_t *v)
{
	if (!v || v->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = YAML_DOC_KEY(d, p);

		if (!strcmp(yaml_doc_scalar(k), "request_timeout"))
			return get_seconds(d, k, YAML_DOC_VALUE(d, p),
					   "litellm_settings.request_timeout",
					   &c->settings.request_timeout_s);
	}
	return 0;
}

int gw_config_parse(struct gw_config **out, const char *buf, size_t len,
		    const char *name, const struct config_env_allow *allow)
{
	struct yaml_doc d;
	struct gw_config *c = gw_config_new();
	const yaml_node_t *root, *settings = NULL, *settings_key = NULL;
	const yaml_node_t *litellm = NULL;
	int r = CRS_ECONFIG;

	*out = NULL;
	memset(&d, 0, sizeof(d));
	if ((r = yaml_doc_parse(&d, buf, len, name)) != 0)
		goto out;
	root = yaml_doc_root(&d);
	if (!root || yaml_doc_is_null(root)) {
		r = 0;
		goto done;
	}
	if ((r = yaml_doc_want_mapping(&d, root, root, "")) != 0)
		goto out;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = YAML_DOC_KEY(&d, p);
		yaml_node_t *v = YAML_DOC_VALUE(&d, p);
		const char *key = yaml_doc_scalar(k);

		if (!strcmp(key, "model_list")) {
			if (yaml_doc_is_null(v))
				continue;
			if (v->type != YAML_SEQUENCE_NODE) {
				r = yaml_doc_error(&d, k, "model_list", "must "
						   "be a list, not %s",
						   yaml_doc_kind(v));
				goto out;
			}
			yaml_node_item_t *first = v->data.sequence.items.start;

			for (yaml_node_item_t *it = first;
			     it < v->data.sequence.items.top; it++) {
				size_t idx = (size_t)(it - first);

				r = parse_model(c, &d, yaml_doc_node(&d, *it),
						idx, allow);
				if (r != 0)
					goto out;
			}
		} else if (!strcmp(key, "crs_ci_settings")) {
			settings = v;
			settings_key = k;
		} else if (!strcmp(key, "litellm_settings")) {
			litellm = v;
		} else if (strcmp(key, "general_settings") &&
			   strcmp(key, "router_settings") &&
			   strcmp(key, "environment_variables")) {
			yaml_doc_warn_unknown(&d, k, NULL);
		}
	}
	/* crs_ci_settings wins over litellm_settings, whatever the order */
	if ((r = parse_litellm_settings(c, &d, litellm)) != 0 ||
	    (settings && (r = parse_settings(c, &d, settings_key,
					     settings)) != 0))
		goto out;
done:
	*out = c;
	c = NULL;	/* transferred */
	r = 0;
out:
	yaml_doc_release(&d);
	gw_config_free(c);
	return r;
}

int gw_config_load(struct gw_config **out, const char *path,
		   const struct config_env_allow *allow)
{
	struct buf b = BUF_INIT;
	int r;

	*out = NULL;
	if ((r = yaml_doc_read_file(&b, path)) == 0)
		r = gw_config_parse(out, b.ptr, b.len, path, allow);
	buf_release(&b);
	return r;
}

int gw_config_set_external(struct gw_config *c, const char *url,
			   const char *key_env)
{
	const char *key = NULL;

	if (!url_ok(url))
		return crs_error_set(CRS_ECONFIG, "external URL \"%.200s\" is "
				     "not an http:// or https:// URL", url);
	if (key_env) {
		key = getenv(key_env);
		if (!key || !*key)
			return crs_error_set(CRS_ECONFIG, "environment "
					     "variable %s (the external key) "
					     "is not set", key_env);
	}
	free(c->external_url);
	c->external_url = strip_slash(xstrdup(url));
	if (c->external_key) {
		OPENSSL_cleanse(c->external_key, strlen(c->external_key));
		free(c->external_key);
	}
	c->external_key = key ? xstrdup(key) : NULL;
	free(c->external_key_env);
	c->external_key_env = key_env ? xstrdup(key_env) : NULL;
	c->external = 1;
	return 0;
}

/* Push NAME of every "os.environ/NAME" scalar among `params`' values;
 * CRS_ECONFIG for a name the config may not read. */
static int params_env_names(struct yaml_doc *d, const yaml_node_t *params,
			    const char *field,
			    const struct config_env_allow *allow,
			    struct strvec *names)
{
	char f[256];
	int r;

	if (!params || params->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
	     p < params->data.mapping.pairs.top; p++) {
		const yaml_node_t *v = YAML_DOC_VALUE(d, p);
		const char *s = v && v->type == YAML_SCALAR_NODE
				? yaml_doc_scalar(v) : NULL;
		const char *name;
		int seen = 0;

		if (!s || strncmp(s, ENV_PREFIX, strlen(ENV_PREFIX)))
			continue;
		name = s + strlen(ENV_PREFIX);
		yaml_doc_field(f, sizeof(f), "%s.%s", field,
			       yaml_doc_scalar(YAML_DOC_KEY(d, p)));
		if ((r = env_name_check(d, v, f, name, allow)) != 0)
			return r;
		for (size_t i = 0; i < names->nr && !seen; i++)
			seen = !strcmp(names->v[i], name);
		if (!seen && *name)
			strvec_push(names, name);
	}
	return 0;
}

int gw_config_env_names(const char *path,
			const struct config_env_allow *allow,
			struct strvec *names)
{
	struct yaml_doc d;
	struct buf b = BUF_INIT;
	const yaml_node_t *root;
	int r;

	memset(&d, 0, sizeof(d));
	if ((r = yaml_doc_read_file(&b, path)) != 0 ||
	    (r = yaml_doc_parse(&d, b.ptr, b.len, path)) != 0)
		goto out;
	root = yaml_doc_root(&d);
	if (!root || root->type != YAML_MAPPING_NODE)
		goto out;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *v = YAML_DOC_VALUE(&d, p);

		if (strcmp(yaml_doc_scalar(YAML_DOC_KEY(&d, p)),
			   "model_list") || v->type != YAML_SEQUENCE_NODE)
			continue;
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++) {
			const yaml_node_t *m = yaml_doc_node(&d, *it);
			size_t idx = (size_t)(it -
					      v->data.sequence.items.start);
			char f[64];

			if (!m || m->type != YAML_MAPPING_NODE)
				continue;
			yaml_doc_field(f, sizeof(f),
				       "model_list[%zu].litellm_params", idx);
			for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
			     q < m->data.mapping.pairs.top; q++)
				if (!strcmp(yaml_doc_scalar(YAML_DOC_KEY(&d,
									 q)),
					    "litellm_params") &&
				    (r = params_env_names(&d,
							  YAML_DOC_VALUE(&d, q),
							  f, allow,
							  names)) != 0)
					goto out;
		}
	}
out:
	yaml_doc_release(&d);
	buf_release(&b);
	return r;
}
