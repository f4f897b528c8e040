/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_free.c - freeing and looking up the config structs
 *
 * Every function here accepts NULL and cannot fail, so loaders free a
 * half-built struct from their one `out:` label.
 */
#include "runner/config/config.h"

#include <stdlib.h>
#include <string.h>

void config_strv_free(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* Free the items of an env list and reset it. Accepts NULL. */
static void config_env_list_release(struct config_env_list *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->nr; i++) {
		free(env->items[i].key);
		free(env->items[i].value);
	}
	free(env->items);
	env->items = NULL;
	env->nr = 0;
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->root);
	free(m->name);
	free(m->version);
	free(m->prepare_hcl);
	for (size_t i = 0; i < m->builds_nr; i++) {
		free(m->builds[i].name);
		free(m->builds[i].dockerfile);
		config_strv_free(m->builds[i].outputs);
		config_env_list_release(&m->builds[i].env);
	}
	free(m->builds);
	for (size_t i = 0; i < m->modules_nr; i++) {
		free(m->modules[i].name);
		free(m->modules[i].dockerfile);
		config_env_list_release(&m->modules[i].env);
	}
	free(m->modules);
	config_strv_free(m->modes);
	config_strv_free(m->languages);
	config_strv_free(m->sanitizers);
	config_strv_free(m->architectures);
	config_strv_free(m->engines);
	config_strv_free(m->required_llms);
	config_strv_free(m->required_inputs);
	config_strv_free(m->required_envs);
	free(m->required_envs_pos);
	free(m);
}

static void resources_release(struct compose_resources *res)
{
	free(res->cpuset);
	free(res->memory);
}

void compose_free(struct compose *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->crs_nr; i++) {
		struct compose_crs *e = &c->crs[i];

		free(e->name);
		resources_release(&e->res);
		free(e->source_local_path);
		free(e->source_local_path_shown);
		free(e->source_url);
		free(e->source_ref);
		free(e->source_subdir);
		free(e->source_commit);
		free(e->registry_file);
		config_env_list_release(&e->env);
		manifest_free(e->manifest);
	}
	free(c->crs);
	resources_release(&c->infra);
	free(c->llm.mode);
	free(c->llm.config_path);
	free(c->llm.url);
	free(c->llm.url_env);
	if (c->llm.key)	/* a secret: do not leave it in freed memory */
		explicit_bzero(c->llm.key, strlen(c->llm.key));
	free(c->llm.key);
	free(c->llm.key_env);
	free(c->path);
	free(c->dir);
	free(c->run_env);
	free(c->docker_registry);
	free(c);
}

void project_config_free(struct project_config *p)
{
	if (!p)
		return;
	free(p->dir);
	free(p->name);
	free(p->language);
	config_strv_free(p->sanitizers);
	config_strv_free(p->engines);
	config_strv_free(p->architectures);
	free(p->main_repo);
	free(p->base_os_version);
	free(p);
}
