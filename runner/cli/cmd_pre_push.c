/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_pre_push.c - crs-ci pre-push REMOTE [URL]: what the git hook runs
 *
 * Scans each pushed ref's update; blocks the push (exit 1) only on
 * findings that fail the policy. Work goes under <gitdir>/crs-ci/.
 *
 * Details: docs/cmd/pre-push.md; design notes: docs/internals.md.
 */
#include "runner/cli/cmd.h"
#include "runner/exec/base_images.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/lib_init.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/source_export.h"
#include "runner/phase/phase.h"
#include "runner/init/init_render.h"
#include "diff/prepush.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STDIN_MAX (1u << 20)

struct push_cfg {
	char *compose, *project, *fail_on;
	char *base;		/* crs-ci.base: where a new branch is scanned from */
	int64_t timeout_s;
	int pre_commit;		/* run by the pre-commit framework */
};

/* How to push once without the check, as the hook that runs us takes it. */
static const char *skip_once(const struct push_cfg *pc)
{
	return pc->pre_commit ? "SKIP=crs-ci git push (or git push --no-verify)"
		: "git push --no-verify";
}

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

static int read_cfg(struct push_cfg *pc, git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);
	git_config *cfg = NULL;
	git_buf v = { 0 };
	char *dflt = NULL;
	int r = 0;

	if (git_repository_config_snapshot(&cfg, repo) != 0)
		return git_fail(CRS_ERR, "reading git config");
	if (git_config_get_string_buf(&v, cfg, "crs-ci.compose") == 0) {
		pc->compose = xstrdup(v.ptr);
	} else if (wd && (dflt = init_compose_find(wd))) {
		/* what `crs-ci init` writes (pre-commit users' setup) */
		pc->compose = dflt;
		dflt = NULL;	/* transferred */
	} else {
		r = crs_error_set(CRS_ECONFIG, "crs-ci.compose is not set in "
				  "git config and there is no "
				  INIT_COMPOSE ": run crs-ci init or "
				  "crs-ci hook install");
		goto out;
	}
	git_buf_dispose(&v);
	/* unset: the repository's .clusterfuzzlite/ (project_layout.c) */
	if (git_config_get_string_buf(&v, cfg, "crs-ci.project") == 0)
		pc->project = xstrdup(v.ptr);
	git_buf_dispose(&v);
	pc->fail_on = git_config_get_string_buf(&v, cfg, "crs-ci.failOn") == 0 ?
		xstrdup(v.ptr) : xstrdup("new");
	if (git_config_get_int64(&pc->timeout_s, cfg, "crs-ci.timeout") != 0)
		pc->timeout_s = 900;
	git_buf_dispose(&v);
	if (git_config_get_string_buf(&v, cfg, "crs-ci.base") == 0)
		pc->base = xstrdup(v.ptr);
out:
	free(dflt);
	git_error_clear();
	git_buf_dispose(&v);
	git_config_free(cfg);
	return r;
}

/* The merge-base of the commits `a` and `b` (hex) into *out, or 0. */
static int merge_base_hex(char **out, git_repository *repo, const char *a,
			  const char *b)
{
	git_oid x, y, mb;
	char hex[GIT_OID_HEXSZ + 1];

	if (git_oid_fromstr(&x, a) != 0 || git_oid_fromstr(&y, b) != 0 ||
	    git_merge_base(&mb, repo, &x, &y) != 0) {
		git_error_clear();
		return 0;
	}
	git_oid_tostr(hex, sizeof(hex), &mb);
	*out = xstrdup(hex);
	return 1;
}

/*
 * Where a new branch's scan starts: its merge-base with the revision in
 * git config crs-ci.base when set, else with the remote's default branch
 * (refs/remotes/REMOTE/HEAD, main or master). With neither, an error that
 * says what to configure: a push is never let through unscanned.
 */
static int new_branch_base(char **base, git_repository *repo,
			   const struct push_cfg *pc, const char *remote,
			   const struct diff_prepush_ref *ref)
{
	static const char *const heads[] = { "HEAD", "main", "master", NULL };
	const char *path = git_repository_path(repo);
	char *hex = NULL;
	int r = 0;

	*base = NULL;
	if (pc->base) {
		if (source_resolve(&hex, path, pc->base) != 0)
			r = crs_error_set(CRS_ECONFIG, "git config crs-ci.base: "
					  "'%s' is not a commit of this "
					  "repository", pc->base);
		else if (!merge_base_hex(base, repo, ref->local_oid, hex))
			r = crs_error_set(CRS_ECONFIG, "git config crs-ci.base: "
					  "'%s' shares no history with %s",
					  pc->base, ref->local_ref);
		free(hex);
		return r;
	}
	for (const char *const *h = heads; *h && !*base; h++) {
		char *name = xasprintf("refs/remotes/%s/%s", remote, *h);

		if (source_resolve(&hex, path, name) == 0)
			merge_base_hex(base, repo, ref->local_oid, hex);
		free(hex);
		hex = NULL;
		free(name);
	}
	crs_error_clear();
	if (*base)
		return 0;
	return crs_error_set(CRS_ECONFIG, "pre-push: %s is new on %s and there "
			     "is no base to scan it from (no remote-tracking "
			     "ref of its default branch, refs/remotes/%s/HEAD, "
			     "main or master, shares its history): run git "
			     "fetch %s if %s has that branch, or name the "
			     "revision the scan starts from with git config "
			     "crs-ci.base REV (e.g. main, or the commit before "
			     "your first); %s skips the check once",
			     ref->local_ref, remote, remote, remote, remote,
			     skip_once(pc));
}

