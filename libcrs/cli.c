/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.c - the libCRS command line, compatible with OSS-CRS's libCRS
 *
 * A thin client of libcrs.h, bind-mounted into every CRS container and
 * compatible with OSS-CRS's libCRS; its deliberate differences are listed
 * in docs/crs-authors.md. Exit status: 0 ok, 1 failure, 2 usage.
 *
 * Details: docs/crs-authors.md; design notes: docs/internals.md.
 */
#include "libcrs/libcrs.h"
#include "common/error.h"
#include "common/opt.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Everything any command's options can set; positionals in order. */
struct cli {
	const struct cmd *cmd;
	const char *rebuild_id;
	const char *log;
	const char *fuzz_proj_dir;
	const char *target_source_dir;
	const char *name;
	const char *response_dir;
	const char *harness;
	const char *builder_name;
	char **pos;		/* room for every argument (main) */
	int npos, pos_max;
	int help;
};

struct cmd {
	const char *name;
	int (*fn)(struct cli *cli, const struct crs_env *env);
	const struct opt_spec *opts;
	int min_pos;
	int max_pos;
	const char *args;
	const char *summary;
};

/* The options, each with the letter parse_args() stores it by. */
#define OPT_REBUILD { .name = "rebuild-id", .id = 'R', .kind = OPT_STRING, \
	.value_name = "N", .help = "the rebuild's id (OSS_CRS_REBUILD_ID)" }
#define OPT_LOG { .name = "log", .id = 'L', .kind = OPT_STRING, \
	.value_name = "FILE", .help = "the daemon's log" }
#define OPT_FUZZ { .name = "fuzz-proj-dir", .id = 'F', .kind = OPT_STRING, \
	.value_name = "D", .help = "the harness's project folder" }
#define OPT_SOURCE { .name = "target-source-dir", .id = 'T', \
	.kind = OPT_STRING, .value_name = "T", \
	.help = "the target's source folder" }
#define OPT_NAME { .name = "name", .id = 'N', .kind = OPT_STRING, \
	.value_name = "N", .help = "the name to submit it under" }
#define OPT_BUILDER { .name = "builder", .id = 'B', .kind = OPT_STRING, \
	.value_name = "URL", .help = "accepted, unused: no HTTP sidecar" }
#define OPT_BUILDER_NAME { .name = "builder-name", .id = 'b', \
	.kind = OPT_STRING, .value_name = "NAME", \
	.help = "the build step that builds it" }
#define OPT_HARNESS { .name = "harness", .id = 'H', .kind = OPT_STRING, \
	.value_name = "NAME", .help = "the harness to run" }
#define OPT_RESPONSE { .name = "response-dir", .id = 'D', \
	.kind = OPT_STRING, .value_name = "DIR", \
	.help = "where the build's response goes" }
#define OPT_END { .name = NULL }

static const struct opt_spec opts_none[] = { OPT_SPEC_HELP, OPT_END };
static const struct opt_spec opts_rebuild[] = {
	OPT_SPEC_HELP, OPT_REBUILD, OPT_END };
static const struct opt_spec opts_daemon[] = {
	OPT_SPEC_HELP, OPT_LOG, OPT_END };
static const struct opt_spec opts_harness[] = {
	OPT_SPEC_HELP, OPT_FUZZ, OPT_SOURCE, OPT_NAME, OPT_END };
static const struct opt_spec opts_patch_build[] = {
	OPT_SPEC_HELP, OPT_BUILDER, OPT_BUILDER_NAME, OPT_REBUILD, OPT_END };
static const struct opt_spec opts_build_project[] = {
	OPT_SPEC_HELP, OPT_RESPONSE, OPT_FUZZ, OPT_SOURCE, OPT_BUILDER,
	OPT_BUILDER_NAME, OPT_REBUILD, OPT_END };
static const struct opt_spec opts_run_pov[] = {
	OPT_SPEC_HELP, OPT_HARNESS, OPT_REBUILD, OPT_BUILDER, OPT_END };
static const struct opt_spec opts_patch_test[] = {
	OPT_SPEC_HELP, OPT_BUILDER, OPT_END };

static int exit_code_for(int r)
{
	if (r == 0)
		return EXIT_OK;
	return r == CRS_EINPUT ? EXIT_USAGE : EXIT_FAIL;
}

/* Print "libCRS: <cmd>: <last error>" and map the code to an exit. */
static int fail(const struct cli *cli, int r)
{
	fprintf(stderr, "libCRS: %s: %s\n", cli->cmd->name,
		crs_error_last()[0] ? crs_error_last() : crs_strerror(r));
	return exit_code_for(r);
}

