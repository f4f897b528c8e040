/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_output.c - submit-build-output, skip-build-output,
 * download-build-output, download-source and submit-harness
 *
 * Unlike OSS-CRS, a destination below the build output dir is confined:
 * "/fuzzer" means <build out>/fuzzer, and ".." is refused (contract 11.2).
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int need_source(const char *src)
{
	struct stat st;

	if (stat(src, &st) != 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "'%s': %s", src, strerror(errno));
	return 0;
}

int crs_build_output_submit(const struct crs_env *env, const char *src,
			    const char *dst)
{
	char norm[LCRS_PATH_MAX], shown[LCRS_PATH_MAX];
	const char *leaf = NULL;
	int pfd = -1, r = CRS_ERR;

	if ((r = lcrs_need(env->build_out_dir, "OSS_CRS_BUILD_OUT_DIR")) != 0)
		return r;
	if ((r = crs_path_normalize(norm, sizeof(norm), dst)) != 0)
		return crs_error_prefix("destination (relative to "
					"OSS_CRS_BUILD_OUT_DIR)");
	if ((r = need_source(src)) != 0 ||
	    (r = crs_path_confine(shown, sizeof(shown), env->build_out_dir,
				  norm)) != 0 ||
	    (r = lcrs_open_below(env->build_out_dir, norm, &pfd,
				 &leaf)) != 0)
		goto out;
	/* norm "": pfd is the build output dir itself, leaf NULL */
	r = lcrs_copy_to(src, pfd, leaf, 0, shown);
out:
	if (pfd >= 0)
		close(pfd);
	return r;
}

int crs_build_output_skip(const struct crs_env *env, const char *dst)
{
	char norm[LCRS_PATH_MAX], marker[LCRS_PATH_MAX];
	const char *base, *leaf = NULL;
	int pfd = -1, r = CRS_ERR;
	char *slash;

	if ((r = lcrs_need(env->build_out_dir, "OSS_CRS_BUILD_OUT_DIR")) != 0)
		return r;
	if ((r = crs_path_normalize(norm, sizeof(norm), dst)) != 0)
		return crs_error_prefix("destination (relative to "
					"OSS_CRS_BUILD_OUT_DIR)");
	if (!norm[0])
		return crs_error_set(CRS_EINPUT, "destination '%s': names no "
				     "output", dst);
	slash = strrchr(norm, '/');
	base = slash ? slash + 1 : norm;
	if (strlen(base) + 7 > 255)
		return crs_error_set(CRS_EINPUT, "destination '%s': name too "
				     "long for a skip marker", dst);
	if (slash)
		*slash = '\0';
	if ((r = lcrs_path_fmt(marker, sizeof(marker), dst, "%s%s.%s.skip",
			       slash ? norm : "", slash ? "/" : "",
			       base)) != 0 ||
	    (r = lcrs_open_below(env->build_out_dir, marker, &pfd,
				 &leaf)) != 0)
		goto out;
	r = lcrs_write_file_at(pfd, leaf, "skip", 4, 0644, marker);
out:
	if (pfd >= 0)
		close(pfd);
	return r;
}

/* A rebuild id is a decimal number: it becomes a directory name. */
static int check_rebuild_id(const char *id)
{
	size_t n = strspn(id, "0123456789");

	if (!n || id[n] || n > 18)
		return crs_error_set(CRS_EINPUT, "rebuild id '%s' is not a "
				     "number", id);
	return 0;
}

/* A CRS name or harness name is one path component. */
static int check_component(const char *name, const char *what)
{
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return crs_error_set(CRS_EINPUT, "%s '%s' is not a plain name",
				     what, name);
	if (strlen(name) > 255)
		return crs_error_set(CRS_EINPUT, "%s '%.32s...' is too long",
				     what, name);
	return 0;
}

