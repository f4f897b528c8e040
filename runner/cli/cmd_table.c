/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_table.c - the table of crs-ci's commands
 *
 * One sorted table (like git's commands[]) that everything reads: the
 * dispatcher in main.c, `crs-ci help` and `help CMD` (cmd_help.c) and the
 * bash completion (cmd_completion.c). It lives here rather than in
 * main.c so that the help, the completion and the unit tests, which link
 * the library without main.c, read the same table. A new command needs
 * its entry here, its cmd_* file and its docs/cmd page.
 */
#include "runner/cli/cmd.h"

#include <stdio.h>
#include <string.h>

static const struct cmd cmds[] = {	/* sorted by name */
	{ "build-target", cmd_build_target,
	  "build the target image, the head build and each CRS build step",
	  NULL, NULL, 0 },
	{ "check", cmd_check,
	  "validate crs-compose.yaml, crs.yaml and project.yaml", NULL, NULL,
	  0 },
	{ "completion", cmd_completion,
	  "print the bash completion script", NULL, "bash", CMD_LAZY_LIBS },
	{ "crs", cmd_crs, "check or test a CRS package (for CRS authors)",
	  cmd_crs_opts, "check test", 0 },
	{ "gateway", cmd_gateway,
	  "serve CRSs' LLM requests within a dollar budget per CRS",
	  cmd_gateway_opts, NULL, 0 },
	{ "help", cmd_help, "show commands, or one command's usage",
	  NULL, NULL, CMD_LAZY_LIBS },
	{ "hook", cmd_hook, "install or remove the git pre-push hook",
	  cmd_hook_opts, "install uninstall", 0 },
	{ "init", cmd_init,
	  "write a starter compose and CI files into a repository",
	  cmd_init_opts, NULL, 0 },
	{ "merge", cmd_merge, "join the results of sharded scans into one",
	  cmd_merge_opts, NULL, 0 },
	{ "plan", cmd_plan, "print the CI job matrix of a sharded scan",
	  cmd_plan_opts, NULL, 0 },
	{ "pre-push", cmd_pre_push, "scan the refs git is pushing (the hook)",
	  NULL, NULL, CMD_LAZY_LIBS },
	{ "prepare", cmd_prepare,
	  "build the CRS images (cached by content hash)", NULL, NULL, 0 },
	{ "report", cmd_report,
	  "write SARIF and the verdict from results.json", NULL, NULL, 0 },
	{ "run", cmd_run, "run the CRSs, then reproduce and triage every PoV",
	  NULL, NULL, 0 },
	{ "scan", cmd_scan,
	  "prepare, build-target, run and report in one deadline", NULL, NULL,
	  0 },
	{ "version", cmd_version, "print the version", NULL, NULL,
	  CMD_LAZY_LIBS },
};

const struct cmd *cmd_table(size_t *nr)
{
	*nr = sizeof(cmds) / sizeof(cmds[0]);
	return cmds;
}

const struct cmd *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
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
