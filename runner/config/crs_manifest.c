/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_manifest.c - a CRS's oss-crs/crs.yaml into struct manifest
 * (contract §2)
 *
 * Field rules only: enums, required keys, path shapes. Whether the
 * Dockerfiles exist and whether the CRS suits the target is decided in
 * config_check.c. Follows OSS-CRS's code where its docs disagree (§11.3):
 * prepare_phase and target_build_phase are optional, "patch" is a valid
 * input, "harness-gen" a valid type.
 */
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX 256

#define ARRAY_NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *const crs_types[] = {
	"bug-finding", "bug-fixing", "bug-fixing-ensemble",
	"bug-finding-triage", "seed-filter", "harness-gen",
};
static const char *const modes[] = { "full", "delta" };
static const char *const languages[] = {
	"c", "c++", "go", "rust", "python", "jvm", "swift", "javascript",
	"lua",
};
static const char *const sanitizers[] = { "address", "memory", "undefined" };
static const char *const architectures[] = { "x86_64", "i386" };
static const char *const engines[] = {
	"libfuzzer", "afl", "honggfuzz", "centipede",
};
static const char *const inputs[] = {
	"diff", "pov", "seed", "bug-candidate", "report", "patch",
};

static int enum_index(const char *const *set, size_t nr, const char *s)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(set[i], s))
			return (int)i;
	return -1;
}

/* "a, b or c" into out. */
static const char *enum_text(char *out, size_t outsz,
			     const char *const *set, size_t nr)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < nr && o < outsz; i++)
		o += (size_t)snprintf(out + o, outsz - o, "%s%s",
				      i == 0 ? "" : i + 1 == nr ? " or " :
				      ", ", set[i]);
	return out;
}

/* The node a list's item i came from: the item, or `at` for a scalar. */
static const yaml_node_t *item_node(struct yaml_doc *d, const yaml_node_t *at,
				    const yaml_node_t *v, size_t i)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return at;
	return yaml_doc_node(d, v->data.sequence.items.start[i]);
}

static void item_field(char *out, size_t outsz, const yaml_node_t *v,
		       const char *field, size_t i)
{
	if (v->type == YAML_SEQUENCE_NODE)
		snprintf(out, outsz, "%s[%zu]", field, i);
	else
		snprintf(out, outsz, "%s", field);
}

/*
 * A list of strings (or one string); each in `set` when set is given,
 * an environment name when `env_names`; duplicates dropped. `pos_out`,
 * when given, receives one position per kept item.
 */
static int get_list(struct yaml_doc *d, const yaml_node_t *at,
		    const yaml_node_t *v, const char *field,
		    const char *const *set, size_t set_nr, const char *what,
		    int env_names, char ***out, size_t *nr_out,
		    struct config_pos **pos_out)
{
	char **list = NULL;
	struct config_pos *pos = NULL;
	size_t nr = 0, kept = 0;
	char sub[FIELD_MAX], q[YAML_DOC_QUOTE_MAX], allowed[256];
	int r;

	*out = NULL;
	*nr_out = 0;
	if ((r = yaml_doc_get_str_list(d, at, v, field, &list, &nr)) != 0)
		return r;
	if (pos_out)
		pos = xcalloc(nr ? nr : 1, sizeof(*pos));
	for (size_t i = 0; i < nr; i++) {
		const yaml_node_t *n = item_node(d, at, v, i);
		int dup = 0;

		item_field(sub, sizeof(sub), v, field, i);
		if (set && enum_index(set, set_nr, list[i]) < 0) {
			r = yaml_doc_error(d, n, sub, "%s is not %s (%s)",
					   yaml_doc_quote(q, list[i]), what,
					   enum_text(allowed, sizeof(allowed),
						     set, set_nr));
			goto out;
		}
		if (env_names && !config_env_name_ok(list[i])) {
			r = yaml_doc_error(d, n, sub, "%s is not an "
					   "environment variable name",
					   yaml_doc_quote(q, list[i]));
			goto out;
		}
		if (!set && !env_names && !*list[i]) {
			r = yaml_doc_error(d, n, sub, "is empty");
			goto out;
		}
		for (size_t j = 0; j < kept; j++)
			dup |= !strcmp(list[j], list[i]);
		if (dup) {
			free(list[i]);
			list[i] = NULL;
			continue;
		}
		if (pos)
			pos[kept] = yaml_doc_pos(d, n);
		list[kept++] = list[i];
		if (kept - 1 != i)
			list[i] = NULL;
	}
	*out = list;
	*nr_out = kept;
	list = NULL; /* transferred */
	if (pos_out) {
		*pos_out = pos;
		pos = NULL; /* transferred */
	}
	r = 0;
out:
	for (size_t i = 0; list && i < nr; i++)	/* holes from dropped */
		free(list[i]);
	free(list);
	free(pos);
	return r;
}

