/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_render.c - templates of the compose, workflow and GitLab include
 *
 * Output depends only on the options, so a second init finds every
 * file up to date.
 *
 * Details: docs/cmd/init.md; design notes: docs/internals.md.
 */
#include "runner/init/init_render.h"
#include "runner/init/init_plan.h"
#include "runner/scan/ctx.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int init_render_path_ok(const char *path, const char *what)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@/";
	size_t bad;

	if (!path[0])
		return crs_error_set(CRS_EINPUT, "%s: empty path", what);
	bad = strspn(path, ok);
	if (path[bad])
		return crs_error_set(CRS_EINPUT, "%s: path \"%.*s...\" holds "
				     "character 0x%02x, which crs-ci init "
				     "does not write into CI files (letters, "
				     "digits and ._-+@/ only)", what,
				     (int)bad, path,
				     (unsigned char)path[bad]);
	for (const char *p = path; *p; ) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return crs_error_set(CRS_EINPUT, "%s: \"%s\" leaves "
					     "the repository", what, path);
		p += n + (p[n] == '/');
	}
	return 0;
}

char *init_compose_find(const char *worktree)
{
	size_t n = strlen(worktree);
	char *path = xasprintf("%s%s" INIT_COMPOSE, worktree,
			       n && worktree[n - 1] == '/' ? "" : "/");

	if (fs_exists(path))
		return path;
	free(path);
	return NULL;
}

void init_render_release_ref(char *ref, const struct init_render_opts *o)
{
	const char *c = o->release_commit ? o->release_commit : "";

	/* only a full commit: anything else would pin nothing */
	if (strlen(c) == 40 && strspn(c, "0123456789abcdef") == 40)
		snprintf(ref, INIT_RELEASE_REF_MAX, "%s # " INIT_RELEASE_TAG,
			 c);
	else
		snprintf(ref, INIT_RELEASE_REF_MAX, "%s", INIT_RELEASE_TAG);
}

static void header(struct buf *b, const char *name, const char *what,
		   const struct init_render_opts *o)
{
	buf_printf(b, "# %s - %s\n#\n# " INIT_RENDER_MARK " (crs-ci %s). "
		   "Edit it freely: init never\n# overwrites a changed file "
		   "without --force. Regenerate with:\n#   %s\n", name, what,
		   CRS_CI_VERSION, o->regen);
}

static void resource(struct buf *b, const char *name, const char *cpuset,
		     unsigned long long mb)
{
	char mem[32];

	init_plan_mem_str(mem, mb);
	buf_printf(b, "%s:\n  cpuset: \"%s\"\n  memory: \"%s\"\n", name,
		   cpuset, mem);
}