/* The exit status for a libcrs result: 0, or fail()'s. */
static int cmd_exit(const struct cli *cli, int r)
{
	return r ? fail(cli, r) : EXIT_OK;
}

static void print_cmd_usage(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: libCRS %s%s%s\n", c->name, c->args[0] ? " " : "",
		c->args);
}

__attribute__((format(printf, 2, 3)))
static int usage_error(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "libCRS: %s: ", cli->cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_cmd_usage(stderr, cli->cmd);
	return EXIT_USAGE;
}

/* A type argument allowed for `uses`, or a usage error. */
static int parse_type(const struct cli *cli, const char *name, unsigned uses,
		      enum crs_type *out)
{
	if (crs_type_from_name(name, out) != 0 || !crs_type_allows(*out, uses))
		return usage_error(cli, "'%s' is not a type this command takes",
				   name);
	return 0;
}

/* --- build outputs and sources -------------------------------------------- */

static int cmd_submit_build_output(struct cli *cli, const struct crs_env *env)
{
	/* --rebuild-id is accepted and ignored, as in OSS-CRS. */
	return cmd_exit(cli, crs_build_output_submit(env, cli->pos[0],
						     cli->pos[1]));
}

static int cmd_skip_build_output(struct cli *cli, const struct crs_env *env)
{
	return cmd_exit(cli, crs_build_output_skip(env, cli->pos[0]));
}

static int cmd_download_build_output(struct cli *cli,
				     const struct crs_env *env)
{
	return cmd_exit(cli, crs_build_output_download(env, cli->pos[0],
						       cli->pos[1],
						       cli->rebuild_id));
}

static int cmd_download_source(struct cli *cli, const struct crs_env *env)
{
	enum crs_source which;

	if (crs_source_from_name(cli->pos[0], &which) != 0)
		return usage_error(cli, "'%s' is not fuzz-proj or "
				   "target-source", cli->pos[0]);
	return cmd_exit(cli, crs_source_download(env, which, cli->pos[1]));
}

/* --- submit and fetch ----------------------------------------------------- */

/*
 * `submit TYPE PATH...`: each file on its own, as one `submit TYPE PATH`
 * per file would (one refused, e.g. a FIFO, leaves the others submitted,
 * its error on stderr), in one process: a fuzzer hands in its corpus at
 * once. The exit status is the first failure's.
 */
static int cmd_submit(struct cli *cli, const struct crs_env *env)
{
	char name[CRS_NAME_MAX];
	enum crs_type type;
	int existed = 0, r, rc = EXIT_OK;

	if ((r = parse_type(cli, cli->pos[0], CRS_USE_SUBMIT, &type)) != 0)
		return r;
	for (int i = 1; i < cli->npos; i++) {
		r = cmd_exit(cli, crs_submit(env, type, cli->pos[i], name,
					     &existed));
		crs_error_clear();
		if (r && !rc)
			rc = r;
	}
	return rc;
}

static int cmd_submit_harness(struct cli *cli, const struct crs_env *env)
{
	if (!cli->fuzz_proj_dir)
		return usage_error(cli, "--fuzz-proj-dir is required");
	return cmd_exit(cli, crs_submit_harness(env, cli->fuzz_proj_dir,
						cli->target_source_dir,
						cli->name));
}

struct fetch_out {
	const struct cli *cli;
	size_t printed;
};

static void fetch_event(const struct crs_event *ev, void *ctx)
{
	struct fetch_out *o = ctx;

	if (ev->kind == CRS_EVENT_FETCHED) {
		printf("%s\n", ev->name);
		o->printed++;
	} else if (ev->kind == CRS_EVENT_ERROR) {
		fprintf(stderr, "libCRS: %s: %s\n", o->cli->cmd->name,
			ev->message);
	}
}

static int cmd_fetch(struct cli *cli, const struct crs_env *env)
{
	struct fetch_out o = { .cli = cli };
	enum crs_type type;
	int r;

	if ((r = parse_type(cli, cli->pos[0], CRS_USE_FETCH, &type)) != 0)
		return r;
	r = crs_fetch(env, type, cli->pos[1], fetch_event, &o, NULL);
	if (!o.printed)
		putchar('\n');	/* as OSS-CRS: an empty line when none */
	if (r == 0)
		return EXIT_OK;
	if (!o.printed && crs_error_last()[0])
		return fail(cli, r);
	return EXIT_FAIL;	/* per-file errors were printed */
}

