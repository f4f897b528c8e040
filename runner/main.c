/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - crs-ci entry point and subcommand table
 *
 * Thin by design (like curl's tool_main.c): make sure fds 0-2 are open,
 * ignore SIGPIPE, initialise libcurl and libgit2 once, dispatch to a
 * cmd_* function from the sorted table, check that stdout was written,
 * clean up. Commands never run global initialisation themselves.
 */
#include "runner/cmd.h"
#include "runner/interrupt.h"
#include "common/error.h"
#include "common/log.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <git2.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct runner_ctx *ctx);
	const char *summary;
};

static const struct cmd cmds[] = {	/* sorted by name */
	{ "build-target", cmd_build_target,
	  "build the target image, the head build and each CRS build step" },
	{ "check", cmd_check, "validate crs-compose.yaml, crs.yaml and project.yaml" },
	{ "crs", cmd_crs, "check or test a CRS package (for CRS authors)" },
	{ "gateway", cmd_gateway,
	  "serve CRSs' LLM requests within a dollar budget per CRS" },
	{ "help", cmd_help, "show commands, or one command's usage" },
	{ "hook", cmd_hook, "install or remove the git pre-push hook" },
	{ "init", cmd_init,
	  "write a starter compose and CI files into a repository" },
	{ "merge", cmd_merge, "join the results of sharded scans into one" },
	{ "plan", cmd_plan, "print the CI job matrix of a sharded scan" },
	{ "pre-push", cmd_pre_push, "scan the refs git is pushing (the hook)" },
	{ "prepare", cmd_prepare, "build the CRS images (cached by content hash)" },
	{ "report", cmd_report, "write SARIF and the verdict from results.json" },
	{ "run", cmd_run, "run the CRSs, then reproduce and triage every PoV" },
	{ "scan", cmd_scan, "prepare, build-target, run and report in one deadline" },
	{ "version", cmd_version, "print the version" },
};

void cmd_list(FILE *f)
{
	fprintf(f, "usage: crs-ci [-v|-q] <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-13s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nexit status: 0 nothing fails the policy, 1 findings fail "
		"the policy (--fail-on),\n2 usage or configuration error, "
		"3 infrastructure error (engine, build),\n4 incomplete (no "
		"finding fails, but a selected harness got less fuzzing\n"
		"than it was due).\n"
		"'crs-ci help <command>' shows a command's options.\n");
}

static void check_fds(void)
{
	struct stat st;

	for (int fd = 0; fd <= 2; fd++)
		if (fstat(fd, &st) != 0 &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
			_exit(EXIT_INFRA);
}

static int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "crs-ci: error: write failure on standard output\n");
		return EXIT_INFRA;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct runner_ctx ctx = { .out = stdout, .err = stderr };
	const struct cmd *c = NULL;
	int argi = 1, rc;

	check_fds();
	signal(SIGPIPE, SIG_IGN);
	while (argi < argc && argv[argi][0] == '-') {
		if (!strcmp(argv[argi], "-v") || !strcmp(argv[argi], "--verbose"))
			log_set_level(LOG_DEBUG);
		else if (!strcmp(argv[argi], "-q") || !strcmp(argv[argi], "--quiet"))
			log_set_level(LOG_WARN);
		else if (!strcmp(argv[argi], "-h") || !strcmp(argv[argi], "--help")) {
			cmd_list(stdout);
			return finish_stdout(EXIT_OK);
		} else if (!strcmp(argv[argi], "--version")) {
			argv[argi] = "version";
			break;
		} else {
			log_fprintf(stderr, "crs-ci: ", "unknown option '%s'",
				    argv[argi]);
			cmd_list(stderr);
			return EXIT_USAGE;
		}
		argi++;
	}
	if (argi >= argc) {
		cmd_list(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, argv[argi]))
			c = &cmds[i];
	if (!c) {
		log_fprintf(stderr, "crs-ci: ", "'%s' is not a crs-ci command",
			    argv[argi]);
		cmd_list(stderr);
		return EXIT_USAGE;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		fprintf(stderr, "crs-ci: error: cannot initialise libcurl\n");
		return EXIT_INFRA;
	}
	git_libgit2_init();
	ctx.interrupted = interrupt_install();
	rc = c->fn(argc - argi, argv + argi, &ctx);
	git_libgit2_shutdown();
	curl_global_cleanup();
	return finish_stdout(rc);
}
