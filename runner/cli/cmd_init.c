/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_init.c - crs-ci init: a starter compose and CI files for a repository
 *
 * Idempotent, checks every file before writing any, and writes
 * nothing through a link.
 *
 * Details: docs/cmd/init.md; design notes: docs/internals.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/config/project_layout.h"
#include "runner/init/init_cflite.h"
#include "runner/init/init_plan.h"
#include "runner/init/init_render.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INIT_GITHUB ".github/workflows/crs-ci.yml"
#define INIT_GITHUB_PUBLISH ".github/workflows/crs-ci-publish.yml"
#define INIT_GITHUB_CORPUS ".github/workflows/crs-ci-corpus.yml"
#define INIT_GITHUB_BASELINE ".github/workflows/crs-ci-baseline.yml"
#define INIT_GITLAB ".gitlab-ci.yml"
/* CPUs of GitHub's ubuntu-latest runners for public repositories */
#define INIT_PUBLIC_CPUS 4
#define INIT_GITLAB_INCLUDE ".crs-ci/gitlab-ci.yml"
#define INIT_FILE_MAX (1u << 20)
#define INIT_CPUS_MAX 4096

static const char init_usage[] =
"usage: crs-ci init [--source DIR] [--project DIR] [--compose PATH]\n"
"                   [--ci github|gitlab|both] [--cpus N] [--force]\n"
"                   [--public] [--dry-run]\n"
"\nIn a repository with a .clusterfuzzlite/ folder (or an OSS-Fuzz\n"
"project folder given with --project), write a starter compose that\n"
"names crs-ci's bundled CRSs by registry name, and the CI files that scan\n"
"every pull or merge request with it; then print what was written and\n"
"the command that tries it on the repository's last commit. A file that\n"
"exists is never overwritten without --force, a user's own .gitlab-ci.yml\n"
"never (the include goes to " INIT_GITLAB_INCLUDE " and init prints the\n"
"lines to add), and nothing is written through a symbolic link.\n";

static const char init_exit_status[] =
"\nexit status: 0 done (also when every file was kept), 2 usage, no\n"
"project found, or a path init refuses (a link), 3 a write failed.\n";

enum {
	OPT_SOURCE = 256, OPT_PROJECT, OPT_COMPOSE, OPT_CI, OPT_CPUS,
	OPT_FORCE, OPT_DRY_RUN, OPT_PUBLIC,
};