/* --- daemons -------------------------------------------------------------- */

static void daemon_event(const struct crs_event *ev, void *ctx)
{
	const struct cli *cli = ctx;
	char when[32];
	struct tm tm;
	time_t now = time(NULL);

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	switch (ev->kind) {
	case CRS_EVENT_SUBMITTED:
		printf("%s %s: submitted %s '%s' as '%s'\n", when,
		       cli->cmd->name, crs_type_name(ev->type), ev->path,
		       ev->name);
		break;
	case CRS_EVENT_DUPLICATE:
		printf("%s %s: '%s' already submitted as '%s'\n", when,
		       cli->cmd->name, ev->path, ev->name);
		break;
	case CRS_EVENT_FETCHED:
		printf("%s %s: fetched %s '%s'\n", when, cli->cmd->name,
		       crs_type_name(ev->type), ev->name);
		break;
	case CRS_EVENT_ERROR:
		printf("%s %s: error: %s\n", when, cli->cmd->name,
		       ev->message);
		break;
	case CRS_EVENT_NOTE:
		printf("%s %s: %s\n", when, cli->cmd->name, ev->message);
		break;
	}
	fflush(stdout);
}

/*
 * Fork; the parent prints the daemon's PID and returns, the child leaves
 * the session, sends its output to the log (or /dev/null) and runs the
 * watch until SIGTERM or SIGINT. Signals are blocked before the fork so
 * one sent right after the PID is printed is not lost.
 */
static int run_daemon(struct cli *cli, struct crs_watch *w, int logfd)
{
	sigset_t mask;
	pid_t pid;
	int sfd, devnull, r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	fflush(stdout);
	fflush(stderr);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pid = fork();
	if (pid < 0) {
		crs_error_set(CRS_ERR, "fork: %s", strerror(errno));
		return fail(cli, CRS_ERR);
	}
	if (pid > 0) {
		printf("Started daemon with PID: %ld\n", (long)pid);
		return EXIT_OK;
	}
	setsid();
	signal(SIGHUP, SIG_IGN);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	if (logfd >= 0 || devnull >= 0) {
		dup2(logfd >= 0 ? logfd : devnull, STDOUT_FILENO);
		dup2(logfd >= 0 ? logfd : devnull, STDERR_FILENO);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC)) < 0) {
		printf("libCRS: %s: signalfd: %s\n", cli->cmd->name,
		       strerror(errno));
		_exit(EXIT_FAIL);
	}
	printf("libCRS: %s: watching '%s' (%s)\n", cli->cmd->name,
	       cli->pos[1], crs_watch_uses_inotify(w) ? "inotify" :
	       "polling every second");
	r = crs_watch_run(w, sfd, daemon_event, cli);
	if (r != 0)
		printf("libCRS: %s: %s\n", cli->cmd->name, crs_error_last());
	else
		printf("libCRS: %s: stopped\n", cli->cmd->name);
	crs_watch_free(w);
	fflush(stdout);
	_exit(r ? EXIT_FAIL : EXIT_OK);
}

static int cmd_register_dir(struct cli *cli, const struct crs_env *env,
			    int submit)
{
	struct crs_watch *w = NULL;
	enum crs_type type;
	int logfd = -1, rc, r;

	if ((rc = parse_type(cli, cli->pos[0], submit ? CRS_USE_SUBMIT_DIR :
			     CRS_USE_FETCH, &type)) != 0)
		return rc;
	if (cli->log && (logfd = open(cli->log, O_WRONLY | O_CREAT |
				      O_APPEND | O_CLOEXEC, 0644)) < 0) {
		crs_error_set(CRS_ERR, "log '%s': %s", cli->log,
			      strerror(errno));
		return fail(cli, CRS_ERR);
	}
	r = submit ? crs_watch_submit_dir(&w, env, type, cli->pos[1]) :
		crs_watch_fetch_dir(&w, env, type, cli->pos[1]);
	/* A troubleshooting switch for mounts where inotify stays silent. */
	if (r == 0 && getenv("LIBCRS_WATCH_POLL") &&
	    !strcmp(getenv("LIBCRS_WATCH_POLL"), "1"))
		crs_watch_poll_only(w);
	rc = r ? fail(cli, r) : run_daemon(cli, w, logfd);
	crs_watch_free(w);
	if (logfd >= 0)
		close(logfd);
	return rc;
}

static int cmd_register_submit_dir(struct cli *cli, const struct crs_env *env)
{
	return cmd_register_dir(cli, env, 1);
}

