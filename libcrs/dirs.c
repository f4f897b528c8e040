/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dirs.c - register-shared-dir, register-log-dir, get-service-domain and
 * the sidecar commands' response directories
 *
 * The two register commands make a local path a symlink into a mounted
 * directory, so a tool that writes to its usual place writes to the mount.
 * get-service-domain only builds the name: OSS-CRS also resolves it, but a
 * static binary cannot honour the container's NSS configuration, and the
 * caller's first connection attempt is the real check anyway.
 */
#include "libcrs/libcrs.h"
#include "libcrs/internal.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Create root/<rel> (rel normalised, may be "") and its absolute path. */
static int make_target(const char *root, const char *rel, char *abs,
		       size_t abssz)
{
	char cwd[LCRS_PATH_MAX];
	const char *leaf = NULL;
	struct stat st;
	int pfd = -1, r = CRS_ERR;

	if ((r = lcrs_open_below(root, rel, &pfd, &leaf)) != 0)
		goto out;
	if (leaf) {
		if (mkdirat(pfd, leaf, 0755) != 0 && errno != EEXIST) {
			r = crs_error_set(CRS_ERR, "mkdir '%s/%s': %s", root,
					  rel, strerror(errno));
			goto out;
		}
		if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode)) {
			r = crs_error_set(CRS_ERR, "'%s/%s': not a directory",
					  root, rel);
			goto out;
		}
	}
	if (root[0] == '/') {
		cwd[0] = '\0';
	} else if (!getcwd(cwd, sizeof(cwd))) {
		r = crs_error_set(CRS_ERR, "getcwd: %s", strerror(errno));
		goto out;
	}
	r = lcrs_path_fmt(abs, abssz, rel, "%s%s%s%s%s", cwd,
			  cwd[0] ? "/" : "", root, rel[0] ? "/" : "", rel);
out:
	if (pfd >= 0)
		close(pfd);
	return r;
}

/* symlink(target, local), creating local's parent directories. */
static int link_local(const char *target, const char *local)
{
	char parent[LCRS_PATH_MAX];
	struct stat st;
	char *slash;
	int r;

	if (lstat(local, &st) == 0)
		return crs_error_set(CRS_ECONFLICT, "'%s' already exists",
				     local);
	if ((r = lcrs_path_fmt(parent, sizeof(parent), local, "%s",
			       local)) != 0)
		return r;
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if ((r = lcrs_mkdir_p(parent)) != 0)
			return r;
	}
	if (symlink(target, local) != 0)
		return crs_error_set(errno == EEXIST ? CRS_ECONFLICT : CRS_ERR,
				     "symlink '%s' -> '%s': %s", local, target,
				     strerror(errno));
	return 0;
}

/*
 * The register commands: make `local` a symlink to root/<rel>, created
 * first. An existing `local` is refused before anything is created.
 */
static int register_dir(const char *root, const char *rel,
			const char *local)
{
	char target[LCRS_PATH_MAX];
	struct stat st;
	int r;

	if (lstat(local, &st) == 0)
		return crs_error_set(CRS_ECONFLICT, "'%s' already exists",
				     local);
	if ((r = make_target(root, rel, target, sizeof(target))) != 0)
		return r;
	return link_local(target, local);
}

int crs_shared_dir_register(const struct crs_env *env, const char *local,
			    const char *shared)
{
	char norm[LCRS_PATH_MAX];
	int r;

	if ((r = lcrs_need(env->shared_dir, "OSS_CRS_SHARED_DIR")) != 0)
		return r;
	if ((r = crs_path_normalize(norm, sizeof(norm), shared)) != 0)
		return crs_error_prefix("shared name");
	return register_dir(env->shared_dir, norm, local);
}

int crs_log_dir_register(const struct crs_env *env, const char *local)
{
	char base[LCRS_PATH_MAX];
	int r;

	if ((r = lcrs_need(env->log_dir, "OSS_CRS_LOG_DIR")) != 0)
		return r;
	if (lcrs_base_name(base, sizeof(base), local) != 0)
		return crs_error_set(CRS_EINPUT, "'%.64s...': too long", local);
	if (!base[0] || !strcmp(base, ".") || !strcmp(base, "..") ||
	    !strcmp(base, "/"))
		return crs_error_set(CRS_EINPUT, "'%s': needs a directory "
				     "name", local);
	return register_dir(env->log_dir, base, local);
}

int crs_service_domain(const struct crs_env *env, const char *name,
		       char *out, size_t outsz)
{
	size_t n = strlen(name);
	int r;

	if (!n || n > 63 || name[0] == '-' || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != n)
		return crs_error_set(CRS_EINPUT, "'%s' is not a service name",
				     name);
	if ((r = lcrs_need(env->name, "OSS_CRS_NAME")) != 0)
		return r;
	if ((size_t)snprintf(out, outsz, "%s.%s", name, env->name) >= outsz)
		return crs_error_set(CRS_EINPUT, "'%s.%s': too long", name,
				     env->name);
	return 0;
}

int crs_response_write(const char *dir, int retcode, const char *out,
		       const char *err)
{
	char code[24];
	int fd = -1, r;

	snprintf(code, sizeof(code), "%d", retcode);
	if ((r = lcrs_open_dir(dir, 1, &fd)) != 0)
		return r;
	if ((r = lcrs_write_file_at(fd, "retcode", code, strlen(code), 0644,
				    "retcode")) == 0 && out)
		r = lcrs_write_file_at(fd, "stdout.log", out, strlen(out),
				       0644, "stdout.log");
	if (r == 0 && err)
		r = lcrs_write_file_at(fd, "stderr.log", err, strlen(err),
				       0644, "stderr.log");
	if (r != 0)
		crs_error_prefix("response dir '%s'", dir);
	close(fd);
	return r;
}
