/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_publish.c - crs-ci publish: the two jobs of an untrusted pull request
 *
 * --make-bundle in the unprivileged pull_request job; --bundle in the
 * privileged workflow_run job, which treats the bundle as hostile input.
 * Details: docs/cmd/publish.md, docs/bundle.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/report/bundle.h"
#include "runner/report/bundle_sealed.h"
#include "runner/report/github.h"
#include "runner/report/github_publish.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define PUBLISH_HTTP_TIMEOUT_MS 30000

static const char publish_usage[] =
"usage: crs-ci publish --make-bundle DIR --out OUT\n"
"       crs-ci publish --bundle DIR [--dry-run]\n"
"\nThe two jobs of a pull request from a fork (docs/bundle.md).\n"
"--make-bundle (the unprivileged pull_request job, no token needed)\n"
"writes DIR/bundle.json from the scan's OUT/results.json and the\n"
"pull request of GITHUB_EVENT_PATH. --bundle (the privileged\n"
"workflow_run job) reads DIR/bundle.json as hostile input, resolves the\n"
"pull request from the workflow_run event, keeps the suggestions that\n"
"lie in its real diff, and posts one review and the check run \"crs-ci\"\n"
"with GITHUB_TOKEN. A bundle that names another pull request or\n"
"commit, or breaks the format, is refused and nothing is posted.\n";

enum { OPT_MAKE = 256, OPT_OUT, OPT_BUNDLE, OPT_DRY_RUN };

