/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_label_check.c - crs-ci label-check: may a fork's GitLab merge
 * request run LLM CRSs at this head?
 *
 * The GitLab template's LLM gate: the maintainers' label counts only when
 * it was added after this pipeline's head was pushed (runner/report/
 * gitlab_label.h). Prints one line, the reason the template hands to
 * `crs-ci scan --llm-reason`. Details: docs/cmd/label-check.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/report/gitlab.h"
#include "runner/report/gitlab_label.h"
#include "common/error.h"
#include "common/opt.h"

#include <stdio.h>
#include <string.h>

#define LABEL_SHOWN_MAX 64
#define LABEL_DOES_NOT_COUNT 1	/* exit status: no LLM CRSs */

static const char label_check_usage[] =
"usage: crs-ci label-check LABEL\n"
"\nIn a GitLab merge-request pipeline: was LABEL added after the head\n"
"(CI_COMMIT_SHA) became a version of the merge request, and is it still\n"
"set? Reads the merge request's versions and label events with\n"
"CRS_CI_GITLAB_TOKEN (read_api scope). Prints the reason on one line.\n"
"Exit 0: the label counts for this head; 1: it does not (never set,\n"
"removed, or set before this head was pushed); 2: a GitLab variable or\n"
"the token is missing; 3: the API failed.\n";

const struct opt_spec cmd_label_check_opts[] = {
	OPT_SPEC_HELP,
	{ .name = NULL },
};

/* The label as printed: letters, digits and " ._:/-", others '?'. */
static void shown(char *out, const char *label)
{
	size_t i;

	for (i = 0; label[i] && i + 1 < LABEL_SHOWN_MAX; i++)
		out[i] = (label[i] >= 'a' && label[i] <= 'z') ||
			(label[i] >= 'A' && label[i] <= 'Z') ||
			(label[i] >= '0' && label[i] <= '9') ||
			strchr(" ._:/-", label[i]) ? label[i] : '?';
	out[i] = '\0';
}

int cmd_label_check(int argc, char **argv, struct runner_ctx *ctx)
{
	struct gitlab_env env;
	enum gitlab_label_state st;
	struct opt_parser p;
	struct opt_value v;
	const char *label = NULL;
	char name[LABEL_SHOWN_MAX], head[13] = "";
	int labels = 0, r;

	opt_parser_init(&p, cmd_label_check_opts, argc, argv, OPT_MIXED,
			"label-check");
	while ((r = opt_next(&p, &v)) == 1) {
		if (v.spec) {
			cli_help(ctx->out, label_check_usage,
				 cmd_label_check_opts, NULL);
			return EXIT_OK;
		}
		label = v.arg;
		labels++;
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "label-check");
	if (labels != 1 || !label[0])
		return cli_usage_error(ctx->err, "label-check", "want one "
				       "non-empty LABEL, got %d", labels);
	shown(name, label);
	gitlab_env_load(&env);
	if (env.head_sha)
		snprintf(head, sizeof(head), "%.12s", env.head_sha);
	if ((r = gitlab_label_check(&env, label, &st, NULL, NULL)) != 0) {
		fprintf(ctx->err, "crs-ci label-check: %s\n",
			crs_error_last());
		crs_error_clear();
		fprintf(ctx->out, "cannot check when the maintainers' label "
			"'%s' was set (%s): no LLM CRSs\n", name,
			r == CRS_EINPUT ? "a GitLab variable or "
			"CRS_CI_GITLAB_TOKEN is missing" : "the GitLab API "
			"failed");
		return r == CRS_EINPUT ? EXIT_USAGE : EXIT_INFRA;
	}
	switch (st) {
	case GITLAB_LABEL_FOR_HEAD:
		fprintf(ctx->out, "the maintainers' label '%s' was set after "
			"this head (%s) was pushed: LLM CRSs may run\n", name,
			head);
		return EXIT_OK;
	case GITLAB_LABEL_BEFORE_HEAD:
		fprintf(ctx->out, "the maintainers' label '%s' was set before "
			"this head (%s) was pushed; it counts only for the head "
			"it was set on: set it again to run LLM CRSs on this "
			"one\n", name, head);
		break;
	case GITLAB_LABEL_HEAD_UNKNOWN:
		fprintf(ctx->out, "this head (%s) is not a version of the "
			"merge request, so the label '%s' cannot be tied to "
			"it: no LLM CRSs\n", head, name);
		break;
	case GITLAB_LABEL_UNSET:
		fprintf(ctx->out, "without the maintainers' label '%s': no "
			"LLM CRSs\n", name);
		break;
	}
	return LABEL_DOES_NOT_COUNT;
}
