/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - the report phase: results.json -> SARIF, report.html and
 * the verdict
 *
 * Reads only results.json, so it can be re-run alone; in a GitHub or
 * GitLab job it also writes that system's reports.
 *
 * Details: docs/cmd/report.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/scan/ctx.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/report/github.h"
#include "runner/report/gitlab.h"
#include "runner/report/disclose.h"
#include "runner/report/html.h"
#include "runner/report/private_report.h"
#include "runner/report/terminal.h"
#include "runner/scan/timings.h"
#include "diff/changeset.h"
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * Validated patches as suggestions on the merge request, when the job
 * has an api-scope token and runs for one. A failure is a warning: the
 * reports and the verdict stand, and the SAST report has the patches.
 */
static void gitlab_suggest(const struct finding_set *fs,
			   const struct gitlab_env *env,
			   const struct diff_changeset *cs)
{
	size_t posted = 0, outside = 0;

	if (!env->token || !env->mr_iid || !fs->patches_nr)
		return;
	if (gitlab_post_suggestions(fs, env, cs, &posted, &outside) != 0) {
		log_warn("GitLab: the merge request's suggestions were not "
			 "posted: %s", crs_error_last());
		crs_error_clear();
		return;
	}
	if (posted || outside)
		log_info("GitLab: %zu validated suggestion(s) posted on the "
			 "merge request; %zu outside its diff are in the SAST "
			 "report's remediations only", posted, outside);
}

/*
 * A failing finding beside lines the change removed: a discussion on the
 * removed line (removal_review.h). A failure is a warning.
 */
static void gitlab_removals(const struct finding_set *fs,
			    const struct gitlab_env *env,
			    const struct diff_changeset *cs)
{
	size_t posted = 0;

	if (!env->token || !env->mr_iid || !cs)
		return;
	if (gitlab_post_removal_notes(fs, env, cs, fs->summary.fail_on ?
				      fs->summary.fail_on : "new",
				      &posted) != 0) {
		log_warn("GitLab: the discussion on removed lines was not "
			 "posted: %s", crs_error_last());
		crs_error_clear();
	} else if (posted) {
		log_info("GitLab: %zu finding(s) beside lines the change "
			 "removed posted as discussions on those lines",
			 posted);
	}
}

int phase_report(struct scan *s, int *exit_code_out)
{
	struct private_set priv = PRIVATE_SET_INIT;
	enum disclose_policy dp;
	struct finding_set fs;
	char *results = xasprintf("%s/results.json", s->out_dir);
	char *sarif = xasprintf("%s/results.sarif", s->out_dir);
	int r;

	*exit_code_out = EXIT_OK;
	timing_phase(s, "report");
	finding_set_init(&fs);
	if ((r = finding_set_load(&fs, results)) != 0)
		goto out;
	timings_into(s, &fs);	/* the report phase ends now in them */
	free(fs.summary.fail_on);	/* this command's policy decides */
	fs.summary.fail_on = xstrdup(s->opts->fail_on);
	if (s->opts->sarif_category) {
		free(fs.summary.sarif_category);
		fs.summary.sarif_category = xstrdup(s->opts->sarif_category);
	}
	if (s->opts->llm_reason) {	/* the CI's decision on LLM CRSs */
		free(fs.summary.llm_reason);
		fs.summary.llm_reason = xstrdup(s->opts->llm_reason);
		fs.summary.llm_crs = !s->opts->no_llm;
	}
	if (s->uncommitted_total) {	/* edits the scan did not read */
		for (size_t i = 0; i < fs.summary.uncommitted_nr; i++)
			free(fs.summary.uncommitted[i]);
		free(fs.summary.uncommitted);
		fs.summary.uncommitted = xcalloc(s->uncommitted.nr + 1,
						 sizeof(char *));
		for (size_t i = 0; i < s->uncommitted.nr; i++)
			fs.summary.uncommitted[i] =
				xstrdup(s->uncommitted.v[i]);
		fs.summary.uncommitted_nr = s->uncommitted.nr;
		fs.summary.uncommitted_total = s->uncommitted_total;
	}
	/* and its --report-timeouts/--report-ooms: results.json says so */
	phase_suppress(s, &fs);
	if ((r = disclose_parse(s->opts->disclose, "--disclose", &dp)) != 0)
		goto out;
	/* private findings leave the set (and their files the output
	 * folder) before anything public is written; results.json is
	 * rewritten without them even when a file could not be removed */
	{
		int split = disclose_split(&fs, s->out_dir, dp, &priv);

		if ((r = finding_set_save(&fs, results)) != 0 ||
		    (r = split) != 0)
			goto out;
	}
	if ((r = sarif_write_file(&fs, fs.summary.source_root, sarif)) != 0)
		goto out;
	log_info("report: wrote %s", sarif);
	if ((r = html_report_write(&fs, s->out_dir)) != 0)
		goto out;
	terminal_report(s->ctx->out, &fs, s->out_dir);
	*exit_code_out = report_exit_code(finding_set_verdict(&fs, NULL, NULL),
					  fs.summary.fail_on);
	if (getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true")) {
		struct github_env env;
		struct github_report_opts go = GITHUB_REPORT_OPTS_INIT;

		if ((r = github_env_load(&env)) == 0) {
			int span = timing_begin(s, "report", "github");

			github_report_opts_env(&go);
			go.sarif_path = sarif;
			go.pr_diff = s->change ? s->change->patch : NULL;
			r = github_report(&fs, s->out_dir, &env, s->ctx->out,
					  &go);
			timing_end(s, span);
		} else {
			/* the SARIF and the verdict still stand */
			log_warn("GitHub reporting skipped: %s", crs_error_last());
			crs_error_clear();
			r = 0;
		}
		github_report_opts_release(&go);
		github_env_release(&env);
		if (r != 0)
			goto out;
	}
	if (gitlab_detect()) {
		struct gitlab_env env;
		int span = timing_begin(s, "report", "gitlab");

		gitlab_env_load(&env);
		r = gitlab_report(&fs, s->out_dir, &env);
		if (r == 0) {
			log_info("report: GitLab Code Quality, SAST and JUnit "
				 "reports in %s", s->out_dir);
			gitlab_suggest(&fs, &env, s->change);
			gitlab_removals(&fs, &env, s->change);
		}
		timing_end(s, span);
		if (r != 0)
			goto out;
	}
	/* the whole report phase, in results.json */
	timings_into(s, &fs);
	if ((r = finding_set_save(&fs, results)) != 0)
		goto out;
	/* last: the maintainers' channel; a bad key is a config error */
	r = private_report(&priv, &fs.summary, s->out_dir);
out:
	private_set_release(&priv);
	finding_set_release(&fs);
	free(results);
	free(sarif);
	return r;
}