static int check_dockerfile(struct yaml_doc *d, const yaml_node_t *at,
			    const char *field, const char *s)
{
	char q[YAML_DOC_QUOTE_MAX];

	if (strstr(s, "Dockerfile") || !strncmp(s, "oss-crs-infra:", 14))
		return 0;
	return yaml_doc_error(d, at, field, "%s is not a Dockerfile path "
			      "(it must contain \"Dockerfile\")",
			      yaml_doc_quote(q, s));
}

/*
 * dockerfile or additional_env, the keys a build step and a run module
 * share: 1 when `k` is one of them and was read, 0 when not, or < 0.
 */
static int image_field(struct yaml_doc *d, const yaml_node_t *k,
		       const yaml_node_t *v, const char *field,
		       char **dockerfile, struct config_pos *dockerfile_pos,
		       struct config_env_list *env)
{
	const char *key = yaml_doc_scalar(k);
	int r;

	if (!strcmp(key, "dockerfile")) {
		*dockerfile_pos = yaml_doc_pos(d, k);
		if ((r = yaml_doc_get_str(d, k, v, field, dockerfile)) != 0 ||
		    (r = check_dockerfile(d, k, field, *dockerfile)) != 0)
			return r;
		return 1;
	}
	if (!strcmp(key, "additional_env")) {
		if ((r = yaml_doc_get_env(d, k, v, field, env)) != 0)
			return r;
		return 1;
	}
	return 0;
}

/* A path under BUILD_OUT_DIR: relative and without ".." components. */
static int check_output(struct yaml_doc *d, const yaml_node_t *at,
			const char *field, const char *s)
{
	char q[YAML_DOC_QUOTE_MAX];

	if (!*s)
		return yaml_doc_error(d, at, field, "is empty");
	if (*s == '/')
		return yaml_doc_error(d, at, field, "%s is absolute; outputs "
				      "are relative to BUILD_OUT_DIR",
				      yaml_doc_quote(q, s));
	if (!safe_relpath_ok(s))
		return yaml_doc_error(d, at, field, "%s leaves "
				      "BUILD_OUT_DIR", yaml_doc_quote(q, s));
	return 0;
}

static int parse_build_step(struct yaml_doc *d, const yaml_node_t *item,
			    const char *field, struct manifest_build_step *b)
{
	char sub[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];
	yaml_node_t *k, *v;
	const char *key;
	int r;

	b->pos = yaml_doc_pos(d, item);
	if ((r = yaml_doc_want_mapping(d, item, item, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, item, i, &k, &v, &key); i++) {
		yaml_doc_field(sub, sizeof(sub), "%s.%s", field, key);
		r = image_field(d, k, v, sub, &b->dockerfile,
				&b->dockerfile_pos, &b->env);
		if (r < 0)
			return r;
		if (r == 1)
			continue;
		if (!strcmp(key, "name")) {
			if ((r = yaml_doc_get_str(d, k, v, sub,
						  &b->name)) != 0)
				return r;
			if (!config_name_ok(b->name))
				return yaml_doc_error(d, k, sub, "%s is not a "
						      "valid step name",
						      yaml_doc_quote(q,
								     b->name));
		} else if (!strcmp(key, "outputs")) {
			if (v->type == YAML_SCALAR_NODE && !yaml_doc_is_null(v))
				return yaml_doc_error(d, k, sub, "must be a "
						      "list");
			if ((r = yaml_doc_get_str_list(d, k, v, sub,
						       &b->outputs,
						       &b->outputs_nr)) != 0)
				return r;
			for (size_t i = 0; i < b->outputs_nr; i++) {
				char isub[FIELD_MAX];

				yaml_doc_field(isub, sizeof(isub), "%s[%zu]",
					       sub, i);
				r = check_output(d, item_node(d, k, v, i),
						 isub, b->outputs[i]);
				if (r != 0)
					return r;
			}
		} else {
			yaml_doc_warn_unknown(d, k, field);
		}
	}
	if (!b->name)
		return yaml_doc_error(d, item, field, "missing \"name\"");
	if (!b->dockerfile)
		return yaml_doc_error(d, item, field,
				      "missing \"dockerfile\"");
	if (!b->outputs)
		b->outputs = xcalloc(1, sizeof(*b->outputs));
	return 0;
}

static int parse_build_phase(struct yaml_doc *d, const yaml_node_t *k,
			     const yaml_node_t *v, struct manifest *m)
{
	const char *field = "target_build_phase";
	char sub[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];
	const yaml_node_t *list = v;
	yaml_node_t *pk, *pv;
	const char *key;
	size_t n;
	int r;

	if (yaml_doc_is_null(v))
		return 0;
	if (v->type == YAML_MAPPING_NODE) {	/* {builds: [...]} */
		list = NULL;
		for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key);
		     i++) {
			if (!strcmp(key, "builds")) {
				k = pk;
				list = pv;
			} else {
				yaml_doc_warn_unknown(d, pk, field);
			}
		}
		if (!list)
			return yaml_doc_error(d, k, field, "missing "
					      "\"builds\"");
		field = "target_build_phase.builds";
		if (yaml_doc_is_null(list))
			return 0;
	}
	if (list->type != YAML_SEQUENCE_NODE)
		return yaml_doc_error(d, k, field, "must be a list of build "
				      "steps, not %s", yaml_doc_kind(list));
	n = (size_t)(list->data.sequence.items.top -
		     list->data.sequence.items.start);
	m->builds = xcalloc(n ? n : 1, sizeof(*m->builds));
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *item = item_node(d, k, list, i);
		struct manifest_build_step *b = &m->builds[m->builds_nr++];

		yaml_doc_field(sub, sizeof(sub), "%s[%zu]", field, i);
		if ((r = parse_build_step(d, item, sub, b)) != 0)
			return r;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(m->builds[j].name, b->name))
				continue;
			yaml_doc_quote(q, b->name);
			return yaml_doc_error(d, item, sub, "step name %s is "
					      "already used at line %d", q,
					      m->builds[j].pos.line);
		}
	}
	return 0;
}