void init_render_compose(struct buf *out, const struct init_render_opts *o)
{
	const struct init_plan *p = o->plan;

	header(out, "crs-compose.yaml", "the CRSs crs-ci runs on each change",
	       o);
	buf_printf(out, "#\n# Laid out for %u CPU%s and %llu GiB of memory, "
		   "%s:\n",
		   p->cpus, p->cpus == 1 ? "" : "s", p->total_mb >> 10,
		   o->plan_is_machine ? "the machine init ran on\n# (for a CI "
		   "runner, give its size: crs-ci init --cpus N)" : "a CI "
		   "runner's size\n# (crs-ci init --cpus N)");
	buf_adds(out, "#   oss_crs_infra gets core 0: crs-ci itself, the "
		 "target builds, PoV\n#     reproduction and the LLM "
		 "gateway;\n");
	if (p->cpus == 1)
		buf_adds(out, "#   crs-libfuzzer shares core 0 with it (one "
			 "CPU);\n");
	else
		buf_adds(out, "#   crs-libfuzzer gets core 1 (libFuzzer runs "
			 "one process on one core);\n");
	if (p->cpus > 3)
		buf_printf(out, "#   crs-aflpp gets cores 2-%u, the rest.\n",
			   p->cpus - 1);
	else if (p->cpus == 3)
		buf_adds(out, "#   crs-aflpp gets core 2, the rest.\n");
	else
		buf_printf(out, "#   crs-aflpp needs a third core: with %u it "
			   "is left out.\n", p->cpus);
	buf_adds(out,
"# Each CRS is named by its registry name alone (no `source`): crs-ci\n"
"# finds registry/<name>.yaml next to its binary, in $CRS_CI_REGISTRY or\n"
"# in `crs-ci scan --registry DIR` (docs/crs-sources.md).\n"
"run_env: local\n"
"docker_registry: local\n");
	resource(out, "oss_crs_infra", p->infra_cpuset, p->infra_mb);
	resource(out, "crs-libfuzzer", p->libfuzzer_cpuset, p->libfuzzer_mb);
	if (p->aflpp_cpuset[0])
		resource(out, "crs-aflpp", p->aflpp_cpuset, p->aflpp_mb);
	buf_adds(out,
"\n"
"# The LLM patcher (crs-llm-patcher) asks a model for a fix of each crash\n"
"# the fuzzers prove; crs-ci shows a fix only after it applied, built,\n"
"# stopped every PoV and passed the project's tests. It needs a model\n"
"# provider's API key in the environment of crs-ci: OPENAI_API_KEY here\n"
"# (a CI secret: GitHub repository secret, GitLab masked CI/CD variable).\n"
"# crs-ci hands the key only to its LLM gateway; the CRS gets a key of\n"
"# its own, good for llm_budget dollars. It waits for PoVs most of the\n"
"# time, so it shares core 0 with the infra. To enable it, uncomment:\n"
"#\n"
"# llm_config:\n"
"#   litellm:\n"
"#     mode: external\n"
"#     external:\n"
"#       url: https://api.openai.com\n"
"#       key_env: OPENAI_API_KEY\n"
"# crs-llm-patcher:\n"
"#   cpuset: \"0\"\n"
"#   memory: \"1G\"\n"
"#   llm_budget: 2.00\n");
}

/* The pull_request workflow's head: what it is, when it runs, its rights. */
static void github_head(struct buf *out, const struct init_render_opts *o)
{
	header(out, "crs-ci.yml", "crs-ci scans every pull request", o);
	buf_printf(out,
"#\n"
"# Based on actions/examples/pr-scan.yml. For each pull request, the\n"
"# CRSs of the compose (read from the base commit, which the pull request\n"
"# cannot change) fuzz the project (%s) at the pull\n"
"# request's head; crashes the change introduced fail the check, with\n"
"# annotations, a job summary and SARIF in code scanning.\n", o->layout);
	if (o->public)
		buf_adds(out,
"# Two-job mode (crs-ci init --public; actions/README.md): this job runs\n"
"# the pull request's code with no token in crs-ci's environment and\n"
"# uploads a result bundle; crs-ci-publish.yml, a workflow_run job of the\n"
"# default branch, posts the review and the check from it. LLM CRSs run\n"
"# on a fork's or first-time contributor's pull request only when a\n"
"# maintainer sets the label crs-ci-llm (and a fork's run has no secrets).\n");
	buf_adds(out,
"name: crs-ci\n"
"\n"
"on:\n"
"  pull_request:\n");
	if (o->public)	/* the LLM label counts on its own event only */
		buf_adds(out,
"    types: [opened, synchronize, reopened, labeled]\n");
	buf_adds(out,
"\n"
"# one scan per pull request at a time; a new push cancels the old scan\n"
"concurrency:\n"
"  group: crs-ci-${{ github.event.pull_request.number }}\n"
"  cancel-in-progress: true\n"
"\n"
"permissions:\n"
"  contents: read\n");
	if (o->public)
		buf_adds(out,
"  security-events: write   # SARIF upload (upload-sarif takes forks' too)\n"
"  actions: read            # SARIF upload on private repositories\n");
	else
		buf_adds(out,
"  security-events: write   # SARIF upload (fork PRs get read only: skipped)\n"
"  pull-requests: write     # review suggestions (post-suggestions: true)\n"
"  actions: read            # SARIF upload on private repositories\n");
}