const struct opt_spec cmd_init_opts[] = {
	{ .name = "source", .id = OPT_SOURCE, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "the repository (default: the one holding .)" },
	{ .name = "project", .id = OPT_PROJECT, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "an OSS-Fuzz project folder inside the repository\n"
	  "(default: the repository's .clusterfuzzlite/)" },
	{ .name = "compose", .id = OPT_COMPOSE, .kind = OPT_STRING,
	  .value_name = "PATH",
	  .help = "where the compose goes, relative to the repository\n"
	  "(default " INIT_COMPOSE ")" },
	{ .name = "ci", .id = OPT_CI, .kind = OPT_ENUM, .value_name = "WHICH",
	  .choices = "github|gitlab|both",
	  .help = "github (" INIT_GITHUB "), gitlab\n"
	  "(" INIT_GITLAB "), or both; default: github when\n"
	  ".github/ exists, gitlab when .gitlab-ci.yml does,\n"
	  "both when neither (or both) do" },
	{ .name = "cpus", .id = OPT_CPUS, .kind = OPT_INT, .value_name = "N",
	  .min = 1, .max = INIT_CPUS_MAX,
	  .help = "lay the compose out for a CI runner with N CPUs\n"
	  "instead of this machine (its CPU count and memory).\n"
	  "GitHub's ubuntu-latest runners have 4 CPUs on public\n"
	  "repositories, 2 on private ones; memory then assumes\n"
	  "3.5 GiB per CPU" },
	{ .name = "public", .id = OPT_PUBLIC, .kind = OPT_FLAG,
	  .help = "a public repository taking pull requests from\n"
	  "forks: the two-job mode. " INIT_GITHUB " scans\n"
	  "with no token and uploads a result bundle;\n"
	  INIT_GITHUB_PUBLISH " (workflow_run, the\n"
	  "default branch's code) posts its review and check\n"
	  "(actions/README.md, docs/bundle.md)" },
	{ .name = "force", .id = OPT_FORCE, .kind = OPT_FLAG,
	  .help = "overwrite files whose content differs" },
	{ .name = "dry-run", .id = OPT_DRY_RUN, .kind = OPT_FLAG,
	  .help = "write nothing; say what would be written" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

enum init_ci { INIT_CI_DETECT, INIT_CI_GITHUB, INIT_CI_GITLAB, INIT_CI_BOTH };

struct init_opts {
	const char *source, *project, *compose;
	enum init_ci ci;
	unsigned cpus;		/* 0: this machine */
	int force, dry_run, public;
};

enum init_state { INIT_NEW, INIT_SAME, INIT_DIFFERENT };

struct init_file {
	const char *rel;	/* relative to the repository root */
	struct buf text;
	enum init_state state;
};

/* Options into *o: 0, 1 after -h, or EXIT_USAGE (+2) after a message. */
static int init_parse(struct init_opts *o, int argc, char **argv,
		      struct runner_ctx *ctx)
{
	struct opt_parser p;
	struct opt_value v;
	int r;

	opt_parser_init(&p, cmd_init_opts, argc, argv, 0, "init");
	while ((r = opt_next(&p, &v)) == 1) {
		switch (v.spec->id) {
		case OPT_SOURCE: o->source = v.arg; break;
		case OPT_PUBLIC: o->public = 1; break;
		case OPT_PROJECT: o->project = v.arg; break;
		case OPT_COMPOSE: o->compose = v.arg; break;
		case OPT_CI: o->ci = (enum init_ci)(INIT_CI_GITHUB + v.num); break;
		case OPT_CPUS: o->cpus = (unsigned)v.num; break;
		case OPT_FORCE: o->force = 1; break;
		case OPT_DRY_RUN: o->dry_run = 1; break;
		default:
			cli_help(ctx->out, init_usage, cmd_init_opts,
				 init_exit_status);
			return 1;
		}
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "init");
	if (p.idx < argc)
		return cli_usage_error(ctx->err, "init",
					"unexpected argument '%s'",
					argv[p.idx]);
	return 0;
}

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return crs_error_set(code, "%s: %s", what,
			     e && e->message ? e->message : "libgit2 error");
}

/* The repository's working tree holding `source`, as a real path. */
static int init_root(char **out, git_repository **repo_out,
		     const char *source)
{
	git_repository *repo = NULL;
	char *root = NULL;

	*out = NULL;
	if (git_repository_open_ext(&repo, source, 0, NULL) != 0)
		return git_fail(CRS_EINPUT, source);
	if (!git_repository_workdir(repo)) {
		git_repository_free(repo);
		return crs_error_set(CRS_EINPUT, "%s: a bare repository (init "
				     "writes into a working tree)", source);
	}
	if (!(root = realpath(git_repository_workdir(repo), NULL))) {
		int e = errno;

		git_repository_free(repo);
		return crs_error_set(CRS_ERR, "%s: %s", source, strerror(e));
	}
	*out = root;
	*repo_out = repo;
	return 0;
}

/*
 * `path` relative to `root` (both real paths): CRS_EINPUT naming `what`
 * when it is not inside.
 */
static int init_relative(char **out, const char *root, const char *path,
			 const char *what)
{
	size_t n = strlen(root);

	*out = NULL;
	if (strncmp(path, root, n) || (path[n] != '/' && path[n]) ||
	    !path[n] || !path[n + 1])
		return crs_error_set(CRS_EINPUT, "%s '%s' is not inside the "
				     "repository '%s' (the CI job reads it "
				     "from the checkout: copy it in)", what,
				     path, root);
	*out = xstrdup(path + n + 1);
	return 0;
}

/*
 * project_locate found no project without --project: say once what init
 * looked for and what to do. A .clusterfuzzlite/ that is there but not
 * usable keeps project_locate's words on what is wrong with it.
 */
static void init_no_project(int r, const char *root)
{
	char *cfl = xasprintf("%s/.clusterfuzzlite", root);
	struct stat st;

	if (lstat(cfl, &st) != 0)
		crs_error_set(r, "no project: crs-ci init looked for %s/ "
			      "(Dockerfile, build.sh, project.yaml) and "
			      "--project was not given. Add a ClusterFuzzLite "
			      "folder (https://google.github.io/clusterfuzzlite/"
			      "build-integration/) or name an OSS-Fuzz project "
			      "folder in the repository with --project DIR",
			      cfl);
	else
		crs_error_set(r, "no usable project: crs-ci init looked for "
			      "%s/ and --project was not given: %s. Fix that "
			      "folder (https://google.github.io/clusterfuzzlite/"
			      "build-integration/) or name an OSS-Fuzz project "
			      "folder in the repository with --project DIR",
			      cfl, crs_error_last());
	free(cfl);
}

/* The project folder, located and made relative to the repository. */
static int init_project(struct project_location *loc, char **rel_out,
			const struct init_opts *o, const char *root)
{
	char *real = NULL;
	int r;

	*rel_out = NULL;
	if ((r = project_locate(loc, o->project, root)) != 0) {
		if (!o->project)
			init_no_project(r, root);
		return r;
	}
	if (!(real = realpath(loc->dir, NULL)))
		return crs_error_set(CRS_EINPUT, "%s: %s", loc->dir,
				     strerror(errno));
	r = init_relative(rel_out, root, real, "--project");
	free(real);
	if (r == 0)
		r = init_render_path_ok(*rel_out, "--project");
	return r;
}

/* --compose, relative to the repository (an absolute one must be in it). */
static int init_compose_path(char **out, const struct init_opts *o,
			     const char *root)
{
	char *abs = NULL, *joined = NULL;
	int r;

	*out = NULL;
	if (!o->compose)
		joined = xasprintf("%s/%s", root, INIT_COMPOSE);
	else if (o->compose[0] == '/')
		joined = xstrdup(o->compose);
	else
		joined = xasprintf("%s/%s", root, o->compose);
	abs = fs_abspath(joined);	/* ./ and ../ resolved */
	free(joined);
	r = init_relative(out, root, abs, "--compose");
	free(abs);
	if (r == 0)
		r = init_render_path_ok(*out, "--compose");
	if (r == 0 && (!strcmp(*out, INIT_GITHUB) ||
		       !strcmp(*out, INIT_GITHUB_CORPUS) ||
		       !strcmp(*out, INIT_GITLAB) ||
		       !strcmp(*out, INIT_GITLAB_INCLUDE)))
		r = crs_error_set(CRS_EINPUT, "--compose '%s' is a CI file's "
				  "name", *out);
	return r;
}

/* lstat of root/rel without following a link at rel's last component. */
static int init_present(int rootfd, const char *rel)
{
	struct stat st;

	return fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * Whether root/.gitlab-ci.yml is crs-ci init's own (carries the mark) or
 * missing: then init writes it; a user's file (or a link) is left alone.
 */
static int init_gitlab_is_ours(int rootfd)
{
	struct buf b = BUF_INIT;
	int r;

	r = fs_read_regular_at(&b, rootfd, INIT_GITLAB, NULL, INIT_FILE_MAX,
			       NULL);
	if (r == CRS_ENOTFOUND)
		r = 1;
	else
		r = r == 0 && strstr(b.ptr, INIT_RENDER_MARK) != NULL;
	crs_error_clear();
	buf_release(&b);
	return r;
}

/* What is at f->rel now: new, the same, different; links refused. */
static int init_check(struct init_file *f, int rootfd, const char *root)
{
	struct buf b = BUF_INIT;
	const char *leaf = NULL;
	struct stat st;
	int pfd = -1, r;

	f->state = INIT_NEW;
	r = fs_walk_beneath(&pfd, &leaf, rootfd, f->rel, 0, root);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		return 0;
	}
	if (r != 0)
		goto out;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			r = crs_error_set(CRS_ERR, "%s/%s: %s", root, f->rel,
					  strerror(errno));
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		r = crs_error_set(CRS_EINPUT, "%s/%s: a link (crs-ci init "
				  "does not write through links)", root,
				  f->rel);
		goto out;
	}
	if ((r = fs_read_regular_at(&b, pfd, leaf, f->rel, INIT_FILE_MAX,
				    NULL)) != 0)
		goto out;
	f->state = b.len == f->text.len &&
		!memcmp(b.ptr, f->text.ptr, b.len) ? INIT_SAME :
		INIT_DIFFERENT;
out:
	if (pfd >= 0)
		close(pfd);
	buf_release(&b);
	return r;
}

