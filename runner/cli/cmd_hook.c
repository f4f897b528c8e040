/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_hook.c - crs-ci hook install|uninstall: the local pre-push scan
 *
 * `install` writes a pre-push hook into the repository (honouring
 * core.hooksPath) that runs `crs-ci pre-push`, and records the scan's
 * options in the repository's git config (section crs-ci), where
 * cmd_pre_push.c reads them. An existing hook that is not ours is never
 * overwritten. `uninstall` removes only our hook and our config section.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/scan_opts_parse.h"
#include "runner/init/init_render.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOOK_MARK "# installed by crs-ci hook install"

/* Ours beside the scan options (for the command table's completion). */
const struct opt_spec cmd_hook_opts[] = {
	{ .name = "force", .kind = OPT_FLAG },
	{ .name = NULL },
};

static const char usage[] =
"usage: crs-ci hook install [--compose FILE] [--project DIR] [--timeout DUR]\n"
"                           [--fail-on new|any|none] [--force]\n"
"       crs-ci hook uninstall\n"
"\nInstall (or remove) a git pre-push hook in the current repository that\n"
"scans each pushed range and blocks the push on findings that fail the\n"
"policy (default: new ones). Options are kept in git config, section\n"
"crs-ci; paths are stored absolute. Without --compose, the repository's\n"
".crs-ci/crs-compose.yaml (what crs-ci init writes). Without --project,\n"
"each push uses the repository's .clusterfuzzlite/ folder\n"
"(docs/layouts.md). --force replaces a pre-push hook that crs-ci did not\n"
"write.\n";

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

/* <hooks dir>/pre-push, from core.hooksPath or <gitdir>/hooks. */
static int hook_path(char **out, git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf hooks = { 0 };
	int r;

	*out = NULL;
	if (git_repository_config_snapshot(&cfg, repo) != 0)
		return git_fail(CRS_ERR, "reading git config");
	if (git_config_get_path(&hooks, cfg, "core.hooksPath") == 0) {
		const char *wd = git_repository_workdir(repo);

		*out = hooks.ptr[0] == '/' || !wd ?
			xasprintf("%s/pre-push", hooks.ptr) :
			xasprintf("%s%s/pre-push", wd, hooks.ptr);
	} else {
		*out = xasprintf("%shooks/pre-push", git_repository_path(repo));
	}
	git_error_clear();
	git_buf_dispose(&hooks);
	git_config_free(cfg);
	r = 0;
	return r;
}

static int is_ours(const char *path)
{
	struct buf b = BUF_INIT;
	int yes = 0;

	if (fs_read_file(&b, path, 1u << 20) == 0)
		yes = strstr(b.ptr, HOOK_MARK) != NULL;
	crs_error_clear();
	buf_release(&b);
	return yes;
}

/* Remove `key` from git config; absent already is success. */
static int unset(git_config *cfg, const char *key)
{
	int e = git_config_delete_entry(cfg, key);

	if (e == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	return e;
}

/*
 * Without --compose: the repository's .crs-ci/crs-compose.yaml, the one
 * `crs-ci init` writes, when it is there. CRS_EINPUT otherwise.
 */
static int default_compose(char **out, git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);
	char *path;

	*out = NULL;
	if (!wd)
		return crs_error_set(CRS_EINPUT, "hook install needs --compose "
				     "(a bare repository has no "
				     ".crs-ci/crs-compose.yaml)");
	if (!(path = init_compose_find(wd)))
		return crs_error_set(CRS_EINPUT, "hook install needs --compose: "
				     "there is no %s%s" INIT_COMPOSE " (crs-ci "
				     "init writes one)", wd,
				     wd[0] && wd[strlen(wd) - 1] == '/' ?
				     "" : "/");
	*out = path;
	return 0;
}