void init_render_github(struct buf *out, const struct init_render_opts *o)
{
	char ref[INIT_RELEASE_REF_MAX];

	init_render_release_ref(ref, o);
	github_head(out, o);
	buf_printf(out,
"\n"
"jobs:\n"
"  scan:\n"
"%s"
"    # 4 CPUs on public repositories, 2 on private ones: the compose's\n"
"    # cpusets must fit (crs-ci init --cpus 4 or --cpus 2)\n"
"    runs-on: ubuntu-latest\n"
"    timeout-minutes: 45\n"
"    steps:\n"
"      - uses: " INIT_CHECKOUT_ACTION "\n"
"        with:\n"
"          # the head commit, not the test merge commit, and the history\n"
"          # back to the merge-base\n"
"          ref: ${{ github.event.pull_request.head.sha }}\n"
"          fetch-depth: 0\n"
"%s"
"\n"
"      # the release that wrote this file: its binaries, checked against\n"
"      # its SHA256SUMS (docs/releasing.md); the action uploads crs-ci's\n"
"      # output (PoVs, reports, SARIF) as the artifact crs-ci-results\n"
"      - uses: crs-ci/crs-ci/actions@%s\n"
"        with:\n"
"          compose: %s\n"
"          project: %s\n"
"          timeout: 20m\n"
"          fail-on: new\n",
		   o->public ?
"    # a label other than crs-ci-llm starts no scan; crs-ci-llm's own\n"
"    # event lets LLM CRSs run on the head it was set on\n"
"    if: github.event.action != 'labeled' ||\n"
"      github.event.label.name == 'crs-ci-llm'\n" : "",
		   /* the pull request's code never sees a git token */
		   "          persist-credentials: false\n",
		   ref, o->compose, o->project);
	if (o->public)
		buf_adds(out,
"          # code scanning through github/codeql-action/upload-sarif, which\n"
"          # takes a fork's SARIF; the review and the check come from\n"
"          # crs-ci-publish.yml, from the bundle this job uploads\n"
"          upload-sarif: action\n"
"          post-suggestions: \"false\"\n"
"          result-bundle: \"true\"\n"
"          llm-label: crs-ci-llm\n");
	else
		buf_adds(out,
"          upload-sarif: api\n"
"          post-suggestions: \"true\"\n");
	/* a public store needs no token, and the two-job mode's scan holds
	 * none; a private one is read with the job's read-only token */
	buf_adds(out,
"          # the corpus crs-ci-corpus.yml grows on the default branch,\n"
"          # read first (never written by a pull request's scan)\n"
"          corpus-store: ${{ github.server_url }}/${{ github.repository }}.git\n");
	if (!o->public)
		buf_adds(out,
"          corpus-store-token: ${{ github.token }}\n");
	buf_adds(out,
"          llm-budget: ${{ secrets.CRS_CI_LLM_BUDGET }}\n"
"          # the compose, CRSs and LLM config come from the base commit\n"
"          # (the default); head would use the pull request's own\n"
"          config-from: base\n"
"        # with the LLM patcher enabled in the compose:\n"
"        # env:\n"
"        #   OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\n");
}