static int parse_module(struct yaml_doc *d, const yaml_node_t *k,
			const yaml_node_t *v, struct manifest_run_module *mod)
{
	char field[FIELD_MAX], sub[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];
	const char *name = yaml_doc_scalar(k), *key;
	yaml_node_t *pk, *pv;
	int r;

	mod->name = xstrdup(name);
	mod->pos = yaml_doc_pos(d, k);
	mod->target_dependent = 1;
	yaml_doc_field(field, sizeof(field), "crs_run_phase.%s", name);
	if (!config_name_ok(name))
		return yaml_doc_error(d, k, "crs_run_phase", "%s is not a "
				      "valid module name",
				      yaml_doc_quote(q, name));
	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		yaml_doc_field(sub, sizeof(sub), "%s.%s", field, key);
		r = image_field(d, pk, pv, sub, &mod->dockerfile,
				&mod->dockerfile_pos, &mod->env);
		if (r < 0)
			return r;
		if (r == 1)
			continue;
		if (!strcmp(key, "target_dependent")) {
			if (yaml_doc_is_null(pv))
				continue;
			if ((r = yaml_doc_get_bool(d, pk, pv, sub,
					&mod->target_dependent)) != 0)
				return r;
		} else {
			yaml_doc_warn_unknown(d, pk, field);
		}
	}
	if (!mod->dockerfile)
		return yaml_doc_error(d, k, field, "missing \"dockerfile\"");
	return 0;
}

static int parse_run_phase(struct yaml_doc *d, const yaml_node_t *k,
			   const yaml_node_t *v, struct manifest *m)
{
	yaml_node_t *pk, *pv;
	size_t n;
	int r;

	m->run_phase_pos = yaml_doc_pos(d, k);
	if (yaml_doc_is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, k, "crs_run_phase", "must be a "
				      "mapping of module names to modules, "
				      "not %s", yaml_doc_kind(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	m->modules = xcalloc(n ? n : 1, sizeof(*m->modules));
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, NULL); i++) {
		r = parse_module(d, pk, pv, &m->modules[m->modules_nr++]);
		if (r != 0)
			return r;
	}
	return 0;
}