int crs_build_output_download(const struct crs_env *env, const char *src,
			      const char *dst, const char *rebuild_id)
{
	char root[LCRS_PATH_MAX], path[LCRS_PATH_MAX];
	const char *id = rebuild_id && *rebuild_id ? rebuild_id :
		env->rebuild_id;
	int r;

	if (id && *id) {
		if ((r = check_rebuild_id(id)) != 0 ||
		    (r = lcrs_need(env->name, "OSS_CRS_NAME")) != 0 ||
		    (r = lcrs_need(env->rebuild_out_dir,
				   "OSS_CRS_REBUILD_OUT_DIR")) != 0 ||
		    (r = check_component(env->name, "OSS_CRS_NAME")) != 0 ||
		    (r = lcrs_path_fmt(root, sizeof(root), src, "%s/%s/%s",
				       env->rebuild_out_dir, env->name,
				       id)) != 0)
			return r;
	} else {
		if ((r = lcrs_need(env->build_out_dir,
				   "OSS_CRS_BUILD_OUT_DIR")) != 0 ||
		    (r = lcrs_path_fmt(root, sizeof(root), src, "%s",
				       env->build_out_dir)) != 0)
			return r;
	}
	if ((r = crs_path_confine(path, sizeof(path), root, src)) != 0)
		return crs_error_prefix("source (relative to the build "
					"output)");
	return crs_copy(path, dst);
}

int crs_source_from_name(const char *name, enum crs_source *out)
{
	if (!strcmp(name, "fuzz-proj"))
		*out = CRS_SOURCE_FUZZ_PROJ;
	else if (!strcmp(name, "target-source"))
		*out = CRS_SOURCE_TARGET_SOURCE;
	else
		return crs_error_set(CRS_EINPUT, "'%s' is not a source "
				     "(fuzz-proj, target-source)", name);
	return 0;
}

int crs_source_download(const struct crs_env *env, enum crs_source which,
			const char *dst)
{
	const char *dir = which == CRS_SOURCE_FUZZ_PROJ ? env->fuzz_proj :
		env->target_source;
	const char *var = which == CRS_SOURCE_FUZZ_PROJ ?
		"OSS_CRS_FUZZ_PROJ" : "OSS_CRS_TARGET_SOURCE";
	struct stat st;

	if (!dir || !*dir)
		dir = which == CRS_SOURCE_FUZZ_PROJ ? "/OSS_CRS_FUZZ_PROJ" :
			"/OSS_CRS_TARGET_SOURCE";
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return crs_error_set(CRS_ENOTFOUND, "'%s' (%s) is not mounted",
				     dir, var);
	return crs_copy(dir, dst);
}

int crs_submit_harness(const struct crs_env *env, const char *fuzz_proj_dir,
		       const char *target_source_dir, const char *name)
{
	char base[LCRS_PATH_MAX], dst[LCRS_PATH_MAX];
	struct stat st;
	int r;

	if ((r = lcrs_need(env->submit_dir, "OSS_CRS_SUBMIT_DIR")) != 0)
		return r;
	if (!name) {
		if (lcrs_base_name(base, sizeof(base), fuzz_proj_dir) != 0)
			return crs_error_set(CRS_EINPUT, "harness name too "
					     "long");
		name = base;
	}
	if ((r = check_component(name, "harness name")) != 0)
		return r;
	if (stat(fuzz_proj_dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return crs_error_set(CRS_EINPUT, "'%s' is not a directory",
				     fuzz_proj_dir);
	if (target_source_dir && (stat(target_source_dir, &st) != 0 ||
				  !S_ISDIR(st.st_mode)))
		return crs_error_set(CRS_EINPUT, "'%s' is not a directory",
				     target_source_dir);
	if ((r = lcrs_path_fmt(dst, sizeof(dst), name,
			       "%s/harnesses/%s/fuzz-proj", env->submit_dir,
			       name)) != 0 ||
	    (r = crs_copy(fuzz_proj_dir, dst)) != 0)
		return r;
	if (!target_source_dir)
		return 0;
	if ((r = lcrs_path_fmt(dst, sizeof(dst), name,
			       "%s/harnesses/%s/target-source",
			       env->submit_dir, name)) != 0)
		return r;
	return crs_copy(target_source_dir, dst);
}