void init_render_github_baseline(struct buf *out,
				 const struct init_render_opts *o)
{
	char ref[INIT_RELEASE_REF_MAX];

	init_render_release_ref(ref, o);
	header(out, "crs-ci-baseline.yml",
	       "crs-ci scans each push to the default branch", o);
	buf_printf(out,
"#\n"
"# GitHub code scanning shows a pull request's alerts against the\n"
"# analysis of its base branch: this scan of every push to %s is that\n"
"# analysis (the same SARIF category as crs-ci.yml's), so an alert on a\n"
"# pull request reads as new or as already there. Its findings are\n"
"# reported, never a failed push (fail-on: none).\n"
"name: crs-ci baseline\n"
"\n"
"on:\n"
"  push:\n"
"    branches: [\"%s\"]\n"
"\n"
"# pushes in a row queue: each is the baseline of the next\n"
"concurrency:\n"
"  group: crs-ci-baseline\n"
"  cancel-in-progress: false\n"
"\n"
"permissions:\n"
"  contents: read\n"
"  security-events: write   # SARIF upload\n"
"  actions: read            # SARIF upload on private repositories\n"
"\n"
"jobs:\n"
"  scan:\n"
"    runs-on: ubuntu-latest\n"
"    timeout-minutes: 45\n"
"    steps:\n"
"      - uses: " INIT_CHECKOUT_ACTION "\n"
"        with:\n"
"          # the push's first parent too: the change is before..after\n"
"          fetch-depth: 0\n"
"          persist-credentials: false\n"
"\n"
"      - uses: crs-ci/crs-ci/actions@%s\n"
"        with:\n"
"          compose: %s\n"
"          project: %s\n"
"          timeout: 20m\n"
"          fail-on: none\n"
"          upload-sarif: api\n"
"          corpus-store: ${{ github.server_url }}/${{ github.repository }}.git\n"
"          corpus-store-token: ${{ github.token }}\n",
		   o->default_branch, o->default_branch, ref,
		   o->compose, o->project);
}

void init_render_github_corpus(struct buf *out,
			       const struct init_render_opts *o)
{
	char ref[INIT_RELEASE_REF_MAX];

	init_render_release_ref(ref, o);
	header(out, "crs-ci-corpus.yml",
	       "crs-ci grows and prunes the corpus pull requests start from",
	       o);
	buf_printf(out,
"#\n"
"# ClusterFuzzLite's batch and prune modes (docs/corpus.md): every night\n"
"# the default branch is fuzzed as a whole and what fuzzing grew is\n"
"# pushed to this repository's branch crs-ci-corpus (corpus/<harness>/);\n"
"# on Sundays each harness's corpus there is minimized by libFuzzer's\n"
"# merge. crs-ci.yml's pull request scans read that branch first. Only\n"
"# this workflow, on the default branch, may push it.\n"
"name: crs-ci corpus\n"
"\n"
"on:\n"
"  schedule:\n"
"    - cron: \"23 2 * * *\"     # batch, every night\n"
"    - cron: \"41 4 * * 0\"     # prune, Sundays\n"
"  workflow_dispatch:\n"
"\n"
"# one at a time: two pushes to the store would race\n"
"concurrency:\n"
"  group: crs-ci-corpus\n"
"  cancel-in-progress: false\n"
"\n"
"permissions:\n"
"  contents: write          # push the branch crs-ci-corpus\n"
"  security-events: write   # SARIF upload of what the batch run found\n"
"  actions: read            # SARIF upload on private repositories\n"
"\n"
"jobs:\n"
"  corpus:\n"
"    runs-on: ubuntu-latest\n"
"    timeout-minutes: 90\n"
"    steps:\n"
"      - uses: " INIT_CHECKOUT_ACTION "\n"
"        with:\n"
"          fetch-depth: 0\n"
"          persist-credentials: false\n"
"\n"
"      - uses: crs-ci/crs-ci/actions@%s\n"
"        with:\n"
"          compose: %s\n"
"          project: %s\n"
"          mode: ${{ github.event.schedule == '41 4 * * 0' && 'prune' || 'batch' }}\n"
"          timeout: 60m\n"
"          # 45 minutes of fuzzing, all harnesses together\n"
"          fuzz-seconds: \"2700\"\n"
"          fail-on: none\n"
"          category: crs-ci-corpus\n"
"          upload-sarif: api\n"
"          corpus-store: ${{ github.server_url }}/${{ github.repository }}.git\n"
"          corpus-store-token: ${{ github.token }}\n",
		   ref, o->compose, o->project);
}