static int install(git_repository *repo, const struct scan_opts *o,
		   int force, struct runner_ctx *ctx)
{
	git_config *cfg = NULL;
	char *path = NULL, *self = fs_self_exe("crs-ci"), *dir = NULL;
	char *compose = NULL, *project = NULL;
	struct buf script = BUF_INIT;
	int r;

	if ((r = hook_path(&path, repo)) != 0)
		goto out;
	if (fs_exists(path) && !is_ours(path) && !force) {
		r = crs_error_set(CRS_ECONFLICT, "%s exists and is not crs-ci's "
				  "(use --force to replace it)", path);
		goto out;
	}
	if (o->compose)
		compose = fs_abspath(o->compose);
	else if ((r = default_compose(&compose, repo)) != 0)
		goto out;
	project = o->project ? fs_abspath(o->project) : NULL;
	if (git_repository_config(&cfg, repo) != 0 ||
	    git_config_set_string(cfg, "crs-ci.compose", compose) != 0 ||
	    (project ? git_config_set_string(cfg, "crs-ci.project",
					     project) :
	     unset(cfg, "crs-ci.project")) != 0 ||
	    git_config_set_int64(cfg, "crs-ci.timeout", o->timeout_s) != 0 ||
	    git_config_set_string(cfg, "crs-ci.failOn", o->fail_on) != 0) {
		r = git_fail(CRS_ERR, "writing git config");
		goto out;
	}
	buf_printf(&script, "#!/bin/sh\n%s; remove with: crs-ci hook "
		   "uninstall\n# options: git config --get-regexp '^crs-ci\\.'\n"
		   "exec ", HOOK_MARK);
	buf_add_sh_word(&script, self);
	buf_adds(&script, " pre-push \"$@\"\n");
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	if ((r = fs_mkdir_p(dir)) != 0 ||
	    (r = fs_write_file_atomic(path, script.ptr, script.len)) != 0)
		goto out;
	if (chmod(path, 0755) != 0) {
		r = crs_error_set(CRS_ERR, "chmod '%s': failed", path);
		goto out;
	}
	fprintf(ctx->out, "installed %s (scans pushes with %s)\n", path,
		compose);
out:
	git_config_free(cfg);
	buf_release(&script);
	free(path);
	free(self);
	free(dir);
	free(compose);
	free(project);
	return r;
}

static int uninstall(git_repository *repo, struct runner_ctx *ctx)
{
	static const char *const keys[] = {
		"crs-ci.compose", "crs-ci.project", "crs-ci.timeout",
		"crs-ci.failOn", "crs-ci.base", NULL,
	};
	git_config *cfg = NULL;
	char *path = NULL;
	int r;

	if ((r = hook_path(&path, repo)) != 0)
		goto out;
	if (fs_exists(path)) {
		if (!is_ours(path)) {
			r = crs_error_set(CRS_ECONFLICT, "%s is not crs-ci's; "
					  "left as it is", path);
			goto out;
		}
		if (unlink(path) != 0) {
			r = crs_error_set(CRS_ERR, "removing '%s' failed", path);
			goto out;
		}
	}
	if (git_repository_config(&cfg, repo) == 0)
		for (const char *const *k = keys; *k; k++)
			git_config_delete_entry(cfg, *k);
	git_error_clear();
	fprintf(ctx->out, "removed the crs-ci pre-push hook\n");
out:
	git_config_free(cfg);
	free(path);
	return r;
}

int cmd_hook(int argc, char **argv, struct runner_ctx *ctx)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	git_repository *repo = NULL;
	int force = 0, r, nargs = 0;
	char **args;

	if (argc < 2 || (strcmp(argv[1], "install") &&
			 strcmp(argv[1], "uninstall"))) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") ||
				  !strcmp(argv[1], "--help"))) {
			scan_opts_usage(ctx->out, "hook", usage);
			return EXIT_OK;
		}
		if (argc < 2)
			return cli_usage_error(ctx->err, "hook", "give a "
					       "subcommand: install or "
					       "uninstall");
		return cli_usage_error(ctx->err, "hook", "'%s' is not a hook "
				       "subcommand (install, uninstall)",
				       argv[1]);
	}
	/* --force is ours; the rest are scan options */
	args = xcalloc((size_t)argc + 1, sizeof(char *));
	args[nargs++] = "hook";
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			force = 1;
		else
			args[nargs++] = argv[i];
	}
	r = scan_opts_parse(&o, nargs, args, usage, ctx->out, ctx->err);
	if (r == 1) {
		r = 0;
		goto out;
	}
	if (r != 0) {
		free(args);
		scan_opts_release(&o);
		return EXIT_USAGE;
	}
	if (git_repository_open_ext(&repo, ".", 0, NULL) != 0) {
		r = git_fail(CRS_EINPUT, "not in a git repository");
		goto out;
	}
	r = !strcmp(argv[1], "install") ? install(repo, &o, force, ctx) :
		uninstall(repo, ctx);
out:
	git_repository_free(repo);
	free(args);
	scan_opts_release(&o);
	if (r != 0) {
		log_error("%s", crs_error_last());
		return r == CRS_ECONFLICT ? EXIT_USAGE : exit_code_for(r);
	}
	return EXIT_OK;
}
