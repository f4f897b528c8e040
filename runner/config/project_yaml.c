/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project_yaml.c - an OSS-Fuzz project's project.yaml (contract §2.8)
 *
 * Reads only what crs-ci builds with: language, sanitizers, fuzzing
 * engines, architectures, main_repo and base_os_version; OSS-Fuzz's many
 * other keys (homepage, auto_ccs, ...) pass without a warning. Stricter
 * than OSS-CRS on purpose: a present but malformed file is an error, not
 * a silent fall back to the defaults.
 */
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIELD_MAX 256


static char **one(const char *s)
{
	char **v = xcalloc(2, sizeof(*v));

	v[0] = xstrdup(s);
	return v;
}

static void set_list(char ***dst, size_t *dst_nr, char **v, size_t nr)
{
	config_strv_free(*dst);
	*dst = v;
	*dst_nr = nr;
}

/*
 * sanitizers, fuzzing_engines, architectures: a list whose items are
 * names or one-key mappings (`- memory: {experimental: true}`), where the
 * key is the name. An empty list keeps the default.
 */
static int name_list(struct yaml_doc *d, const yaml_node_t *k,
		     const yaml_node_t *v, const char *field, char ***dst,
		     size_t *dst_nr)
{
	char sub[FIELD_MAX];
	char **list = NULL;
	size_t n, nr = 0;
	int r = CRS_ERR;

	if (yaml_doc_is_null(v))
		return 0;
	if (v->type == YAML_SCALAR_NODE) {
		if ((r = yaml_doc_get_str_list(d, k, v, field, &list,
					       &nr)) != 0)
			return r;
		set_list(dst, dst_nr, list, nr);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_doc_error(d, k, field, "must be a list");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	list = xcalloc(st_add(n, 1), sizeof(*list));
	for (; nr < n; nr++) {
		yaml_node_t *item = yaml_doc_node(d,
				v->data.sequence.items.start[nr]);
		const yaml_node_t *name = item;

		yaml_doc_field(sub, sizeof(sub), "%s[%zu]", field, nr);
		if (item->type == YAML_MAPPING_NODE) {
			if (item->data.mapping.pairs.top -
			    item->data.mapping.pairs.start != 1) {
				r = yaml_doc_error(d, item, sub, "must be a "
						   "name or a mapping with one "
						   "key");
				goto out;
			}
			name = YAML_DOC_KEY(d, item->data.mapping.pairs.start);
		}
		if ((r = yaml_doc_get_str(d, item, name, sub,
					  &list[nr])) != 0)
			goto out;
		if (!*list[nr]) {
			r = yaml_doc_error(d, item, sub, "is empty");
			goto out;
		}
	}
	if (nr)
		set_list(dst, dst_nr, list, nr);
	else
		free(list);
	list = NULL; /* transferred */
	r = 0;
out:
	config_strv_free(list);
	return r;
}

static int parse_root(struct yaml_doc *d, struct project_config *p)
{
	yaml_node_t *root = yaml_doc_root(d), *k, *v;
	const char *key;
	char *language = NULL;
	int has_language = 0, r = 0;

	if (!root)
		return yaml_doc_error(d, NULL, NULL, "file is empty (it needs "
				      "at least \"language\")");
	if (root->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, root, NULL, "must be a mapping");
	for (size_t i = 0; yaml_doc_pair(d, root, i, &k, &v, &key); i++) {
		if (!strcmp(key, "language")) {
			if ((r = yaml_doc_get_str(d, k, v, "language",
						  &language)) != 0)
				goto out;
			if (!*language) {
				r = yaml_doc_error(d, k, "language",
						   "is empty");
				goto out;
			}
			free(p->language);
			p->language = language;
			language = NULL; /* transferred */
			has_language = 1;
		} else if (!strcmp(key, "sanitizers")) {
			r = name_list(d, k, v, "sanitizers", &p->sanitizers,
				      &p->sanitizers_nr);
		} else if (!strcmp(key, "fuzzing_engines")) {
			r = name_list(d, k, v, "fuzzing_engines", &p->engines,
				      &p->engines_nr);
		} else if (!strcmp(key, "architectures")) {
			r = name_list(d, k, v, "architectures",
				      &p->architectures, &p->architectures_nr);
		} else if (!strcmp(key, "main_repo")) {
			if (yaml_doc_is_null(v))
				continue;
			free(p->main_repo);
			p->main_repo = NULL;
			r = yaml_doc_get_str(d, k, v, "main_repo",
					     &p->main_repo);
		} else if (!strcmp(key, "base_os_version")) {
			char *s = NULL;

			if ((r = yaml_doc_get_str(d, k, v, "base_os_version",
						  &s)) != 0)
				goto out;
			free(p->base_os_version);
			p->base_os_version = s;
		}
		if (r != 0)
			goto out;
	}
	if (!has_language)
		r = yaml_doc_error(d, root, NULL, "missing \"language\"");
out:
	free(language);
	return r;
}

static struct project_config *project_new(const char *dir)
{
	struct project_config *p = xcalloc(1, sizeof(*p));
	const char *slash;

	p->dir = fs_abspath(dir);
	slash = strrchr(p->dir, '/');
	p->name = xstrdup(slash && slash[1] ? slash + 1 : p->dir);
	p->language = xstrdup("c");
	p->sanitizers = one("address");
	p->sanitizers_nr = 1;
	p->engines = one("libfuzzer");
	p->engines_nr = 1;
	p->architectures = one("x86_64");
	p->architectures_nr = 1;
	p->base_os_version = xstrdup("legacy");
	return p;
}

static int project_parse_into(struct project_config *p, const char *buf,
			      size_t len, const char *name)
{
	struct yaml_doc d;
	int r;

	p->from_file = 1;
	if ((r = yaml_doc_parse(&d, buf, len, name)) == 0)
		r = parse_root(&d, p);
	yaml_doc_release(&d);
	return r;
}

CRS_TESTABLE int project_config_parse(struct project_config **out, const char *buf,
			 size_t len, const char *name)
{
	struct project_config *p = NULL;
	const char *slash = strrchr(name, '/');
	char *dir = slash ? xstrndup(name, (size_t)(slash - name)) :
		xstrdup(".");
	int r;

	*out = NULL;
	p = project_new(slash == name ? "/" : dir);
	if ((r = project_parse_into(p, buf, len, name)) == 0) {
		*out = p;
		p = NULL; /* transferred */
	}
	free(dir);
	project_config_free(p);
	return r;
}

int project_config_load(struct project_config **out, const char *dir)
{
	struct project_config *p = NULL;
	struct buf b = BUF_INIT;
	struct stat st;
	char *path = NULL;
	int r = CRS_ERR;

	*out = NULL;
	if (stat(dir, &st) != 0) {
		r = crs_error_set(CRS_ECONFIG, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		r = crs_error_set(CRS_ECONFIG, "%s: not a folder", dir);
		goto out;
	}
	path = xasprintf("%s/project.yaml", dir);
	if (!fs_exists(path))
		p = project_new(dir);
	else if ((r = yaml_doc_read_file(&b, path)) != 0 ||
		 (r = project_config_parse(&p, b.ptr, b.len, path)) != 0)
		goto out;	/* path's last '/' is the one after dir */
	*out = p;
	p = NULL; /* transferred */
	r = 0;
out:
	buf_release(&b);
	free(path);
	project_config_free(p);
	return r;
}

const char *project_config_sanitizer(const struct project_config *p)
{
	for (size_t i = 0; i < p->sanitizers_nr; i++)
		if (!strcmp(p->sanitizers[i], "address"))
			return p->sanitizers[i];
	return p->sanitizers_nr ? p->sanitizers[0] : "address";
}

const char *project_config_engine(const struct project_config *p)
{
	for (size_t i = 0; i < p->engines_nr; i++)
		if (!strcmp(p->engines[i], "libfuzzer"))
			return p->engines[i];
	return p->engines_nr ? p->engines[0] : "libfuzzer";
}

const char *project_config_architecture(const struct project_config *p)
{
	return p->architectures_nr ? p->architectures[0] : "x86_64";
}
