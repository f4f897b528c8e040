/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compose_load.c - crs-compose.yaml into struct compose (contract §1)
 *
 * Parses run_env, docker_registry, oss_crs_infra, llm_config and one CRS
 * entry per other top-level key, then (compose_load only) each CRS's
 * oss-crs/crs.yaml. Syntax and field rules live here; checks that need
 * the machine or the target (CPUs, Dockerfiles, languages) are in
 * config_check.c. Relative paths are resolved against the compose file's
 * folder, never the current directory.
 */
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX 256

/*
 * Expand a leading "~" and resolve `p` against the compose folder. This
 * fixes an OSS-CRS defect: it resolved local_path and config_path against
 * the current directory, so a compose file only worked from one place.
 */
static char *resolve_path(const struct compose *c, const char *p)
{
	const char *home = getenv("HOME");
	char *joined, *abs;

	if ((p[0] == '~' && (p[1] == '/' || !p[1])) && home && *home)
		joined = xasprintf("%s%s", home, p + 1);
	else if (p[0] == '/')
		joined = xstrdup(p);
	else
		joined = xasprintf("%s/%s", c->dir, p);
	abs = fs_abspath(joined);
	free(joined);
	return abs;
}

/* `p` as the user reads it: relative to where they ran crs-ci. */
static char *shown_path(const struct compose *c, const char *p,
			const char *resolved)
{
	const char *slash = strrchr(c->path, '/');
	size_t n = strlen(p);

	if (p[0] == '/' || p[0] == '~')
		return xstrdup(resolved);
	while (p[0] == '.' && p[1] == '/') {	/* "./x" reads as "x" */
		p += 2 + strspn(p + 2, "/");
		n = strlen(p);
	}
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (!n || (n == 1 && p[0] == '.'))	/* the compose folder */
		return !slash ? xstrdup(".") : slash == c->path ?
			xstrdup("/") :
			xstrndup(c->path, (size_t)(slash - c->path));
	if (!slash)
		return xstrndup(p, n);
	return xasprintf("%.*s/%.*s", (int)(slash - c->path), c->path,
			 (int)n, p);
}

/* cpuset, memory or llm_budget: 1 when handled, 0 when not, or < 0. */
static int resource_field(struct yaml_doc *d, const yaml_node_t *k,
			  const yaml_node_t *v, const char *owner,
			  struct compose_resources *res)
{
	const char *key = yaml_doc_scalar(k);
	char field[FIELD_MAX];
	struct config_pos pos = yaml_doc_pos(d, k);
	struct config_cpu_range *ranges = NULL;
	size_t nr = 0;
	int r;

	yaml_doc_field(field, sizeof(field), "%s.%s", owner, key);
	if (!strcmp(key, "cpuset")) {
		if ((r = yaml_doc_get_trimmed(d, k, v, field,
						&res->cpuset)) != 0)
			return r;
		res->cpuset_pos = pos;
		r = config_cpuset_ranges(&ranges, &nr, res->cpuset);
		free(ranges);
	} else if (!strcmp(key, "memory")) {
		if ((r = yaml_doc_get_str(d, k, v, field, &res->memory)) != 0)
			return r;
		res->memory_pos = pos;
		r = config_parse_memory(res->memory, &res->memory_bytes);
	} else if (!strcmp(key, "llm_budget")) {
		char q[YAML_DOC_QUOTE_MAX];

		res->budget_pos = pos;
		if (yaml_doc_is_null(v))
			return 1;
		if ((r = yaml_doc_get_number(d, k, v, field,
					     &res->llm_budget)) != 0)
			return r;
		if (res->llm_budget <= 0) {
			res->llm_budget = -1;
			yaml_doc_quote(q, yaml_doc_scalar(v));
			return yaml_doc_error(d, k, field,
					      "%s is not more than 0 dollars",
					      q);
		}
		return 1;
	} else {
		return 0;
	}
	if (r != 0)
		return crs_error_prefix("%s:%d:%d: %s", pos.file, pos.line,
					pos.column, field);
	return 1;
}