static int init_write(const struct init_file *f, int rootfd,
		      const char *root)
{
	const char *leaf = NULL;
	int pfd = -1, r;

	if ((r = fs_walk_beneath(&pfd, &leaf, rootfd, f->rel, 1, root)) == 0)
		r = fs_write_at(pfd, leaf, f->text.ptr, f->text.len);
	if (pfd >= 0)
		close(pfd);
	if (r != 0)
		crs_error_prefix("%s/%s", root, f->rel);
	return r;
}

/* The base of the local try: the default branch, else HEAD~1. */
static char *init_base(git_repository *repo, int *one_commit)
{
	static const char *const names[] = {
		"refs/remotes/origin/HEAD", "refs/heads/main",
		"refs/heads/master",
	};
	git_reference *ref = NULL, *res = NULL;
	git_oid head, base;
	git_commit *c = NULL;
	char *out = NULL;

	*one_commit = 0;
	if (git_reference_name_to_id(&head, repo, "HEAD") != 0)
		goto out;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !out;
	     i++) {
		const char *shown;

		if (git_reference_lookup(&ref, repo, names[i]) != 0)
			continue;
		if (git_reference_resolve(&res, ref) == 0 &&
		    git_oid_cmp(git_reference_target(res), &head) &&
		    git_merge_base(&base, repo, git_reference_target(res),
				   &head) == 0) {
			shown = git_reference_shorthand(res);
			out = xstrdup(shown);
		}
		git_reference_free(res);
		git_reference_free(ref);
		res = ref = NULL;
	}
	if (!out && git_commit_lookup(&c, repo, &head) == 0 &&
	    git_commit_parentcount(c) == 0)
		*one_commit = 1;
