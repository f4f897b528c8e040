/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_source.c - the `source` block of a CRS entry or a registry file
 *
 * Exactly one of local_path, or url + ref (with an optional subdir, the
 * CRS's folder inside the repository). Only the syntax is checked here;
 * registry lookup is crs_registry.c and the git checkout runner/exec/crs_git.c.
 * subdir is configuration, but it names a path inside CRS content, so it
 * must be relative without "." or ".." parts; links along it are refused
 * when the checkout is walked (compose_load.c).
 */
#include "runner/config/crs_source.h"
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define FIELD_MAX 256

char *config_resolve_path(const char *dir, const char *p)
{
	const char *home = getenv("HOME");
	char *joined, *abs;

	if ((p[0] == '~' && (p[1] == '/' || !p[1])) && home && *home)
		joined = xasprintf("%s%s", home, p + 1);
	else if (p[0] == '/')
		joined = xstrdup(p);
	else
		joined = xasprintf("%s/%s", dir, p);
	abs = fs_abspath(joined);
	free(joined);
	return abs;
}

/*
 * `p` as the user reads it: joined to the folder part of `file` (the
 * config path as given), or `resolved` when `p` is absolute or starts
 * with "~". The caller frees. Cannot fail.
 */
static char *config_shown_path(const char *file, const char *p,
			const char *resolved)
{
	const char *slash = strrchr(file, '/');
	size_t n = strlen(p);

	if (p[0] == '/' || p[0] == '~')
		return xstrdup(resolved);
	while (p[0] == '.' && p[1] == '/') {	/* "./x" reads as "x" */
		p += 2 + strspn(p + 2, "/");
		n = strlen(p);
	}
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (!n || (n == 1 && p[0] == '.'))	/* the file's folder */
		return !slash ? xstrdup(".") : slash == file ?
			xstrdup("/") :
			xstrndup(file, (size_t)(slash - file));
	if (!slash)
		return xstrndup(p, n);
	return xasprintf("%.*s/%.*s", (int)(slash - file), file, (int)n, p);
}

/* 1 when `s` is a relative path of plain names ("a/b", "a/b/"). */
static int subdir_ok(const char *s)
{
	const char *p = s;

	if (!*s || *s == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (!n && p[0] == '/' && p[1])	/* "a//b" */
			return 0;
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

/*
 * 1 when a git url is a path on this machine ("../crs", "~/x", "/srv/x")
 * rather than a URL ("https://...", "file://...") or scp-like
 * "host:path" (a ':' before any '/').
 */
static int url_is_path(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	if (strstr(url, "://"))
		return 0;
	return !colon || (slash && slash < colon);
}

int config_parse_source(struct yaml_doc *d, const yaml_node_t *k,
			const yaml_node_t *v, const char *dir,
			const char *file, const char *field,
			struct compose_crs *e)
{
	char sub[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];
	const yaml_node_t *local_key = NULL, *url_key = NULL;
	const yaml_node_t *subdir_key = NULL;
	yaml_node_t *pk, *pv;
	const char *key;
	char *local = NULL;
	int r = CRS_ERR;

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
		} else if (!strcmp(key, "subdir")) {
			subdir_key = pk;
			r = yaml_doc_get_str(d, pk, pv, sub,
					     &e->source_subdir);
			if (r == 0 && !subdir_ok(e->source_subdir))
				r = yaml_doc_error(d, pk, sub, "%s is not a "
						   "relative path without "
						   "\".\" or \"..\" parts",
						   yaml_doc_quote(q,
						   e->source_subdir));
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
	if (local && subdir_key) {
		r = yaml_doc_error(d, subdir_key, field, "subdir goes with "
				   "url (with local_path, name the folder "
				   "itself)");
		goto out;
	}
	if (local) {
		if (!*local) {
			r = yaml_doc_error(d, local_key, field,
					   "local_path is empty");
			goto out;
		}
		e->source_local_path = config_resolve_path(dir, local);
		e->source_local_path_shown =
			config_shown_path(file, local, e->source_local_path);
		e->source_pos = yaml_doc_pos(d, local_key);
	} else {
		if (!*e->source_url || !*e->source_ref) {
			r = yaml_doc_error(d, url_key, field, "%s is empty",
					   !*e->source_url ? "url" : "ref");
			goto out;
		}
		e->source_pos = yaml_doc_pos(d, url_key);
		if (url_is_path(e->source_url)) {	/* the file's, not the cwd's */
			char *abs = config_resolve_path(dir, e->source_url);

			free(e->source_url);
			e->source_url = abs;
		}
	}
	r = 0;
out:
	free(local);
	return r;
}