static int cmd_register_fetch_dir(struct cli *cli, const struct crs_env *env)
{
	return cmd_register_dir(cli, env, 0);
}

/* --- directories and names ------------------------------------------------ */

static int cmd_register_shared_dir(struct cli *cli, const struct crs_env *env)
{
	return cmd_exit(cli, crs_shared_dir_register(env, cli->pos[0],
						     cli->pos[1]));
}

static int cmd_register_log_dir(struct cli *cli, const struct crs_env *env)
{
	return cmd_exit(cli, crs_log_dir_register(env, cli->pos[0]));
}

static int cmd_get_service_domain(struct cli *cli, const struct crs_env *env)
{
	char out[512];
	int r = crs_service_domain(env, cli->pos[0], out, sizeof(out));

	if (r)
		return fail(cli, r);
	printf("%s\n", out);
	return EXIT_OK;
}

/* --- sidecar commands ----------------------------------------------------- */

/* Print `msg` and answer RESP with retcode 1 and it in stderr.log. */
static int sidecar_fail(struct cli *cli, const char *msg)
{
	const char *resp = cli->response_dir;

	if (!resp && cli->npos >= 2)
		resp = cli->pos[1];
	fprintf(stderr, "%s\n", msg);
	if (resp && crs_response_write(resp, 1, NULL, msg) != 0)
		fprintf(stderr, "libCRS: %s: %s\n", cli->cmd->name,
			crs_error_last());
	return EXIT_FAIL;
}

/*
 * Without a mailbox answer as OSS-CRS's libCRS does when its sidecar is
 * unreachable (retcode 1, the reason in stderr.log), so a CRS that checks
 * the response degrades instead of hanging.
 */
static int sidecar_missing(struct cli *cli)
{
	char msg[256];

	/* the contract routes run-pov to the runner sidecar, the rest to the
	 * builder sidecar */
	snprintf(msg, sizeof(msg), "libCRS: '%s' needs the %s sidecar, "
		 "which this crs-ci run does not provide (no "
		 "OSS_CRS_MAILBOX_DIR)", cli->cmd->name,
		 strcmp(cli->cmd->name, "run-pov") ? "builder" : "runner");
	return sidecar_fail(cli, msg);
}

/* Seconds to wait for an answer: $OSS_CRS_SIDECAR_TIMEOUT or 1800. */
static double sidecar_timeout(void)
{
	const char *v = getenv("OSS_CRS_SIDECAR_TIMEOUT");
	char *end;
	double t;

	if (!v || !*v)
		return 1800;
	t = strtod(v, &end);
	return (*end || t < 0) ? 1800 : t;
}

/*
 * apply-patch-build, run-pov, apply-patch-test through the mailbox. The
 * exit status is the response's retcode, as the contract has it.
 */
static int cmd_sidecar(struct cli *cli, const struct crs_env *env)
{
	const char *mailbox = getenv("OSS_CRS_MAILBOX_DIR");
	enum crs_sidecar_kind kind = CRS_SIDECAR_BUILD;
	int r, code = 1;

	(void)env;
	if (!mailbox || !*mailbox)
		return sidecar_missing(cli);
	if (!strcmp(cli->cmd->name, "run-pov")) {
		kind = CRS_SIDECAR_POV;
		if (!cli->harness || !*cli->harness)
			return usage_error(cli, "--harness is required");
	} else if (!strcmp(cli->cmd->name, "apply-patch-test")) {
		kind = CRS_SIDECAR_TEST;
	}
	r = crs_sidecar_call(mailbox, kind, cli->pos[0],
			     kind == CRS_SIDECAR_POV ? cli->harness : NULL,
			     kind == CRS_SIDECAR_TEST ? NULL : cli->rebuild_id,
			     kind == CRS_SIDECAR_POV ? NULL : cli->builder_name,
			     sidecar_timeout(), cli->pos[1], &code);
	if (r != 0)
		return fail(cli, r);
	return code;
}

/*
 * build-project: copies of the folders go through the mailbox; a folder
 * that cannot be sent (a symlink out of it, a FIFO, over the caps) is
 * answered like a refused build: retcode 1, the reason in stderr.log.
 */