out:
	git_commit_free(c);
	git_error_clear();
	return out ? out : xstrdup("HEAD~1");
}

static const char *const state_word[][2] = {	/* [state][dry_run] */
	[INIT_NEW] = { "wrote", "would write" },
	[INIT_SAME] = { "up to date", "up to date" },
	[INIT_DIFFERENT] = { "exists, kept", "exists, would keep" },
};

static void init_report(FILE *out, const struct init_file *f, int force,
			int dry_run)
{
	if (f->state == INIT_DIFFERENT && force)
		fprintf(out, "  %-18s %s\n", dry_run ? "would overwrite" :
			"overwrote", f->rel);
	else if (f->state == INIT_DIFFERENT)
		fprintf(out, "  %-18s %s (its content differs; --force "
			"overwrites)\n", state_word[f->state][dry_run],
			f->rel);
	else
		fprintf(out, "  %-18s %s\n", state_word[f->state][dry_run],
			f->rel);
}

/* `crs-ci init` with the options that shape the files' content. */
static char *init_regen(const struct init_opts *o, const char *project_rel,
			const char *compose_rel)
{
	static const char *const ci[] = {
		[INIT_CI_GITHUB] = "github", [INIT_CI_GITLAB] = "gitlab",
		[INIT_CI_BOTH] = "both",
	};
	struct buf b = BUF_INIT;

	buf_adds(&b, "crs-ci init");
	if (o->project)
		buf_printf(&b, " --project %s", project_rel);
	if (strcmp(compose_rel, INIT_COMPOSE))
		buf_printf(&b, " --compose %s", compose_rel);
	if (o->ci != INIT_CI_DETECT)
		buf_printf(&b, " --ci %s", ci[o->ci]);
	if (o->cpus)
		buf_printf(&b, " --cpus %u", o->cpus);
	if (o->public)
		buf_adds(&b, " --public");
	buf_adds(&b, " --force");
	return buf_detach(&b, NULL);
}