static int parse_prepare(struct yaml_doc *d, const yaml_node_t *k,
			 const yaml_node_t *v, struct manifest *m)
{
	char q[YAML_DOC_QUOTE_MAX];
	yaml_node_t *pk, *pv;
	const char *key;
	size_t n;
	int r;

	if (yaml_doc_is_null(v))
		return 0;
	if ((r = yaml_doc_want_mapping(d, k, v, "prepare_phase")) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		if (strcmp(key, "hcl")) {
			yaml_doc_warn_unknown(d, pk, "prepare_phase");
			continue;
		}
		if ((r = yaml_doc_get_str(d, pk, pv, "prepare_phase.hcl",
					  &m->prepare_hcl)) != 0)
			return r;
		n = strlen(m->prepare_hcl);
		if (n < 4 || strcmp(m->prepare_hcl + n - 4, ".hcl"))
			return yaml_doc_error(d, pk, "prepare_phase.hcl",
					      "%s does not end in \".hcl\"",
					      yaml_doc_quote(q,
							     m->prepare_hcl));
	}
	if (!m->prepare_hcl)
		return yaml_doc_error(d, k, "prepare_phase",
				      "missing \"hcl\"");
	return 0;
}

/* One supported_target field: a non-empty list of values from `set`. */
static int target_field(struct yaml_doc *d, const yaml_node_t *k,
			const yaml_node_t *v, const char *const *set,
			size_t set_nr, const char *what, char ***out,
			size_t *nr_out, struct config_pos *pos)
{
	char field[FIELD_MAX];
	int r;

	yaml_doc_field(field, sizeof(field), "supported_target.%s",
		 yaml_doc_scalar(k));
	*pos = yaml_doc_pos(d, k);
	if ((r = get_list(d, k, v, field, set, set_nr, what, 0, out, nr_out,
			  NULL)) != 0)
		return r;
	if (!*nr_out)
		return yaml_doc_error(d, k, field, "is empty");
	return 0;
}

static int parse_supported(struct yaml_doc *d, const yaml_node_t *k,
			   const yaml_node_t *v, struct manifest *m)
{
	const char *field = "supported_target", *key;
	yaml_node_t *pk, *pv;
	int r = 0;

	m->supported_pos = yaml_doc_pos(d, k);
	if ((r = yaml_doc_want_mapping(d, k, v, field)) != 0)
		return r;
	for (size_t i = 0; yaml_doc_pair(d, v, i, &pk, &pv, &key); i++) {
		if (!strcmp(key, "mode"))
			r = target_field(d, pk, pv, modes, ARRAY_NR(modes),
					 "a mode", &m->modes, &m->modes_nr,
					 &m->modes_pos);
		else if (!strcmp(key, "language"))
			r = target_field(d, pk, pv, languages,
					 ARRAY_NR(languages), "a language",
					 &m->languages, &m->languages_nr,
					 &m->languages_pos);
		else if (!strcmp(key, "sanitizer"))
			r = target_field(d, pk, pv, sanitizers,
					 ARRAY_NR(sanitizers), "a sanitizer",
					 &m->sanitizers, &m->sanitizers_nr,
					 &m->sanitizers_pos);
		else if (!strcmp(key, "architecture"))
			r = target_field(d, pk, pv, architectures,
					 ARRAY_NR(architectures),
					 "an architecture", &m->architectures,
					 &m->architectures_nr,
					 &m->architectures_pos);
		else if (!strcmp(key, "fuzzing_engine"))
			r = target_field(d, pk, pv, engines, ARRAY_NR(engines),
					 "a fuzzing engine", &m->engines,
					 &m->engines_nr, &m->engines_pos);
		else
			yaml_doc_warn_unknown(d, pk, field);
		if (r != 0)
			return r;
	}
	if (!m->modes)
		return yaml_doc_error(d, k, field, "missing \"mode\"");
	if (!m->languages)
		return yaml_doc_error(d, k, field, "missing \"language\"");
	if (!m->sanitizers)
		return yaml_doc_error(d, k, field, "missing \"sanitizer\"");
	if (!m->architectures)
		return yaml_doc_error(d, k, field,
				      "missing \"architecture\"");
	if (!m->engines) {	/* default: every engine */
		m->engines = xcalloc(ARRAY_NR(engines) + 1,
				     sizeof(*m->engines));
		for (size_t i = 0; i < ARRAY_NR(engines); i++)
			m->engines[i] = xstrdup(engines[i]);
		m->engines_nr = ARRAY_NR(engines);
		m->engines_pos = m->supported_pos;
	}
	return 0;
}

static int parse_types(struct yaml_doc *d, const yaml_node_t *k,
		       const yaml_node_t *v, struct manifest *m)
{
	char **list = NULL;
	size_t nr = 0;
	int r;

	if ((r = get_list(d, k, v, "type", crs_types, ARRAY_NR(crs_types),
			  "a crs type", 0, &list, &nr, NULL)) != 0)
		return r;
	for (size_t i = 0; i < nr; i++)
		m->types |= 1u << enum_index(crs_types, ARRAY_NR(crs_types),
					     list[i]);
	config_strv_free(list);
	if (!m->types)
		return yaml_doc_error(d, k, "type", "is empty");
	return 0;
}