void init_render_github_publish(struct buf *out,
				const struct init_render_opts *o)
{
	char ref[INIT_RELEASE_REF_MAX];

	init_render_release_ref(ref, o);
	header(out, "crs-ci-publish.yml",
	       "crs-ci posts the review of a pull request's scan", o);
	buf_printf(out,
"#\n"
"# The privileged half of the two-job mode (crs-ci init --public;\n"
"# actions/README.md): runs when crs-ci.yml's run of a pull request ends,\n"
"# with this file and crs-ci from the default branch, never the pull\n"
"# request's code. The result bundle it downloads is hostile input:\n"
"# `crs-ci publish` resolves the pull request from the event (head\n"
"# repository, branch and SHA), keeps only suggestions inside its real\n"
"# diff and writes every text itself (docs/bundle.md).\n"
"name: crs-ci publish\n"
"\n"
"on:\n"
"  workflow_run:\n"
"    workflows: [crs-ci]\n"
"    types: [completed]\n"
"\n"
"permissions:\n"
"  contents: read\n"
"  actions: read            # download the pull request run's artifact\n"
"  pull-requests: write     # the review with the validated patches\n"
"  checks: write            # the check run crs-ci\n"
"\n"
"jobs:\n"
"  publish:\n"
"    if: github.event.workflow_run.event == 'pull_request'\n"
"    runs-on: ubuntu-latest\n"
"    timeout-minutes: 10\n"
"    steps:\n"
"      # no checkout: nothing of the pull request runs here\n"
"      - uses: " INIT_DOWNLOAD_ACTION "\n"
"        with:\n"
"          pattern: crs-ci-*-bundle\n"
"          path: ${{ runner.temp }}/crs-ci-bundles\n"
"          run-id: ${{ github.event.workflow_run.id }}\n"
"          github-token: ${{ github.token }}\n"
"\n"
"      - uses: crs-ci/crs-ci/actions/publish@%s\n"
"        with:\n"
"          bundle: ${{ runner.temp }}/crs-ci-bundles/crs-ci-results-bundle\n"
"          # findings in released code, sealed by the scan (disclose), as\n"
"          # draft security advisories: a token with \"Repository security\n"
"          # advisories: write\" (empty: not filed, the log says so)\n"
"          advisory-token: ${{ secrets.CRS_CI_ADVISORY_TOKEN }}\n",
		   ref);
}

void init_render_gitlab(struct buf *out, const struct init_render_opts *o)
{
	char ref[INIT_RELEASE_REF_MAX];

	init_render_release_ref(ref, o);
	header(out, "GitLab CI/CD include",
	       "crs-ci scans every merge request", o);
	buf_printf(out,
"#\n"
"# Includes crs-ci's template (gitlab/README.md, gitlab/examples/). For\n"
"# each merge request, the CRSs of the compose (read from its base commit)\n"
"# fuzz the project (%s) at its head; the job\n"
"# publishes Code Quality, SAST and JUnit reports, and crs-ci-verdict\n"
"# fails the pipeline on crashes the change introduced.\n"
"# The include is crs-ci's CI/CD component (templates/crs-ci.yml): set\n"
"# its path to where your GitLab keeps crs-ci (a mirror with its tags,\n"
"# ci/crs-ci here); the version after @ is the release that wrote this\n"
"# file, the same as the GitHub workflow's, and the job image defaults\n"
"# to that release's published one (add an `image` input for a mirror\n"
"# when your runners cannot reach ghcr.io).\n"
"# On a runner with its own Docker engine (no Docker-in-Docker) add the\n"
"# inputs `services: []` and `docker-host: \"\"`. With the LLM patcher\n"
"# enabled in the compose, add OPENAI_API_KEY as a masked CI/CD variable.\n"
"include:\n"
"  - component: $CI_SERVER_FQDN/ci/crs-ci/crs-ci@%s\n"
"    inputs:\n"
"      compose: %s\n"
"      project: %s\n"
"      timeout: 20m\n"
"      fail-on: new\n",
		   o->layout, ref, o->compose, o->project);
}

void init_render_gitlab_lines(struct buf *out, const char *local)
{
	buf_printf(out, "include:\n  - local: %s\n", local);
}