/*
 * The repository's default branch (caller frees): where origin/HEAD
 * points, else main or master when the repository has one, else the
 * branch checked out, else "main". A name a workflow could not hold as
 * it is falls back to "main".
 */
static char *init_default_branch(git_repository *repo)
{
	static const char *const common[] = {
		"refs/heads/main", "refs/remotes/origin/main",
		"refs/heads/master", "refs/remotes/origin/master",
	};
	git_reference *ref = NULL;
	const char *t;
	char *name = NULL;

	if (repo && git_reference_lookup(&ref, repo,
					 "refs/remotes/origin/HEAD") == 0 &&
	    (t = git_reference_symbolic_target(ref)) &&
	    !strncmp(t, "refs/remotes/origin/", 20))
		name = xstrdup(t + 20);
	git_reference_free(ref);
	ref = NULL;
	for (size_t i = 0; repo && !name && i < 4; i++)
		if (git_reference_lookup(&ref, repo, common[i]) == 0)
			name = xstrdup(strrchr(common[i], '/') + 1);
	git_reference_free(ref);
	ref = NULL;
	if (repo && !name && git_repository_head(&ref, repo) == 0 &&
	    git_reference_is_branch(ref))
		name = xstrdup(git_reference_shorthand(ref));
	git_reference_free(ref);
	if (!name || init_render_path_ok(name, "default branch") != 0) {
		crs_error_clear();
		free(name);
		name = xstrdup("main");
	}
	return name;
}

/* What to do with ClusterFuzzLite's workflows, when there are any. */
static void init_cflite(FILE *out, int rootfd, const char *root)
{
	struct buf notes = BUF_INIT;
	const char *leaf;
	int parent = -1, fd = -1;

	if (fs_walk_beneath(&parent, &leaf, rootfd, ".github/workflows", 0,
			    root) == 0)
		fd = openat(parent, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	crs_error_clear();
	if (fd >= 0)
		init_cflite_notes(&notes, fd);
	if (notes.len)
		fprintf(out, "\nClusterFuzzLite's workflows are here too "
			"(docs/clusterfuzzlite.md maps them onto crs-ci):\n%s",
			notes.ptr);
	buf_release(&notes);
	if (fd >= 0)
		close(fd);
	if (parent >= 0)
		close(parent);
}

static void init_machine(struct init_plan *plan, unsigned cpus)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
	unsigned long long mb = 0;

	if (cpus) {
		init_plan_make(plan, cpus, 0);
		return;
	}
	if (pages > 0 && psize > 0)
		mb = (unsigned long long)pages * (unsigned long long)psize >>
			20;
	init_plan_make(plan, n > 0 && n <= INIT_CPUS_MAX ? (unsigned)n : 1,
		       mb);
}

/* `s` for the shell: as it is when nothing in it is special, else quoted. */
static void init_add_word(struct buf *b, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@/~:";

	if (s[0] && !s[strspn(s, plain)] && s[0] != '~')
		buf_adds(b, s);
	else
		buf_add_sh_word(b, s);
}