static int resources_complete(struct yaml_doc *d, const yaml_node_t *at,
			      const char *owner,
			      const struct compose_resources *res)
{
	if (!res->cpuset)
		return yaml_doc_error(d, at, owner, "missing \"cpuset\"");
	if (!res->memory)
		return yaml_doc_error(d, at, owner, "missing \"memory\"");
	return 0;
}

static int parse_infra(struct yaml_doc *d, const yaml_node_t *k,
		       const yaml_node_t *v, struct compose *c)
{
	const char *owner = "oss_crs_infra";
	yaml_node_t *pk, *pv;
	int r;

	if ((r = yaml_doc_want_mapping(d, k, v, owner)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, NULL); i++) {
		r = resource_field(d, pk, pv, owner, &c->infra);
		if (r < 0)
			return r;
		if (r == 0)
			yaml_doc_warn_unknown(d, pk, owner);
	}
	return resources_complete(d, k, owner, &c->infra);
}

static int parse_source(struct yaml_doc *d, const yaml_node_t *k,
			const yaml_node_t *v, struct compose *c,
			struct compose_crs *e)
{
	char field[FIELD_MAX], sub[FIELD_MAX];
	const yaml_node_t *local_key = NULL, *url_key = NULL;
	yaml_node_t *pk, *pv;
	const char *key;
	char *local = NULL;
	int r = CRS_ERR;

	yaml_doc_field(field, sizeof(field), "%s.source", e->name);
	if (yaml_doc_is_null(v))
		return 0;	/* as if omitted: reported by the caller */
	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		yaml_doc_field(sub, sizeof(sub), "%s.%s", field, key);
		if (!strcmp(key, "local_path")) {
			local_key = pk;
			r = yaml_doc_get_str(d, pk, pv, sub, &local);
		} else if (!strcmp(key, "url")) {
			url_key = pk;
			r = yaml_doc_get_str(d, pk, pv, sub, &e->source_url);
		} else if (!strcmp(key, "ref")) {
			r = yaml_doc_get_str(d, pk, pv, sub, &e->source_ref);
		} else {
			yaml_doc_warn_unknown(d, pk, field);
			r = 0;
		}
		if (r != 0)
			goto out;
	}
	if (local && (e->source_url || e->source_ref)) {
		r = yaml_doc_error(d, k, field, "give local_path, or url and "
				   "ref, not both");
		goto out;
	}
	if (e->source_url && !e->source_ref) {
		r = yaml_doc_error(d, k, field, "url needs a ref");
		goto out;
	}
	if (!local && !e->source_url) {
		r = yaml_doc_error(d, k, field, "needs local_path, or url "
				   "and ref");
		goto out;
	}
	if (local) {
		if (!*local) {
			r = yaml_doc_error(d, local_key, field,
					   "local_path is empty");
			goto out;
		}
		e->source_local_path = resolve_path(c, local);
		e->source_local_path_shown =
			shown_path(c, local, e->source_local_path);
		e->source_pos = yaml_doc_pos(d, local_key);
	} else {
		e->source_pos = yaml_doc_pos(d, url_key);
	}
	r = 0;
out:
	free(local);
	return r;
}

static int parse_crs(struct yaml_doc *d, const yaml_node_t *k,
		     const yaml_node_t *v, struct compose *c,
		     struct compose_crs *e)
{
	char field[FIELD_MAX];
	yaml_node_t *pk, *pv;
	const char *key;
	int has_source = 0, r;