static int scan_range(struct runner_ctx *ctx, const struct push_cfg *pc,
		      const char *gitdir, const char *workdir,
		      const char *base, const char *head, int *code)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	struct scan *s = NULL;
	char *out = xasprintf("%scrs-ci/out/%.12s", gitdir, head);
	char *work = xasprintf("%scrs-ci/work", gitdir);
	enum base_images_mode mode;
	int r;

	if ((r = base_images_mode_from_env(&mode)) != 0)
		goto out;
	o.base_images = (int)mode;
	o.compose = pc->compose;
	o.project = pc->project;
	o.source = workdir;
	o.base = base;
	o.head = head;
	o.timeout_s = pc->timeout_s;
	o.fail_on = pc->fail_on;
	o.out_dir = out;
	o.work_dir = work;
	log_info("pre-push: scanning %.12s..%.12s (results in %s)", base, head,
		 out);
	if ((r = scan_open(&s, &o, ctx, SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT |
			   SCAN_NEED_ENGINE | SCAN_NEED_CHANGE)) == 0)
		r = phase_scan_all(s, code);
	scan_close(s);
out:
	free(out);
	free(work);
	return r;
}

static const char pre_push_usage[] =
"usage: crs-ci pre-push [REMOTE [URL]] < ref lines\n"
"\nScan each range git is about to push and block the push (exit 1) on\n"
"findings that fail the policy. git's pre-push hook runs it (the hook\n"
"`crs-ci hook install` writes) with the ref lines on standard input;\n"
"the pre-commit framework runs it (.pre-commit-hooks.yaml, hook id\n"
"crs-ci) with PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF set instead.\n"
"A branch new on the remote is scanned from its merge-base with git\n"
"config crs-ci.base, else with the remote's default branch; with\n"
"neither, the push is refused with what to configure.\n"
"The scan options come from git config, section crs-ci (crs-ci hook\n"
"install writes them: compose, project, failOn, timeout, base); without\n"
"them the compose is .crs-ci/crs-compose.yaml (what crs-ci init\n"
"writes) and the project the repository's .clusterfuzzlite/.\n"
"\nexit status: 0 push, 1 findings block the push, 2 usage or\n"
"configuration error, 3 infrastructure error.\n";

/* git's ref lines from stdin, at most STDIN_MAX bytes. */
static int read_stdin(struct buf *in)
{
	char chunk[4096];
	ssize_t n;

	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) > 0) {
		if (in->len + (size_t)n > STDIN_MAX)
			return crs_error_set(CRS_EINPUT, "pre-push: more than "
					     "%u bytes on stdin", STDIN_MAX);
		buf_add(in, chunk, (size_t)n);
	}
	return 0;
}

/* How many pushed refs are to be scanned (deletions are not). */
static size_t to_scan(const struct diff_prepush *refs)
{
	size_t n = 0;

	for (size_t i = 0; i < refs->nr; i++)
		n += !refs->v[i].is_delete;
	return n;
}

