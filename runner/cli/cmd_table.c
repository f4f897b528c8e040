/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_table.c - the table of crs-ci's commands
 *
 * One sorted table (like git's commands[]) read by main.c, help and the
 * completion; here, not in main.c, so unit tests read it too. A command
 * needs its row, its cmd_* file and its docs/cmd page; a phase command
 * (the scan options around one phase) is only its row, run by
 * phase_cmd.c, and its docs/cmd page.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/phase_cmd.h"
#include "runner/phase/phase.h"
#include "runner/scan/scan.h"
#include "common/suggest.h"

#include <stdio.h>
#include <string.h>

/* A phase command's row: its usage, what scan_open needs, its phase. */
#define PHASE(...) (&(const struct phase_cmd){ __VA_ARGS__ })
#define ALL_INPUTS (SCAN_NEED_COMPOSE | SCAN_NEED_PROJECT | \
		    SCAN_NEED_ENGINE | SCAN_NEED_CHANGE)

static const struct cmd cmds[] = {	/* sorted by name */
	{ "build-target", NULL,
	  "build the target image, the head build and each CRS build step",
	  NULL, NULL, 0, PHASE(.usage = "usage: crs-ci build-target "
	  "--compose FILE [--project DIR] [--source DIR] [--head REV]\n",
	  .needs = ALL_INPUTS, .step = phase_build_target) },
	/* the project folder is checked when --project is given or the
	 * source has .clusterfuzzlite/; needs no engine */
	{ "check", NULL,
	  "validate crs-compose.yaml, crs.yaml and project.yaml", NULL, NULL,
	  0, PHASE(.usage = "usage: crs-ci check --compose FILE "
	  "[--project DIR] [--source DIR]\n\nThe project folder is checked "
	  "when --project is given or the source\nhas .clusterfuzzlite/ "
	  "(docs/layouts.md).\n",
	  .needs = SCAN_NEED_COMPOSE | SCAN_WANT_PROJECT,
	  .fn = phase_check) },
	{ "completion", cmd_completion,
	  "print the bash completion script", NULL, "bash", CMD_LAZY_LIBS,
	  NULL },
	{ "crs", cmd_crs, "check or test a CRS package (for CRS authors)",
	  cmd_crs_opts, "check test", 0, NULL },
	{ "decrypt", cmd_decrypt,
	  "restore a private finding's sealed PoV with the maintainers' key",
	  cmd_decrypt_opts, NULL, 0, NULL },
	{ "gateway", cmd_gateway,
	  "serve CRSs' LLM requests within a dollar budget per CRS",
	  cmd_gateway_opts, NULL, 0, NULL },
	{ "help", cmd_help, "show commands, or one command's usage",
	  NULL, NULL, CMD_LAZY_LIBS, NULL },
	{ "hook", cmd_hook, "install or remove the git pre-push hook",
	  cmd_hook_opts, "install uninstall", 0, NULL },
	{ "init", cmd_init,
	  "write a starter compose and CI files into a repository",
	  cmd_init_opts, NULL, 0, NULL },
	{ "label-check", cmd_label_check,
	  "may a fork's GitLab merge request run LLM CRSs at this head?",
	  cmd_label_check_opts, NULL, 0, NULL },
	{ "merge", cmd_merge, "join the results of sharded scans into one",
	  cmd_merge_opts, NULL, 0, NULL },
	{ "plan", cmd_plan, "print the CI job matrix of a sharded scan",
	  cmd_plan_opts, NULL, 0, NULL },
	{ "pre-push", cmd_pre_push, "scan the refs git is pushing (the hook)",
	  NULL, NULL, CMD_LAZY_LIBS, NULL },
	{ "prepare", NULL,
	  "build the CRS images (cached by content hash)", NULL, NULL, 0,
	  PHASE(.usage = "usage: crs-ci prepare --compose FILE "
	  "[--work-dir DIR]\n",
	  .needs = SCAN_NEED_COMPOSE | SCAN_NEED_ENGINE,
	  .step = phase_prepare) },
	/* given the change (--base/--head or --diff), the CI reporters post
	 * only the suggestions that lie inside it; without it they post none */
	{ "publish", cmd_publish,
	  "post a fork pull request's result bundle (workflow_run job)",
	  cmd_publish_opts, NULL, 0, NULL },
	{ "report", NULL,
	  "write SARIF and the verdict from results.json", NULL, NULL, 0,
	  PHASE(.usage = "usage: crs-ci report [--out DIR] "
	  "[--fail-on new|any|none]\n"
	  "       [--base REV [--head REV] | --diff FILE]  (the change: CI "
	  "suggestions must lie in it)\n",
	  .needs = SCAN_NEED_CHANGE, .fn = phase_report) },
	{ "reproduce", cmd_reproduce,
	  "rerun a CI scan's PoVs here, on a head build made here", NULL,
	  NULL, 0, NULL },
	/* the phases and their order live in phase/pipeline.c */
	{ "run", NULL, "run the CRSs, then reproduce and triage every PoV",
	  NULL, NULL, 0, PHASE(.usage = "usage: crs-ci run --compose FILE "
	  "[--project DIR] [--source DIR] [--work-dir DIR] [--out DIR]\n",
	  .needs = ALL_INPUTS, .step = phase_scan_prove) },
	{ "scan", NULL,
	  "prepare, build-target, run and report in one deadline", NULL, NULL,
	  0, PHASE(.usage =
	  "usage: crs-ci scan --compose FILE [--project DIR] [--source DIR]\n"
	  "                   [--base REV [--head REV] | --diff FILE] "
	  "[options]\n"
	  "\nRun the CRSs of the compose file against the project built "
	  "from the\nchange's head (an OSS-Fuzz project folder, or the "
	  "source's\n.clusterfuzzlite/ when --project is omitted), prove "
	  "every crash, and\nwrite results.json, results.sarif and the "
	  "verdict.\n",
	  .needs = ALL_INPUTS, .fn = phase_scan_all) },
	{ "version", cmd_version, "print the version", NULL, NULL,
	  CMD_LAZY_LIBS, NULL },
};

const struct cmd *cmd_table(size_t *nr)
{
	*nr = sizeof(cmds) / sizeof(cmds[0]);
	return cmds;
}

int cmd_exec(const struct cmd *c, int argc, char **argv,
	     struct runner_ctx *ctx)
{
	if (c->phase)
		return phase_cmd_exec(c->phase, argc, argv, ctx);
	return c->fn(argc, argv, ctx);
}

const struct cmd *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int cmd_unknown(FILE *err, const char *word)
{
	struct suggest sg;
	char what[256];

	suggest_init(&sg, word);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		suggest_offer(&sg, cmds[i].name);
	snprintf(what, sizeof(what), "'%s' is not a crs-ci command", word);
	return cli_unknown_error(err, NULL, what, "", &sg);
}

void cmd_list(FILE *f)
{
	fprintf(f, "usage: crs-ci [-v|-q] <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-13s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nglobal options, anywhere on the line: -v, --verbose "
		"(debug log); -q, --quiet\n(warnings and errors only); "
		"-h, --help (the command's help).\n"
		"\nexit status: 0 nothing fails the policy, 1 findings fail "
		"the policy (--fail-on),\n2 usage or configuration error, "
		"3 infrastructure error (engine, build),\n4 incomplete (no "
		"finding fails, but a selected harness got less fuzzing\n"
		"than it was due).\n"
		"'crs-ci help <command>' shows a command's options.\n");
}