	e->res.llm_budget = -1;
	e->pos = yaml_doc_pos(d, k);
	e->name = xstrdup(yaml_doc_scalar(k));
	if ((r = yaml_doc_want_mapping(d, k, v, e->name)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		r = resource_field(d, pk, pv, e->name, &e->res);
		if (r < 0)
			return r;
		if (r == 1)
			continue;
		if (!strcmp(key, "source")) {
			if ((r = parse_source(d, pk, pv, c, e)) != 0)
				return r;
			has_source = !yaml_doc_is_null(pv);
		} else if (!strcmp(key, "additional_env")) {
			yaml_doc_field(field, sizeof(field),
				       "%s.additional_env", e->name);
			if ((r = yaml_doc_get_env(d, pk, pv, field,
						  &e->env)) != 0)
				return r;
		} else {
			yaml_doc_warn_unknown(d, pk, e->name);
		}
	}
	if ((r = resources_complete(d, k, e->name, &e->res)) != 0)
		return r;
	if (!has_source)
		return yaml_doc_error(d, k, e->name, "no source (crs-ci has "
				      "no registry; give source.local_path)");
	return 0;
}

/* Exactly one of `a` and `b` in an external block. */
static int one_of(struct yaml_doc *d, const yaml_node_t *at,
		  const char *field, const char *a_name, const char *a,
		  const char *b_name, const char *b)
{
	if (a && b)
		return yaml_doc_error(d, at, field, "give %s or %s, not both",
				      a_name, b_name);
	if (!a && !b)
		return yaml_doc_error(d, at, field, "needs %s or %s", a_name,
				      b_name);
	return 0;
}

static int parse_external(struct yaml_doc *d, const yaml_node_t *k,
			  const yaml_node_t *v, struct compose_llm *llm)
{
	const char *field = "llm_config.litellm.external";
	char sub[FIELD_MAX];
	yaml_node_t *pk, *pv;
	const char *key;
	int r;

	if (yaml_doc_is_null(v))
		return one_of(d, k, field, "url", NULL, "url_env", NULL);
	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		char **dst = NULL;

		if (!strcmp(key, "url"))
			dst = &llm->url;
		else if (!strcmp(key, "url_env"))
			dst = &llm->url_env;
		else if (!strcmp(key, "key"))
			dst = &llm->key;
		else if (!strcmp(key, "key_env"))
			dst = &llm->key_env;
		if (!dst) {
			yaml_doc_warn_unknown(d, pk, field);
			continue;
		}
		yaml_doc_field(sub, sizeof(sub), "%s.%s", field, key);
		if ((r = yaml_doc_get_str(d, pk, pv, sub, dst)) != 0)
			return r;
		if (dst == &llm->url_env)
			llm->url_env_pos = yaml_doc_pos(d, pv);
		else if (dst == &llm->key_env)
			llm->key_env_pos = yaml_doc_pos(d, pv);
	}
	if ((r = one_of(d, k, field, "url", llm->url, "url_env",
			llm->url_env)) != 0 ||
	    (r = one_of(d, k, field, "key", llm->key, "key_env",
			llm->key_env)) != 0)
		return r;
	return 0;
}

/* The LiteLLM config file at `v`: resolved, and placed at key `k`. */
static int get_config_path(struct yaml_doc *d, const yaml_node_t *k,
			   const yaml_node_t *v, const char *field,
			   struct compose *c)
{
	char *path = NULL;
	int r;

	if ((r = yaml_doc_get_str(d, k, v, field, &path)) != 0)
		return r;
	free(c->llm.config_path);
	c->llm.config_path = resolve_path(c, path);
	c->llm.config_path_pos = yaml_doc_pos(d, k);
	free(path);
	return 0;
}

static int parse_internal(struct yaml_doc *d, const yaml_node_t *k,
			  const yaml_node_t *v, struct compose *c)
{
	const char *field = "llm_config.litellm.internal";
	yaml_node_t *pk, *pv;
	const char *key;
	int r;

	if (yaml_doc_is_null(v))
		return 0;
	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		if (strcmp(key, "config_path")) {
			yaml_doc_warn_unknown(d, pk, field);
			continue;
		}
		if ((r = get_config_path(d, pk, pv, "llm_config.litellm."
					 "internal.config_path", c)) != 0)
			return r;
	}
	return 0;
}