/* The value of environment variable `name`, or NULL when unset or empty. */
static const char *env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * The ref line of a run by the pre-commit framework, from its environment
 * (git's lines on stdin were read by pre-commit itself). It gives
 * PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF when the pushed commits reach a
 * remote-tracking ref; on a first push, whose commits reach none, it gives
 * no range, only the pushed PRE_COMMIT_LOCAL_BRANCH (HEAD when run by
 * hand): that is then a new branch, scanned from its base.
 */
static int pre_commit_refs(struct buf *in, git_repository *repo)
{
	const char *path = git_repository_path(repo);
	const char *from = env_set("PRE_COMMIT_FROM_REF");
	const char *to = env_set("PRE_COMMIT_TO_REF");
	const char *local = env_set("PRE_COMMIT_LOCAL_BRANCH");
	const char *remote_ref = env_set("PRE_COMMIT_REMOTE_BRANCH");
	char *fhex = NULL, *thex = NULL, zeros[GIT_OID_HEXSZ + 1];
	int r;

	if (from && !from[strspn(from, "0")])
		from = NULL;	/* all zeros: the remote has no such ref */
	if (!(from && to))
		from = NULL, to = local ? local : "HEAD";
	if ((r = source_resolve(&thex, path, to)) != 0 ||
	    (from && (r = source_resolve(&fhex, path, from)) != 0))
		goto out;
	if (from) {
		buf_printf(in, "%s %s %s %s\n", to, thex, from, fhex);
		goto out;
	}
	log_info("pre-push: pre-commit gave no range (the pushed commits "
		 "reach no remote-tracking ref): %s is scanned as a new branch",
		 to);
	memset(zeros, '0', strlen(thex));
	zeros[strlen(thex)] = '\0';
	buf_printf(in, "%s %s %s %s\n", to, thex, remote_ref ? remote_ref : to,
		   zeros);
out:
	free(fhex);
	free(thex);
	return r;
}

int cmd_pre_push(int argc, char **argv, struct runner_ctx *ctx)
{
	struct push_cfg pc = { 0 };
	git_repository *repo = NULL;
	struct buf in = BUF_INIT;
	const char *remote = argc > 1 ? argv[1] : "origin";
	struct diff_prepush *refs = NULL;
	int r, blocked = 0, scanned = 0, incomplete = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(pre_push_usage, ctx->out);
		return EXIT_OK;
	}
	if (argc > 1 && argv[1][0] == '-')
		return cli_usage_error(ctx->err, "pre-push", "unknown option "
				       "'%s' for 'pre-push'", argv[1]);
	if (argc > 3)
		return cli_usage_error(ctx->err, "pre-push", "unexpected "
				       "argument '%s'", argv[3]);
	/* pre-commit sets PRE_COMMIT=1 for its hooks (and the range, if any) */
	pc.pre_commit = (env_set("PRE_COMMIT") && !strcmp(getenv("PRE_COMMIT"),
							  "1")) ||
		(env_set("PRE_COMMIT_FROM_REF") && env_set("PRE_COMMIT_TO_REF"));
	if (pc.pre_commit && env_set("PRE_COMMIT_REMOTE_NAME"))
		remote = getenv("PRE_COMMIT_REMOTE_NAME");
	if (!pc.pre_commit) {
		/* git's lines on stdin: with nothing to scan, done at once */
		if ((r = read_stdin(&in)) != 0 ||
		    (r = diff_prepush_parse(in.ptr, in.len, &refs)) != 0)
			goto out;
		if (!to_scan(refs))
			goto out;
	}
	if ((r = lib_init_all()) != 0)
		goto out;
	if (git_repository_open_ext(&repo, ".", 0, NULL) != 0) {
		r = git_fail(CRS_EINPUT, "not in a git repository");
		goto out;
	}
	if ((r = read_cfg(&pc, repo)) != 0)
		goto out;
	if (!refs && ((r = pre_commit_refs(&in, repo)) != 0 ||
		      (r = diff_prepush_parse(in.ptr, in.len, &refs)) != 0))
		goto out;
	for (size_t i = 0; i < refs->nr && r == 0; i++) {
		const struct diff_prepush_ref *ref = &refs->v[i];
		char *base = NULL;
		int code = 0;

		if (ref->is_delete) {
			log_info("pre-push: %s is deleted: nothing to scan",
				 ref->remote_ref);
			continue;
		}
		if (ref->is_new &&
		    (r = new_branch_base(&base, repo, &pc, remote, ref)) != 0)
			break;
		if (base && !strcmp(base, ref->local_oid)) {
			log_info("pre-push: %s is already in %s: nothing new "
				 "to scan", ref->local_ref, pc.base ? pc.base :
				 "the remote's default branch");
			free(base);
			continue;
		}
		r = scan_range(ctx, &pc, git_repository_path(repo),
			       git_repository_workdir(repo),
			       base ? base : ref->remote_oid, ref->local_oid,
			       &code);
		scanned++;
		/* INCOMPLETE does not block a push: it warns (see below) */
		incomplete |= code == EXIT_INCOMPLETE;
		blocked |= code != 0 && code != EXIT_INCOMPLETE;
		free(base);
	}
out:
	if (r == 0 && blocked)
		log_error("push blocked: findings fail --fail-on %s (see above); "
			  "%s skips this check", pc.fail_on, skip_once(&pc));
	else if (r == 0 && incomplete)
		log_warn("pre-push: INCOMPLETE: a selected harness got less "
			 "fuzzing than it was due (see above), so this is not a "
			 "clean pass; the push goes ahead (raise "
			 "crs-ci.timeout to fuzz it all)");
	else if (r == 0)
		log_info("pre-push: %d range(s) scanned, nothing blocks the "
			 "push", scanned);
	buf_release(&in);
	diff_prepush_free(refs);
	git_repository_free(repo);
	free(pc.compose);
	free(pc.project);
	free(pc.fail_on);
	free(pc.base);
	if (r != 0) {
		int code = phase_cmd_fail(r);

		if (r == CRS_EENGINE)
			log_error("pre-push: no scan without the container engine "
				  "(see above for how to start it); to push once "
				  "without the check: %s", skip_once(&pc));
		return code;
	}
	return blocked ? EXIT_FINDINGS : EXIT_OK;
}
