/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compose_load.c - crs-compose.yaml into struct compose (contract §1)
 *
 * Syntax and field rules; checks that need the machine or the target
 * are in config_check.c. A cloned CRS is content: no link is followed.
 *
 * Details: docs/internals.md.
 */
#include "runner/config/config.h"
#include "runner/config/crs_registry.h"
#include "runner/config/crs_source.h"
#include "runner/config/yaml_doc.h"
#include "runner/config/crs_git.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIELD_MAX 256

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
			yaml_doc_field(field, sizeof(field), "%s.source",
				       e->name);
			if ((r = config_parse_source(d, pk, pv, c->dir,
						     c->path, field, e)) != 0)
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
	/* no source: a registry name, looked up by compose_load() */
	e->source_kind = !has_source ? COMPOSE_SOURCE_REGISTRY :
		e->source_url ? COMPOSE_SOURCE_GIT : COMPOSE_SOURCE_LOCAL;
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
	c->llm.config_path = config_resolve_path(c->dir, path);
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

CRS_TESTABLE int compose_parse(struct compose **out, const char *buf, size_t len,
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

/*
 * Say where a git or registry source went wrong: at `pos` (the source's
 * url key, in the compose or the registry file), naming the entry; for a
 * registry entry the compose position comes first.
 */
static int source_error(const struct compose_crs *e, int code,
			const char *msg)
{
	char field[FIELD_MAX];

	yaml_doc_field(field, sizeof(field), "%s.source.url", e->name);
	if (e->source_kind != COMPOSE_SOURCE_REGISTRY) {
		config_pos_error(&e->source_pos, field, "%s", msg);
	} else {
		config_pos_error(&e->source_pos, "source.url", "%s", msg);
		crs_error_prefix("%s:%d:%d: %s: registry entry", e->pos.file,
				 e->pos.line, e->pos.column, e->name);
	}
	return code;
}

/* subdir inside the checkout: folders all the way, no link followed. */
static int check_subdir(const struct compose_crs *e, const char *tree)
{
	char *p = xstrdup(e->source_subdir), *tok, *save = NULL;
	struct buf at = BUF_INIT;
	char msg[512];
	struct stat st;
	int r = 0, missing;

	buf_adds(&at, tree);
	for (tok = strtok_r(p, "/", &save); tok && r == 0;
	     tok = strtok_r(NULL, "/", &save)) {
		buf_addch(&at, '/');
		buf_adds(&at, tok);
		missing = lstat(at.ptr, &st) != 0;
		if (!missing && S_ISDIR(st.st_mode))
			continue;
		snprintf(msg, sizeof(msg), "source.subdir \"%s\": \"%s\" is "
			 "%s in commit %s", e->source_subdir, tok,
			 missing ? "missing" : S_ISLNK(st.st_mode) ?
			 "a link (not followed)" : "not a folder",
			 e->source_commit);
		r = source_error(e, CRS_ECONFIG, msg);
	}
	free(p);
	buf_release(&at);
	return r;
}

/* A git source: checked out in the cache; the root is the checkout. */
static int fetch_git(struct compose_crs *e, const struct compose_sources *src)
{
	struct crs_git_checkout co = { 0 };
	char msg[1024], *shown = crs_git_url_shown(e->source_url);
	int r;

	if (!src || !src->src_cache) {
		r = source_error(e, CRS_ECONFIG, "git sources need a cache "
				 "folder (--cache-dir or --work-dir)");
		goto out;
	}
	r = crs_git_checkout(&co, e->source_url, e->source_ref,
			    src->src_cache);
	if (r == CRS_ENOTFOUND || r == CRS_ECONFIG) {
		snprintf(msg, sizeof(msg), "%s", crs_error_last());
		r = source_error(e, CRS_ECONFIG, msg);
		goto out;
	}
	if (r != 0) {
		crs_error_prefix("crs '%s': %s", e->name, shown);
		goto out;
	}
	log_info("crs %s: %s at %s: %s commit %s", e->name, shown,
		 e->source_ref, co.reused ? "reused the checkout of" :
		 "cloned", co.commit);
	e->source_commit = xstrdup(co.commit);
	if (e->source_subdir && (r = check_subdir(e, co.tree)) != 0)
		goto out;
	free(e->source_local_path);
	free(e->source_local_path_shown);
	e->source_local_path = e->source_subdir ?
		xasprintf("%s/%s", co.tree, e->source_subdir) :
		xstrdup(co.tree);
	e->source_local_path_shown = xstrdup(e->source_local_path);
	r = 0;
out:
	crs_git_checkout_release(&co);
	free(shown);
	return r;
}

/*
 * <root>/oss-crs/crs.yaml, read without following a link below the root
 * (a git checkout is CRS content; the root itself is configuration).
 */
static int read_manifest(struct buf *b, const struct compose_crs *e,
			 const char *shown)
{
	char q[YAML_DOC_QUOTE_MAX], field[FIELD_MAX];
	int root = -1, dir = -1, r = CRS_ERR;

	yaml_doc_field(field, sizeof(field), "%s.source.%s", e->name,
		       e->source_url ? "url" : "local_path");
	yaml_doc_quote(q, e->source_local_path_shown);
	root = open(e->source_local_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root >= 0)
		dir = openat(root, "oss-crs", O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0) {
		r = config_pos_error(&e->source_pos, field, "no oss-crs/crs.yaml"
				     " in %s%s", q, errno == ELOOP ||
				     errno == ENOTDIR ? " (oss-crs is not a "
				     "folder; links are not followed)" : "");
		goto out;
	}
	r = fs_read_regular_at(b, dir, "crs.yaml", shown, CONFIG_FILE_MAX,
			       NULL);
	if (r == CRS_ENOTFOUND)
		r = config_pos_error(&e->source_pos, field, "no oss-crs/crs.yaml"
				     " in %s", q);
	else if (r != 0) {	/* a link, a FIFO, too big: config error */
		char why[512];

		snprintf(why, sizeof(why), "%s", crs_error_last());
		r = crs_error_set(CRS_ECONFIG, "%s (links are not followed)",
				  why);
	}
out:
	if (dir >= 0)
		close(dir);
	if (root >= 0)
		close(root);
	return r;
}

static int load_manifest(struct compose_crs *e,
			 const struct compose_sources *src)
{
	struct buf b = BUF_INIT;
	char *shown = NULL;
	int r = CRS_ERR;

	if (e->source_kind == COMPOSE_SOURCE_REGISTRY) {
		if ((r = crs_registry_resolve(e, src ? src->registry_dir :
					      NULL)) != 0)
			goto out;
		log_info("crs %s: registry entry %s", e->name,
			 e->registry_file);
	}
	if (e->source_url && (r = fetch_git(e, src)) != 0)
		goto out;
	shown = xasprintf("%s/oss-crs/crs.yaml", e->source_local_path_shown);
	if ((r = read_manifest(&b, e, shown)) != 0 ||
	    (r = manifest_parse(&e->manifest, b.ptr, b.len, shown)) != 0)
		goto out;
	free(e->manifest->root);
	e->manifest->root = xstrdup(e->source_local_path);
	r = 0;
out:
	buf_release(&b);
	free(shown);
	return r;
}

int compose_load(struct compose **out, const char *path,
		 const struct compose_sources *src)
{
	struct buf b = BUF_INIT;
	struct compose *c = NULL;
	int r = CRS_ERR;

	*out = NULL;
	if ((r = yaml_doc_read_file(&b, path)) != 0 ||
	    (r = compose_parse(&c, b.ptr, b.len, path)) != 0)
		goto out;
	for (size_t i = 0; i < c->crs_nr; i++)
		if ((r = load_manifest(&c->crs[i], src)) != 0)
			goto out;
	*out = c;
	c = NULL; /* transferred */
	r = 0;
out:
	buf_release(&b);
	compose_free(c);
	return r;
}