static int parse_litellm(struct yaml_doc *d, const yaml_node_t *k,
			 const yaml_node_t *v, struct compose *c)
{
	const char *field = "llm_config.litellm";
	const yaml_node_t *internal_k = NULL, *internal_v = NULL;
	const yaml_node_t *external_k = NULL, *external_v = NULL;
	yaml_node_t *pk, *pv;
	const char *key;
	char q[YAML_DOC_QUOTE_MAX];
	int r;

	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		if (!strcmp(key, "mode")) {
			r = yaml_doc_get_str(d, pk, pv,
					     "llm_config.litellm.mode",
					     &c->llm.mode);
			if (r != 0)
				return r;
			if (strcmp(c->llm.mode, "internal") &&
			    strcmp(c->llm.mode, "external")) {
				yaml_doc_quote(q, c->llm.mode);
				return yaml_doc_error(d, pk,
						      "llm_config.litellm.mode",
						      "%s is not internal or "
						      "external", q);
			}
		} else if (!strcmp(key, "model_check")) {
			r = yaml_doc_get_bool(d, pk, pv,
					      "llm_config.litellm.model_check",
					      &c->llm.model_check);
			if (r != 0)
				return r;
		} else if (!strcmp(key, "internal")) {
			internal_k = pk;
			internal_v = pv;
		} else if (!strcmp(key, "external")) {
			external_k = pk;
			external_v = pv;
		} else {
			yaml_doc_warn_unknown(d, pk, field);
		}
	}
	if (!c->llm.mode)
		return yaml_doc_error(d, k, field, "missing \"mode\"");
	if (!strcmp(c->llm.mode, "internal")) {
		if (external_k)
			return yaml_doc_error(d, external_k,
					      "llm_config.litellm.external",
					      "not allowed with mode "
					      "\"internal\"");
		if (internal_k)
			return parse_internal(d, internal_k, internal_v, c);
		return 0;
	}
	if (internal_k)
		return yaml_doc_error(d, internal_k,
				      "llm_config.litellm.internal",
				      "not allowed with mode \"external\"");
	if (!external_k)
		return yaml_doc_error(d, k, field, "mode \"external\" needs "
				      "an external block");
	return parse_external(d, external_k, external_v, &c->llm);
}

static int parse_llm(struct yaml_doc *d, const yaml_node_t *k,
		     const yaml_node_t *v, struct compose *c)
{
	const yaml_node_t *litellm_k = NULL, *litellm_v = NULL;
	const yaml_node_t *legacy_k = NULL, *legacy_v = NULL;
	yaml_node_t *pk, *pv;
	const char *key;
	int r;

	if (yaml_doc_is_null(v))
		return 0;
	if ((r = yaml_doc_want_mapping(d, k, v, "llm_config")) != 0)
		return r;
	c->has_llm = 1;
	c->llm.model_check = 1;
	c->llm.pos = yaml_doc_pos(d, k);
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		if (!strcmp(key, "litellm")) {
			litellm_k = pk;
			litellm_v = pv;
		} else if (!strcmp(key, "litellm_config")) {
			legacy_k = pk;
			legacy_v = pv;
		} else {
			yaml_doc_warn_unknown(d, pk, "llm_config");
		}
	}
	if (litellm_k) {
		if (legacy_k)
			yaml_doc_warn(d, legacy_k, "llm_config",
				      "\"litellm_config\" ignored: "
				      "\"litellm\" is given");
		return parse_litellm(d, litellm_k, litellm_v, c);
	}
	if (!legacy_k)
		return yaml_doc_error(d, k, "llm_config",
				      "missing \"litellm\"");
	/* legacy form: {litellm_config: <path>} means internal mode */
	if ((r = get_config_path(d, legacy_k, legacy_v,
				 "llm_config.litellm_config", c)) != 0)
		return r;
	c->llm.mode = xstrdup("internal");
	return 0;
}