static int cmd_build_project(struct cli *cli, const struct crs_env *env)
{
	const char *mailbox = getenv("OSS_CRS_MAILBOX_DIR");
	char msg[1200];
	int r, code = 1;

	(void)env;
	if (!cli->response_dir || !*cli->response_dir)
		return usage_error(cli, "--response-dir is required");
	if (!cli->fuzz_proj_dir && !cli->target_source_dir)
		return usage_error(cli, "at least one of --fuzz-proj-dir and "
				   "--target-source-dir is required");
	if (!mailbox || !*mailbox)
		return sidecar_missing(cli);
	r = crs_build_project(mailbox, cli->fuzz_proj_dir,
			      cli->target_source_dir, cli->rebuild_id,
			      cli->builder_name, sidecar_timeout(),
			      cli->response_dir, &code);
	if (r == 0)
		return code;
	snprintf(msg, sizeof(msg), "libCRS: build-project: %s",
		 crs_error_last()[0] ? crs_error_last() : crs_strerror(r));
	return sidecar_fail(cli, msg);
}

/* Sorted by name; printed by --help in this order. */
static const struct cmd cmds[] = {
	{ "apply-patch-build", cmd_sidecar, opts_patch_build, 2, 2,
	  "PATCH RESP [--builder S] [--builder-name B] [--rebuild-id N]",
	  "rebuild with a patch (crs-ci's mailbox sidecar)" },
	{ "apply-patch-test", cmd_sidecar, opts_patch_test, 2, 2,
	  "PATCH RESP [--builder S]",
	  "run the project's tests on a patched build (mailbox)" },
	{ "build-project", cmd_build_project, opts_build_project, 0, 0,
	  "--response-dir RESP [--fuzz-proj-dir D] [--target-source-dir T] "
	  "[--builder S] [--builder-name B] [--rebuild-id N]",
	  "rebuild from changed project or source folders (mailbox)" },
	{ "download-build-output", cmd_download_build_output, opts_rebuild,
	  2, 2, "SRC DST [--rebuild-id N]",
	  "copy $OSS_CRS_BUILD_OUT_DIR/SRC (or a rebuild's) to DST" },
	{ "download-source", cmd_download_source, opts_none, 2, 2,
	  "{fuzz-proj|target-source} DST",
	  "copy the project or target source tree to DST" },
	{ "fetch", cmd_fetch, opts_none, 2, 2, "TYPE DIR",
	  "copy new shared files of TYPE into DIR, print their names" },
	{ "get-service-domain", cmd_get_service_domain, opts_none, 1, 1,
	  "NAME", "print NAME.$OSS_CRS_NAME (no DNS lookup)" },
	{ "register-fetch-dir", cmd_register_fetch_dir, opts_daemon, 2, 2,
	  "[--log F] TYPE DIR",
	  "daemon: keep DIR filled with shared files of TYPE" },
	{ "register-log-dir", cmd_register_log_dir, opts_none, 1, 1, "LOCAL",
	  "make LOCAL a symlink to $OSS_CRS_LOG_DIR/<name>" },
	{ "register-shared-dir", cmd_register_shared_dir, opts_none, 2, 2,
	  "LOCAL SHARED",
	  "make LOCAL a symlink to $OSS_CRS_SHARED_DIR/SHARED" },
	{ "register-submit-dir", cmd_register_submit_dir, opts_daemon, 2, 2,
	  "[--log F] TYPE DIR",
	  "daemon: submit every file written into DIR" },
	{ "run-pov", cmd_sidecar, opts_run_pov, 2, 2,
	  "POV RESP --harness H [--rebuild-id N] [--builder S]",
	  "run a PoV on the head build or a rebuild (mailbox)" },
	{ "skip-build-output", cmd_skip_build_output, opts_none, 1, 1, "DST",
	  "mark build output DST as deliberately absent" },
	{ "submit", cmd_submit, opts_none, 2, INT_MAX, "TYPE PATH...",
	  "submit files (pov, seed, bug-candidate, report, patch)" },
	{ "submit-build-output", cmd_submit_build_output, opts_rebuild, 2, 2,
	  "SRC DST [--rebuild-id N]",
	  "copy SRC to $OSS_CRS_BUILD_OUT_DIR/DST" },
	{ "submit-harness", cmd_submit_harness, opts_harness, 0, 0,
	  "--fuzz-proj-dir D [--target-source-dir T] [--name N]",
	  "copy a new harness's project (and source) to SUBMIT_DIR" },
};

