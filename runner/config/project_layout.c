/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project_layout.c - find the project folder and tell its layout
 *
 * An OSS-Fuzz project folder is trusted configuration named by the user.
 * A `.clusterfuzzlite/` folder is part of the repository under scan, so
 * it is pull-request content (docs/decisions.md, decision 10): it must be a real
 * folder at the repository's root, its Dockerfile and build.sh regular
 * files and not links, and the name derived for it is reduced to an
 * image-name component before it reaches a tag, a path or a log line.
 */
#include "runner/config/project_layout.h"
#include "runner/config/config.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <git2.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CFL_DIR ".clusterfuzzlite"
#define NAME_MAX_LEN 64

const char *project_layout_name(enum project_layout l)
{
	return l == PROJECT_LAYOUT_CLUSTERFUZZLITE ? "ClusterFuzzLite folder" :
		"OSS-Fuzz project folder";
}

void project_location_release(struct project_location *loc)
{
	if (!loc)
		return;
	free(loc->dir);
	free(loc->context_root);
	free(loc->name);
	memset(loc, 0, sizeof(*loc));
}

/* A run of separator bytes s[0..n) as Docker allows it between parts. */
static int sep_ok(const char *s, size_t n)
{
	if (n == 1 && (*s == '.' || *s == '_'))
		return 1;
	if (n == 2 && s[0] == '_' && s[1] == '_')
		return 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '-')
			return 0;
	return 1;
}

CRS_TESTABLE char *project_image_name(const char *s)
{
	char out[NAME_MAX_LEN + 1];
	size_t len = 0, run = 0;
	const char *run_start = NULL;

	for (const char *p = s ? s : ""; *p; p++) {
		unsigned char c = (unsigned char)tolower((unsigned char)*p);

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			if (!run++)
				run_start = p;
			continue;
		}
		if (run && len) {	/* leading separators are dropped */
			int ok = sep_ok(run_start, run);
			size_t n = ok ? run : 1;

			if (len + n + 1 > NAME_MAX_LEN)
				break;
			if (ok)
				for (size_t i = 0; i < n; i++)
					out[len++] = run_start[i];
			else
				out[len++] = '-';
		}
		run = 0;
		if (len + 1 > NAME_MAX_LEN)
			break;
		out[len++] = (char)c;
	}
	out[len] = '\0';
	return xstrdup(len ? out : "project");
}

/* The last path component of `path` (no trailing slash), borrowed. */
static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The repository name in project.yaml's main_repo: its last component of
 * a URL or scp-like address (`git@host:owner/repo.git`), without a
 * trailing ".git". Caller frees; NULL when nothing is left.
 */
static char *main_repo_name(const char *url)
{
	size_t n = strlen(url);
	const char *b;

	while (n && url[n - 1] == '/')
		n--;
	b = url + n;
	while (b > url && b[-1] != '/' && b[-1] != ':')
		b--;
	n -= (size_t)(b - url);
	if (n >= 4 && !strncmp(b + n - 4, ".git", 4))
		n -= 4;
	return n ? xstrndup(b, n) : NULL;
}

/*
 * Dockerfile and build.sh in `dir` (shown as `shown`): present, and
 * regular files. In a ClusterFuzzLite folder (`nofollow`) a link is
 * refused: the folder is the pull request's, and the build context
 * carries links as links.
 */
static int check_files(const char *dir, const char *shown,
		       enum project_layout layout)
{
	static const char *const files[] = { "Dockerfile", "build.sh" };
	int nofollow = layout == PROJECT_LAYOUT_CLUSTERFUZZLITE;
	int r = 0;

	for (size_t i = 0; i < 2 && r == 0; i++) {
		char *path = xasprintf("%s/%s", dir, files[i]);
		struct stat st;
		int e = nofollow ? lstat(path, &st) : stat(path, &st);

		if (e != 0 && errno == ENOENT)
			r = crs_error_set(CRS_ECONFIG,
					  "%s: no %s in this %s (it needs a "
					  "Dockerfile and a build.sh)", shown,
					  files[i],
					  project_layout_name(layout));
		else if (e != 0)
			r = crs_error_set(CRS_ECONFIG, "%s/%s: %s", shown,
					  files[i], strerror(errno));
		else if (!S_ISREG(st.st_mode))
			r = crs_error_set(CRS_ECONFIG, "%s/%s: not a regular "
					  "file%s", shown, files[i],
					  S_ISLNK(st.st_mode) ? " (a link)" :
					  "");
		free(path);
	}
	return r;
}

/*
 * The repository name of the source checkout's remote "origin" (its URL's
 * last component), or NULL: no repository, no origin. The same in every
 * clone, unlike the checkout folder's name.
 */