/*
 * "crs-ci" when that name on PATH is this program, else this program's
 * path: the printed command must run the crs-ci that wrote the files.
 */
static char *init_program(void)
{
	char *self = fs_self_exe("crs-ci"), *real = realpath(self, NULL);
	const char *path = getenv("PATH");
	char *out = NULL;

	while (real && path && *path && !out) {
		size_t n = strcspn(path, ":");
		char *cand = xasprintf("%.*s/crs-ci", (int)n, path);
		char *creal = n ? realpath(cand, NULL) : NULL;

		if (creal && !strcmp(creal, real) && access(cand, X_OK) == 0)
			out = xstrdup("crs-ci");
		free(creal);
		free(cand);
		path += n + (path[n] == ':');
	}
	if (!out) {
		out = self;
		self = NULL;	/* transferred */
	}
	free(self);
	free(real);
	return out;
}

static void init_try(FILE *out, git_repository *repo, const char *root,
		     const struct project_location *loc,
		     const char *project_rel, const char *compose_rel)
{
	struct buf cmd = BUF_INIT;
	int one_commit = 0;
	char *base = init_base(repo, &one_commit), *prog = init_program();

	buf_adds(&cmd, "cd ");
	init_add_word(&cmd, root);
	buf_adds(&cmd, " && ");
	init_add_word(&cmd, prog);
	buf_printf(&cmd, " scan --source . --compose %s", compose_rel);
	if (loc->layout != PROJECT_LAYOUT_CLUSTERFUZZLITE)
		buf_printf(&cmd, " --project %s", project_rel);
	buf_adds(&cmd, " --base ");
	init_add_word(&cmd, base);
	buf_adds(&cmd, " --head HEAD --timeout 10m");
	fprintf(out, "\nTry it on the last commit%s:\n  %s\n",
		strcmp(base, "HEAD~1") ? "s since the default branch" : "",
		cmd.ptr);
	if (one_commit)
		fprintf(out, "(the repository has one commit: commit a "
			"change first, then scan it)\n");
	fprintf(out, "\nCommit these files on the default branch: a pull "
		"or merge request is\nscanned with the compose of its base "
		"commit.\n");
	free(base);
	free(prog);
	buf_release(&cmd);
}

