/* SPDX-License-Identifier: Apache-2.0 */
/*
 * env.c - artifact types, the OSS_CRS_* environment and confined paths
 *
 * The type table is the contract's section 4.2; the environment is the
 * contract's section 3. Path confinement is lexical here; the walk below a
 * root that refuses symlinks lives in fsops.c.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *dir;
	unsigned uses;
} types[CRS_TYPE_COUNT] = {
	[CRS_TYPE_POV] = { "pov", "povs",
		CRS_USE_SUBMIT | CRS_USE_SUBMIT_DIR | CRS_USE_FETCH },
	[CRS_TYPE_SEED] = { "seed", "seeds",
		CRS_USE_SUBMIT | CRS_USE_SUBMIT_DIR | CRS_USE_FETCH },
	[CRS_TYPE_BUG_CANDIDATE] = { "bug-candidate", "bug-candidates",
		CRS_USE_SUBMIT | CRS_USE_SUBMIT_DIR | CRS_USE_FETCH },
	[CRS_TYPE_REPORT] = { "report", "reports",
		CRS_USE_SUBMIT | CRS_USE_FETCH },
	[CRS_TYPE_PATCH] = { "patch", "patches",
		CRS_USE_SUBMIT | CRS_USE_SUBMIT_DIR | CRS_USE_FETCH },
	[CRS_TYPE_DIFF] = { "diff", "diffs", CRS_USE_FETCH },
};

int crs_type_from_name(const char *name, enum crs_type *out)
{
	for (int i = 0; i < CRS_TYPE_COUNT; i++) {
		if (name && !strcmp(name, types[i].name)) {
			*out = (enum crs_type)i;
			return 0;
		}
	}
	return crs_error_set(CRS_EINPUT, "'%s' is not a type (pov, seed, "
			     "bug-candidate, report, patch, diff)",
			     name ? name : "");
}

const char *crs_type_name(enum crs_type type)
{
	if ((unsigned)type >= CRS_TYPE_COUNT)
		return NULL;
	return types[type].name;
}

const char *crs_type_dir(enum crs_type type)
{
	if ((unsigned)type >= CRS_TYPE_COUNT)
		return NULL;
	return types[type].dir;
}

int crs_type_allows(enum crs_type type, unsigned uses)
{
	if ((unsigned)type >= CRS_TYPE_COUNT)
		return 0;
	return (types[type].uses & uses) == uses;
}

static const char *env_get(const char *var, const char *fallback)
{
	const char *v = getenv(var);

	return v && *v ? v : fallback;
}

int crs_env_from_environ(struct crs_env *env)
{
	const char *type = env_get("OSS_CRS_RUN_ENV_TYPE", "local");

	if (strcmp(type, "local") != 0)
		return crs_error_set(CRS_ECONFIG, "OSS_CRS_RUN_ENV_TYPE '%s' "
				     "is not supported (only 'local')", type);
	env->name = env_get("OSS_CRS_NAME", NULL);
	env->build_out_dir = env_get("OSS_CRS_BUILD_OUT_DIR", NULL);
	env->rebuild_out_dir = env_get("OSS_CRS_REBUILD_OUT_DIR", NULL);
	env->rebuild_id = env_get("OSS_CRS_REBUILD_ID", NULL);
	env->submit_dir = env_get("OSS_CRS_SUBMIT_DIR", NULL);
	env->shared_dir = env_get("OSS_CRS_SHARED_DIR", NULL);
	env->log_dir = env_get("OSS_CRS_LOG_DIR", NULL);
	env->fetch_dir = env_get("OSS_CRS_FETCH_DIR", NULL);
	env->fuzz_proj = env_get("OSS_CRS_FUZZ_PROJ", "/OSS_CRS_FUZZ_PROJ");
	env->target_source = env_get("OSS_CRS_TARGET_SOURCE",
				     "/OSS_CRS_TARGET_SOURCE");
	return 0;
}

int crs_path_normalize(char *out, size_t outsz, const char *rel)
{
	const char *p = rel;
	size_t len = 0;

	if (!outsz)
		return crs_error_set(CRS_EINPUT, "'%s': no room", rel);
	out[0] = '\0';
	if (*p == '/')	/* OSS-CRS joins it and escapes the root */
		return crs_error_set(CRS_EINPUT, "'%s': absolute paths are not "
				     "allowed (name it relative to the "
				     "folder)", rel);
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return crs_error_set(CRS_EINPUT, "'%s': '..' "
					     "components are not allowed",
					     rel);
		if (n && !(n == 1 && p[0] == '.')) {
			if (len + (len ? 1 : 0) + n + 1 > outsz)
				return crs_error_set(CRS_EINPUT,
						     "'%.64s...': path too "
						     "long", rel);
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = '\0';
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return 0;
}

int crs_path_confine(char *out, size_t outsz, const char *root,
		     const char *rel)
{
	char norm[LCRS_PATH_MAX];
	int r;

	if ((r = crs_path_normalize(norm, sizeof(norm), rel)) != 0)
		return r;
	if (!norm[0])
		return lcrs_path_fmt(out, outsz, rel, "%s", root);
	return lcrs_path_fmt(out, outsz, rel, "%s%s%s", root,
			     root[0] && root[strlen(root) - 1] == '/' ?
			     "" : "/", norm);
}

int lcrs_path_fmt(char *out, size_t outsz, const char *what,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, outsz, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= outsz)
		return crs_error_set(CRS_EINPUT, "'%.64s...': path too long",
				     what);
	return 0;
}

int lcrs_need(const char *value, const char *var)
{
	if (!value || !*value)
		return crs_error_set(CRS_ECONFIG, "%s is not set", var);
	return 0;
}