static int parse_root(struct yaml_doc *d, struct compose *c)
{
	yaml_node_t *root = yaml_doc_root(d), *k, *v;
	const char *key;
	int has_infra = 0, r;
	size_t n;
	char q[YAML_DOC_QUOTE_MAX];

	if (!root)
		return yaml_doc_error(d, NULL, NULL, "file is empty");
	if (root->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, root, NULL, "must be a mapping of "
				      "settings and crs entries");
	n = (size_t)(root->data.mapping.pairs.top -
		     root->data.mapping.pairs.start);
	c->crs = xcalloc(n ? n : 1, sizeof(*c->crs));
	for (size_t i = 0; yaml_doc_pair(d, root, i, &k, &v, &key); i++) {
		if (!strcmp(key, "run_env")) {
			if ((r = yaml_doc_get_str(d, k, v, "run_env",
						  &c->run_env)) != 0)
				return r;
			if (!strcmp(c->run_env, "azure"))
				return yaml_doc_error(d, k, "run_env",
						      "\"azure\" is not "
						      "supported");
			if (strcmp(c->run_env, "local")) {
				yaml_doc_quote(q, c->run_env);
				return yaml_doc_error(d, k, "run_env",
						      "%s is not local or "
						      "azure", q);
			}
		} else if (!strcmp(key, "docker_registry")) {
			if ((r = yaml_doc_get_str(d, k, v, "docker_registry",
						  &c->docker_registry)) != 0)
				return r;
		} else if (!strcmp(key, "oss_crs_infra")) {
			if ((r = parse_infra(d, k, v, c)) != 0)
				return r;
			has_infra = 1;
		} else if (!strcmp(key, "llm_config")) {
			if ((r = parse_llm(d, k, v, c)) != 0)
				return r;
		} else {
			if (!config_name_ok(key))
				return yaml_doc_error(d, k, NULL,
						      "%s is not a crs name "
						      "(1-128 letters, digits, "
						      "'-' or '_', starting "
						      "with a letter or digit)",
						      yaml_doc_quote(q, key));
			r = parse_crs(d, k, v, c, &c->crs[c->crs_nr++]);
			if (r != 0)
				return r;
		}
	}
	if (!c->run_env)
		return yaml_doc_error(d, root, NULL, "missing \"run_env\"");
	if (!c->docker_registry)
		return yaml_doc_error(d, root, NULL,
				      "missing \"docker_registry\"");
	if (!has_infra)
		return yaml_doc_error(d, root, NULL,
				      "missing \"oss_crs_infra\"");
	return 0;
}

int compose_parse(struct compose **out, const char *buf, size_t len,
		  const char *name)
{
	struct yaml_doc d;
	struct compose *c = xcalloc(1, sizeof(*c));
	char *abs = NULL, *slash;
	int r = CRS_ERR;

	*out = NULL;
	c->path = xstrdup(name);
	c->infra.llm_budget = -1;
	abs = fs_abspath(name);
	slash = strrchr(abs, '/');
	c->dir = slash == abs ? xstrdup("/") :
		xstrndup(abs, (size_t)(slash - abs));
	if ((r = yaml_doc_parse(&d, buf, len, c->path)) != 0 ||
	    (r = parse_root(&d, c)) != 0)
		goto out;
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	yaml_doc_release(&d);
	free(abs);
	compose_free(c);
	return r;
}

static int load_manifest(struct compose_crs *e)
{
	struct buf b = BUF_INIT;
	char *shown = NULL, *real = NULL;
	char q[YAML_DOC_QUOTE_MAX];
	char field[FIELD_MAX];
	int r = CRS_ERR;

	if (e->source_url) {
		yaml_doc_field(field, sizeof(field), "%s.source.url", e->name);
		return config_pos_error(&e->source_pos, field,
					"git sources are not supported yet; "
					"clone it and use source.local_path");
	}
	shown = xasprintf("%s/oss-crs/crs.yaml", e->source_local_path_shown);
	real = xasprintf("%s/oss-crs/crs.yaml", e->source_local_path);
	if (!fs_exists(real)) {
		yaml_doc_field(field, sizeof(field), "%s.source.local_path",
			 e->name);
		yaml_doc_quote(q, e->source_local_path_shown);
		r = config_pos_error(&e->source_pos, field,
				     "no oss-crs/crs.yaml in %s", q);
		goto out;
	}
	if ((r = yaml_doc_read_file(&b, real)) != 0 ||
	    (r = crs_manifest_parse(&e->manifest, b.ptr, b.len, shown)) != 0)
		goto out;
	free(e->manifest->root);
	e->manifest->root = xstrdup(e->source_local_path);
	r = 0;
out:
	buf_release(&b);
	free(shown);
	free(real);
	return r;
}

int compose_load(struct compose **out, const char *path)
{
	struct buf b = BUF_INIT;
	struct compose *c = NULL;
	int r = CRS_ERR;

	*out = NULL;
	if ((r = yaml_doc_read_file(&b, path)) != 0 ||
	    (r = compose_parse(&c, b.ptr, b.len, path)) != 0)
		goto out;
	for (size_t i = 0; i < c->crs_nr; i++)
		if ((r = load_manifest(&c->crs[i])) != 0)
			goto out;
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	buf_release(&b);
	compose_free(c);
	return r;
}