int cmd_init(int argc, char **argv, struct runner_ctx *ctx)
{
	struct init_opts o = { .source = "." };
	struct project_location loc = { 0 };
	struct init_plan plan;
	struct init_render_opts ro = {
		.plan = &plan, .release_commit = CRS_CI_COMMIT_STR,
	};
	struct init_file files[6];
	size_t nfiles = 0;
	git_repository *repo = NULL;
	char *root = NULL, *project_rel = NULL, *compose_rel = NULL;
	char *regen = NULL, *branch = NULL;
	int rootfd = -1, r = 0, code, github, gitlab, gitlab_user = 0;
	int changed = 0;
	unsigned cpus;

	memset(files, 0, sizeof(files));
	if ((code = init_parse(&o, argc, argv, ctx)) != 0)
		return code == 1 ? EXIT_OK : code;
	if ((r = init_root(&root, &repo, o.source)) != 0 ||
	    (r = init_project(&loc, &project_rel, &o, root)) != 0 ||
	    (r = init_compose_path(&compose_rel, &o, root)) != 0 ||
	    (r = fs_open_dir(&rootfd, root)) != 0)
		goto out;
	github = o.ci == INIT_CI_GITHUB || o.ci == INIT_CI_BOTH;
	gitlab = o.ci == INIT_CI_GITLAB || o.ci == INIT_CI_BOTH;
	if (o.ci == INIT_CI_DETECT) {
		github = init_present(rootfd, ".github");
		gitlab = init_present(rootfd, INIT_GITLAB);
		if (!github && !gitlab)
			github = gitlab = 1;
	}
	/* --public: the runner, not this machine, is what the compose fits */
	cpus = o.cpus ? o.cpus : github && o.public ? INIT_PUBLIC_CPUS : 0;
	init_machine(&plan, cpus);
	regen = init_regen(&o, project_rel, compose_rel);
	ro.plan_is_machine = !cpus;
	ro.compose = compose_rel;
	ro.project = project_rel;
	ro.layout = project_layout_name(loc.layout);
	ro.regen = regen;
	ro.public = o.public;
	ro.default_branch = branch = init_default_branch(repo);

	files[nfiles].rel = compose_rel;
	init_render_compose(&files[nfiles++].text, &ro);
	if (github) {
		files[nfiles].rel = INIT_GITHUB;
		init_render_github(&files[nfiles++].text, &ro);
	}
	if (github) {
		files[nfiles].rel = INIT_GITHUB_CORPUS;
		init_render_github_corpus(&files[nfiles++].text, &ro);
		files[nfiles].rel = INIT_GITHUB_BASELINE;
		init_render_github_baseline(&files[nfiles++].text, &ro);
	}
	if (github && o.public) {
		files[nfiles].rel = INIT_GITHUB_PUBLISH;
		init_render_github_publish(&files[nfiles++].text, &ro);
	}
	if (gitlab) {
		gitlab_user = !init_gitlab_is_ours(rootfd);
		files[nfiles].rel = gitlab_user ? INIT_GITLAB_INCLUDE :
			INIT_GITLAB;
		init_render_gitlab(&files[nfiles++].text, &ro);
	}
	/* every path is checked before anything is written */
	for (size_t i = 0; i < nfiles; i++)
		if ((r = init_check(&files[i], rootfd, root)) != 0)
			goto out;

	fprintf(ctx->out, "crs-ci init: %s %s (project %s) in %s\n",
		ro.layout, project_rel, loc.name, root);
	fprintf(ctx->out, "compose laid out for %u CPU%s (%s)\n", plan.cpus,
		plan.cpus == 1 ? "" : "s", o.cpus ? "--cpus" : cpus ?
		"--public: GitHub's runners for public repositories" :
		"this machine");
	for (size_t i = 0; i < nfiles; i++) {
		struct init_file *f = &files[i];
		int write = f->state == INIT_NEW ||
			(f->state == INIT_DIFFERENT && o.force);

		if (write && !o.dry_run &&
		    (r = init_write(f, rootfd, root)) != 0)
			goto out;
		changed |= write;
		init_report(ctx->out, f, o.force, o.dry_run);
	}
	if (!changed)
		fprintf(ctx->out, "nothing to write: every file is up to date "
			"or kept\n");
	if (gitlab_user) {
		struct buf lines = BUF_INIT;

		init_render_gitlab_lines(&lines, INIT_GITLAB_INCLUDE);
		fprintf(ctx->out, "\n" INIT_GITLAB " is your own: crs-ci init "
			"does not edit it. Add these lines to it\n(or only "
			"the `- local:` item to its include: list):\n%s",
			lines.ptr);
		buf_release(&lines);
	}
	if (github)
		init_cflite(ctx->out, rootfd, root);
	if (github && !cpus && plan.cpus > 4)
		fprintf(ctx->out, "\nnote: the compose uses %u CPUs; GitHub's "
			"ubuntu-latest runners have 4 (public repositories) "
			"or 2 (private): `crs-ci init --cpus 4 --force` lays "
			"it out for one\n", plan.cpus);
	init_try(ctx->out, repo, root, &loc, project_rel, compose_rel);
out:
	for (size_t i = 0; i < nfiles; i++)
		buf_release(&files[i].text);
	if (rootfd >= 0)
		close(rootfd);
	project_location_release(&loc);
	git_repository_free(repo);
	free(root);
	free(project_rel);
	free(compose_rel);
	free(regen);
	free(branch);
	if (r != 0) {
		log_error("%s", crs_error_last());
		return exit_code_for(r);
	}
	return EXIT_OK;
}