static int parse_root(struct yaml_doc *d, struct manifest *m)
{
	yaml_node_t *root = yaml_doc_root(d), *k, *v;
	const char *key;
	int has_type = 0, has_run = 0, r = 0;

	if (!root)
		return yaml_doc_error(d, NULL, NULL, "file is empty");
	if (root->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, root, NULL, "must be a mapping");
	for (size_t i = 0; yaml_doc_pair(d, root, i, &k, &v, &key); i++) {
		if (!strcmp(key, "name")) {
			m->name_pos = yaml_doc_pos(d, k);
			r = yaml_doc_get_str(d, k, v, "name", &m->name);
		} else if (!strcmp(key, "type")) {
			r = parse_types(d, k, v, m);
			has_type = 1;
		} else if (!strcmp(key, "version")) {
			if ((r = yaml_doc_get_trimmed(d, k, v, "version",
						      &m->version)) != 0)
				return r;
			if (!*m->version)
				return yaml_doc_error(d, k, "version",
						      "is empty");
		} else if (!strcmp(key, "docker_registry")) {
			char *s = NULL;	/* informational only */

			r = yaml_doc_get_str(d, k, v, "docker_registry", &s);
			free(s);
		} else if (!strcmp(key, "prepare_phase")) {
			r = parse_prepare(d, k, v, m);
		} else if (!strcmp(key, "target_build_phase")) {
			r = parse_build_phase(d, k, v, m);
		} else if (!strcmp(key, "crs_run_phase")) {
			r = parse_run_phase(d, k, v, m);
			has_run = 1;
		} else if (!strcmp(key, "supported_target")) {
			r = parse_supported(d, k, v, m);
		} else if (!strcmp(key, "required_llms")) {
			r = get_list(d, k, v, "required_llms", NULL, 0, NULL,
				     0, &m->required_llms,
				     &m->required_llms_nr, NULL);
		} else if (!strcmp(key, "required_inputs")) {
			r = get_list(d, k, v, "required_inputs", inputs,
				     ARRAY_NR(inputs), "an input type", 0,
				     &m->required_inputs,
				     &m->required_inputs_nr, NULL);
		} else if (!strcmp(key, "required_envs")) {
			r = get_list(d, k, v, "required_envs", NULL, 0, NULL,
				     1, &m->required_envs,
				     &m->required_envs_nr,
				     &m->required_envs_pos);
		} else {
			yaml_doc_warn_unknown(d, k, NULL);
		}
		if (r != 0)
			return r;
	}
	if (!m->name)
		return yaml_doc_error(d, root, NULL, "missing \"name\"");
	if (!has_type)
		return yaml_doc_error(d, root, NULL, "missing \"type\"");
	if (!m->version)
		return yaml_doc_error(d, root, NULL, "missing \"version\"");
	if (!has_run)
		return yaml_doc_error(d, root, NULL,
				      "missing \"crs_run_phase\"");
	if (!m->languages)
		return yaml_doc_error(d, root, NULL,
				      "missing \"supported_target\"");
	return 0;
}

/* The CRS root: the parent of the folder holding crs.yaml. */
static char *manifest_root(const char *path)
{
	char *abs = fs_abspath(path);
	char *slash;

	for (int i = 0; i < 2; i++) {
		slash = strrchr(abs, '/');
		if (slash == abs) {
			abs[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	return abs;
}

int manifest_parse(struct manifest **out, const char *buf,
		   size_t len, const char *name)
{
	struct manifest *m = xcalloc(1, sizeof(*m));
	struct yaml_doc d;
	int r = CRS_ERR;

	*out = NULL;
	m->path = xstrdup(name);
	m->root = manifest_root(name);
	if ((r = yaml_doc_parse(&d, buf, len, m->path)) != 0 ||
	    (r = parse_root(&d, m)) != 0)
		goto out;
	*out = m;
	m = NULL; /* transferred */
	r = 0;
out:
	yaml_doc_release(&d);
	manifest_free(m);
	return r;
}

int manifest_load(struct manifest **out, const char *path)
{
	struct buf b = BUF_INIT;
	int r;

	*out = NULL;
	if ((r = yaml_doc_read_file(&b, path)) == 0)
		r = manifest_parse(out, b.ptr, b.len, path);
	buf_release(&b);
	return r;
}