const struct opt_spec cmd_publish_opts[] = {
	{ .name = "make-bundle", .id = OPT_MAKE, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "write the bundle of the scan in --out" },
	{ .name = "out", .id = OPT_OUT, .kind = OPT_STRING,
	  .value_name = "OUT",
	  .help = "the scan's output folder (with --make-bundle)" },
	{ .name = "bundle", .id = OPT_BUNDLE, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "publish this bundle (workflow_run job)" },
	{ .name = "dry-run", .id = OPT_DRY_RUN, .kind = OPT_FLAG,
	  .help = "check everything, post nothing" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

/* The unprivileged side: bundle.json from OUT/results.json. */
static int make_bundle(const char *dir, const char *out)
{
	struct github_env env;
	struct finding_set fs;
	char *results = xasprintf("%s/results.json", out);
	int r;

	finding_set_init(&fs);
	if ((r = github_env_load(&env)) != 0)
		goto out;
	if (!env.has_pr) {
		r = crs_error_set(CRS_EINPUT, "publish: --make-bundle needs "
				  "a pull_request event (GITHUB_EVENT_NAME "
				  "and GITHUB_EVENT_PATH)");
		goto out;
	}
	if ((r = finding_set_load(&fs, results)) != 0)
		goto out;
	r = bundle_write(dir, &fs, &(struct bundle_pr){
		.number = env.pr.number, .head_sha = env.pr.head_sha,
		.base_sha = env.pr.base_sha });
out:
	github_env_release(&env);
	finding_set_release(&fs);
	free(results);
	return r;
}

/* The check run's title and summary: crs-ci's words, bundle numbers. */
static int post_check(const struct github_env *env, const struct bundle *b,
		      size_t posted, size_t outside)
{
	const char *concl = !strcmp(b->verdict, "fail") ? "failure" :
		!strcmp(b->verdict, "incomplete") ? "neutral" : "success";
	char *title = xasprintf("crs-ci: %s", !strcmp(b->verdict, "fail") ?
				"crashes this change introduces" :
				!strcmp(b->verdict, "incomplete") ?
				"incomplete fuzzing" : "no crash fails the "
				"policy");
	char *sum = xasprintf("%ld proved finding(s), %ld introduced by this "
			      "pull request. %zu validated patch(es) posted "
			      "as review suggestions; %zu outside the pull "
			      "request's diff were left out. Details: the "
			      "pull_request run's job summary and artifact.",
			      b->findings, b->new_findings, posted, outside);
	int r = github_check_run_post(env, concl, title, sum,
				      PUBLISH_HTTP_TIMEOUT_MS);

	if (!r)
		log_info("publish: check run crs-ci: %s", concl);
	free(title);
	free(sum);
	return r;
}

/* Keep the suggestions inside `hunks`; say which are dropped. */
static size_t keep_in_diff(struct bundle *b, const struct diff_hunks *hunks)
{
	size_t kept = 0, outside = 0;

	for (size_t i = 0; i < b->sg.nr; i++) {
		struct patch_suggestion *g = &b->sg.v[i];

		if (diff_hunks_contain(hunks, g->path, g->start_line,
				       g->end_line)) {
			b->sg.v[kept++] = *g;
			continue;
		}
		log_warn("publish: suggestion for %s:%d-%d lies outside the "
			 "pull request's diff: dropped", g->path,
			 g->start_line, g->end_line);
		free((char *)g->path);
		free((char *)g->replacement);
		free((char *)g->message);
		outside++;
	}
	b->sg.nr = kept;
	return outside;
}

/* The privileged side. */
static int publish_bundle(const char *dir, int dry_run)
{
	struct github_env env;
	struct bundle b = { 0 };
	struct diff_hunks hunks = { 0 };
	struct bundle_sealed_set sealed = { 0 };
	size_t posted = 0, outside, filed = 0;
	int r;

	if ((r = github_env_load(&env)) != 0)
		goto out;
	if (!env.token && !dry_run) {
		r = crs_error_set(CRS_EINPUT, "publish: no GITHUB_TOKEN (the "
				  "workflow_run job needs pull-requests: write "
				  "and checks: write)");
		goto out;
	}
	if ((r = github_pr_from_workflow_run(&env, PUBLISH_HTTP_TIMEOUT_MS)))
		goto out;
	if ((r = bundle_read(&b, dir)))
		goto out;
	if (b.pr_number != env.pr.number ||
	    strcmp(b.head_sha, env.pr.head_sha)) {
		r = crs_error_set(CRS_EINPUT, "publish: the bundle names pull "
				  "request #%ld at %.12s, but the workflow_run "
				  "event is #%ld at %.12s: the bundle is "
				  "refused, nothing is posted", b.pr_number,
				  b.head_sha, env.pr.number, env.pr.head_sha);
		goto out;
	}
	if ((r = bundle_sealed_read(&sealed, dir)))
		goto out;
	if ((r = github_pr_hunks(&hunks, &env, PUBLISH_HTTP_TIMEOUT_MS)))
		goto out;
	outside = keep_in_diff(&b, &hunks);
	log_info("publish: bundle of #%ld: verdict %s, %zu suggestion(s) in "
		 "the diff, %zu outside it, %zu malformed; %zu sealed "
		 "finding(s) in released code", b.pr_number, b.verdict,
		 b.sg.nr, outside, b.dropped, sealed.nr);
	if (dry_run) {
		log_info("publish: --dry-run: nothing posted");
		goto out;
	}
	if (b.sg.nr &&
	    (r = github_review_post(&posted, &env, b.sg.v, b.sg.nr, &hunks,
				    PUBLISH_HTTP_TIMEOUT_MS)))
		goto out;
	if (posted)
		log_info("publish: review with %zu suggestion(s) posted to "
			 "#%ld", posted, env.pr.number);
	r = post_check(&env, &b, posted, outside);
	bundle_sealed_file(&sealed, &env, env.pr.number, &filed,
			   PUBLISH_HTTP_TIMEOUT_MS);
out:
	bundle_sealed_release(&sealed);
	diff_hunks_release(&hunks);
	bundle_release(&b);
	github_env_release(&env);
	return r;
}

int cmd_publish(int argc, char **argv, struct runner_ctx *ctx)
{
	const char *make = NULL, *out = NULL, *bundle = NULL;
	struct opt_parser p;
	struct opt_value v;
	int r, dry_run = 0;

	opt_parser_init(&p, cmd_publish_opts, argc, argv, 0, "publish");
	while ((r = opt_next(&p, &v)) == 1) {
		switch (v.spec->id) {
		case OPT_MAKE: make = v.arg; break;
		case OPT_OUT: out = v.arg; break;
		case OPT_BUNDLE: bundle = v.arg; break;
		case OPT_DRY_RUN: dry_run = 1; break;
		default:
			cli_help(ctx->out, publish_usage, cmd_publish_opts,
				 NULL);
			return EXIT_OK;
		}
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "publish");
	if (p.idx < argc)
		return cli_usage_error(ctx->err, "publish", "unexpected "
				       "argument '%s'", argv[p.idx]);
	if (!make == !bundle)
		return cli_usage_error(ctx->err, "publish", "give one of "
				       "--make-bundle DIR or --bundle DIR");
	if (make && !out)
		return cli_usage_error(ctx->err, "publish", "--make-bundle "
				       "needs --out (the scan's folder)");
	r = make ? make_bundle(make, out) : publish_bundle(bundle, dry_run);
	if (r) {
		log_error("%s", crs_error_last());
		return exit_code_for(r);
	}
	return EXIT_OK;
}