static void print_usage(FILE *f)
{
	fputs("usage: libCRS <command> [<args>]\n\n"
	      "The OSS-CRS libCRS command line (crs-ci's static build).\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %s %s\n      %s\n", cmds[i].name, cmds[i].args,
			cmds[i].summary);
	fputs("\ntypes: pov seed bug-candidate report patch diff\n"
	      "environment: OSS_CRS_RUN_ENV_TYPE (unset or 'local'), "
	      "OSS_CRS_NAME,\n  OSS_CRS_BUILD_OUT_DIR, "
	      "OSS_CRS_REBUILD_OUT_DIR, "
	      "OSS_CRS_REBUILD_ID,\n  OSS_CRS_SUBMIT_DIR, OSS_CRS_SHARED_DIR, "
	      "OSS_CRS_LOG_DIR, OSS_CRS_FETCH_DIR,\n  OSS_CRS_FUZZ_PROJ, "
	      "OSS_CRS_TARGET_SOURCE,\n"
	      "  OSS_CRS_MAILBOX_DIR, OSS_CRS_SIDECAR_TIMEOUT (seconds: 1800),"
	      "\n"
	      "  LIBCRS_WATCH_POLL=1 (daemons scan every second, no inotify)\n"
	      "exit status: 0 success, 1 failure, 2 usage error\n", f);
}

static const struct cmd *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* Keep a positional argument; a usage error past the room in cli->pos. */
static int add_pos(struct cli *cli, char *arg)
{
	if (cli->npos == cli->pos_max)
		return usage_error(cli, "too many arguments");
	cli->pos[cli->npos++] = arg;
	return 0;
}

/*
 * Parse argv (argv[0] is the command name) into cli. Options and
 * positionals may be mixed, as with Python's argparse; "--" ends options.
 * Positionals are collected in cli->pos in their order.
 */
static int parse_args(struct cli *cli, int argc, char **argv)
{
	struct opt_parser p;
	struct opt_value v;
	int r, rc;

	cli->npos = 0;
	opt_parser_init(&p, cli->cmd->opts, argc, argv, OPT_MIXED, NULL);
	while ((r = opt_next(&p, &v)) == 1) {
		switch (v.spec ? v.spec->id : 0) {
		case 0:
			if ((rc = add_pos(cli, (char *)v.arg)) != 0)
				return rc;
			break;
		case 'h': cli->help = 1; break;
		case 'R': cli->rebuild_id = v.arg; break;
		case 'L': cli->log = v.arg; break;
		case 'F': cli->fuzz_proj_dir = v.arg; break;
		case 'T': cli->target_source_dir = v.arg; break;
		case 'N': cli->name = v.arg; break;
		case 'D': cli->response_dir = v.arg; break;
		case 'H': cli->harness = v.arg; break;
		case 'b': cli->builder_name = v.arg; break;
		case 'B': break;	/* no HTTP sidecar */
		}
	}
	if (r != 0)
		return usage_error(cli, "%s", crs_error_last());
	if (cli->help)
		return 0;
	if (cli->npos < cli->cmd->min_pos)
		return usage_error(cli, "missing arguments");
	if (cli->npos > cli->cmd->max_pos)
		return usage_error(cli, "unexpected argument '%s'",
				   cli->pos[cli->cmd->max_pos]);
	return 0;
}

/* Make sure fds 0-2 are open, so no file we open becomes stdout. */
static void check_fds(void)
{
	int fd;

	do {
		fd = open("/dev/null", O_RDWR);
		if (fd > 2)
			close(fd);
	} while (fd >= 0 && fd <= 2);
}

static int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "libCRS: write failure on standard output: "
			"%s\n", strerror(errno));
		return rc ? rc : EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct crs_env env = CRS_ENV_INIT;
	struct cli cli = { .cmd = NULL };
	int rc, r;

	check_fds();
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!(cli.cmd = cmd_lookup(argv[1]))) {
		fprintf(stderr, "libCRS: '%s' is not a libCRS command\n",
			argv[1]);
		print_usage(stderr);
		return EXIT_USAGE;
	}
	cli.pos = xcalloc((size_t)argc, sizeof(*cli.pos));
	cli.pos_max = argc;
	if ((rc = parse_args(&cli, argc - 1, argv + 1)) != 0)
		goto out;
	if (cli.help) {
		print_cmd_usage(stdout, cli.cmd);
		printf("%s\n\noptions:\n", cli.cmd->summary);
		opt_help(stdout, cli.cmd->opts, 0);
		rc = finish_stdout(EXIT_OK);
		goto out;
	}
	if ((r = crs_env_from_environ(&env)) != 0) {
		rc = fail(&cli, r);
		goto out;
	}
	rc = finish_stdout(cli.cmd->fn(&cli, &env));
out:
	free(cli.pos);
	return rc;
}
