/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_registry.c - registry/<name>.yaml: where a CRS named only by its
 * compose key comes from
 *
 * A registry file holds name, description and type (informational, as
 * in OSS-CRS) and a source block, parsed by crs_source.c exactly as in a
 * compose entry. The registry is trusted configuration like the compose
 * (it ships with crs-ci or is chosen on the command line), so it is read
 * as a config file; what it points at is CRS content.
 */
#include "runner/config/crs_registry.h"
#include "runner/config/config.h"
#include "runner/config/crs_source.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *crs_registry_dir(const char *opt, const char *env, const char *exe)
{
	char *self = NULL, *copy, *dir, *p;

	if (opt)
		return fs_abspath(opt);
	if (env && *env)
		return fs_abspath(env);
	if (!exe)
		exe = self = fs_self_exe("crs-ci");
	copy = xstrdup(exe);
	free(self);
	dir = fs_abspath(dirname(copy));
	free(copy);
	p = xasprintf("%s/../registry", dir);
	copy = fs_abspath(p);	/* "bin/.." even when bin/ is missing */
	free(p);
	if (!fs_exists(copy)) {
		free(copy);
		p = xasprintf("%s/../share/crs-ci/registry", dir);
		copy = fs_abspath(p);
		free(p);
	}
	free(dir);
	return copy;
}

static int parse_registry(struct yaml_doc *d, struct compose_crs *e,
			  const char *dir)
{
	yaml_node_t *root = yaml_doc_root(d), *k, *v;
	const char *key;
	int has_source = 0, r;

	if (!root)
		return yaml_doc_error(d, NULL, NULL, "file is empty");
	if (root->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, root, NULL, "must be a mapping");
	for (size_t i = 0; yaml_doc_pair(d, root, i, &k, &v, &key); i++) {
		if (!strcmp(key, "source")) {
			if ((r = config_parse_source(d, k, v, dir,
						     e->registry_file,
						     "source", e)) != 0)
				return r;
			has_source = !yaml_doc_is_null(v);
		} else if (strcmp(key, "name") && strcmp(key, "description") &&
			   strcmp(key, "type")) {
			yaml_doc_warn_unknown(d, k, NULL);
		}
	}
	if (!has_source)
		return yaml_doc_error(d, root, NULL, "missing \"source\"");
	return 0;
}

int crs_registry_resolve(struct compose_crs *e, const char *dir)
{
	struct yaml_doc d = { 0 };
	struct buf b = BUF_INIT;
	char q[YAML_DOC_QUOTE_MAX];
	char *path = NULL, *folder = NULL;
	int r = CRS_ERR;

	e->source_kind = COMPOSE_SOURCE_REGISTRY;
	path = dir ? xasprintf("%s/%s.yaml", dir, e->name) : NULL;
	if (!path || !fs_exists(path)) {
		r = config_pos_error(&e->pos, e->name, "no source, and no "
				     "registry entry %s.yaml in the registry "
				     "folder %s (set --registry DIR or "
				     "CRS_CI_REGISTRY, or give source)",
				     e->name, yaml_doc_quote(q, dir ? dir :
							     "(none)"));
		goto out;
	}
	free(e->registry_file);
	e->registry_file = path;
	path = NULL; /* transferred */
	folder = xstrdup(dir);
	if ((r = yaml_doc_read_file(&b, e->registry_file)) != 0 ||
	    (r = yaml_doc_parse(&d, b.ptr, b.len, e->registry_file)) != 0 ||
	    (r = parse_registry(&d, e, folder)) != 0)
		goto out;
	if (e->source_local_path) {	/* shown as resolved: no "reg/../" */
		free(e->source_local_path_shown);
		e->source_local_path_shown = xstrdup(e->source_local_path);
	}
	r = 0;
out:
	if (r != 0 && e->registry_file)	/* the entry, then the file */
		crs_error_prefix("%s:%d:%d: %s: registry entry", e->pos.file,
				 e->pos.line, e->pos.column, e->name);
	yaml_doc_release(&d);
	buf_release(&b);
	free(path);
	free(folder);
	return r;
}