static char *origin_name(const char *src_real)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL;
	git_buf url = { 0 };
	char *name = NULL;

	/* the config value alone: git_remote_lookup's multivar regexes
	 * are more than a name needs */
	if (git_repository_open_ext(&repo, src_real,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0 &&
	    git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_string_buf(&url, cfg, "remote.origin.url") == 0)
		name = main_repo_name(url.ptr);
	git_buf_dispose(&url);
	git_config_free(cfg);
	git_repository_free(repo);
	return name;
}

/*
 * The ClusterFuzzLite project's name: main_repo's, else the name of the
 * repository the checkout's origin is, else the checkout folder's.
 */
static int cfl_name(char **out, const char *dir, const char *src_real)
{
	struct project_config *pc = NULL;
	char *raw = NULL;
	int r;

	*out = NULL;
	if ((r = project_config_load(&pc, dir)) != 0)
		return r;
	if (pc->main_repo)
		raw = main_repo_name(pc->main_repo);
	if (!raw)
		raw = origin_name(src_real);
	*out = project_image_name(raw ? raw : last_component(src_real));
	free(raw);
	project_config_free(pc);
	return 0;
}

/*
 * <source>/.clusterfuzzlite when --project is not given: it must be a
 * folder of its own, not a link. *path_out is the path as shown.
 */
static int auto_detect(char **path_out, const char *source_dir)
{
	char *path = NULL;
	struct stat st;

	*path_out = NULL;
	if (!source_dir)
		return crs_error_set(CRS_EINPUT, "--project is required (no "
				     "--source to find .clusterfuzzlite/ in)");
	path = xasprintf("%s/%s", source_dir, CFL_DIR);
	if (lstat(path, &st) != 0) {
		int e = errno;

		free(path);
		if (e == ENOENT || e == ENOTDIR)
			return crs_error_set(CRS_EINPUT,
					     "--project is required: '%s' has "
					     "no %s/ folder (give an OSS-Fuzz "
					     "project folder with --project "
					     "DIR)", source_dir, CFL_DIR);
		return crs_error_set(CRS_ECONFIG, "%s/%s: %s", source_dir,
				     CFL_DIR, strerror(e));
	}
	if (!S_ISDIR(st.st_mode)) {
		int r = crs_error_set(CRS_ECONFIG, "%s: not a folder%s", path,
				      S_ISLNK(st.st_mode) ? " (a link)" : "");

		free(path);
		return r;
	}
	*path_out = path;
	return 0;
}

int project_locate(struct project_location *out, const char *project_opt,
		   const char *source_dir)
{
	struct project_location loc = { .layout = PROJECT_LAYOUT_OSS_FUZZ };
	char *found = NULL, *src_real = NULL;
	const char *shown = project_opt;
	struct stat st;
	int r = CRS_ERR;

	memset(out, 0, sizeof(*out));
	if (!project_opt) {
		if ((r = auto_detect(&found, source_dir)) != 0)
			goto out;
		shown = found;
	}
	if (!(loc.dir = realpath(shown, NULL))) {
		r = crs_error_set(CRS_ECONFIG, "%s: %s", shown,
				  errno == ENOENT ? "no such folder" :
				  strerror(errno));
		goto out;
	}
	if (stat(loc.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		r = crs_error_set(CRS_ECONFIG, "%s: not a folder", shown);
		goto out;
	}
	if (!strcmp(last_component(loc.dir), CFL_DIR)) {
		size_t plen = (size_t)(last_component(loc.dir) - loc.dir) - 1;

		loc.layout = PROJECT_LAYOUT_CLUSTERFUZZLITE;
		if (!source_dir || !(src_real = realpath(source_dir, NULL))) {
			r = crs_error_set(CRS_EINPUT, "%s: a %s is built from "
					  "its repository, and --source '%s' "
					  "is not a folder", shown,
					  project_layout_name(loc.layout),
					  source_dir ? source_dir : "");
			goto out;
		}
		if (strlen(src_real) != (plen ? plen : 1) ||
		    strncmp(src_real, loc.dir, plen ? plen : 1)) {
			r = crs_error_set(CRS_EINPUT,
					  "%s: a %s must be the %s/ at the "
					  "root of the repository under scan "
					  "('%s', --source)", shown,
					  project_layout_name(loc.layout),
					  CFL_DIR, source_dir);
			goto out;
		}
	}
	if ((r = check_files(loc.dir, shown, loc.layout)) != 0)
		goto out;
	if (loc.layout == PROJECT_LAYOUT_CLUSTERFUZZLITE) {
		if ((r = cfl_name(&loc.name, loc.dir, src_real)) != 0)
			goto out;
		loc.context_root = src_real;
		src_real = NULL; /* transferred */
	} else {
		loc.name = project_image_name(last_component(loc.dir));
	}
	*out = loc;
	memset(&loc, 0, sizeof(loc)); /* transferred */
	r = 0;
out:
	project_location_release(&loc);
	free(found);
	free(src_real);
	return r;
}
