/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts_parse.c - option table and parser shared by scan and the phases
 *
 * One table of options (name, argument, commands, help); getopt's table,
 * each phase command's usage and the bash completion are made from it.
 * getopt is fully reset (optind = 0) before each parse so commands can
 * run in-process one after another (tests do). Usage errors are one line
 * that names the command's help (runner/cli/cli_usage.c).
 */
#include "runner/cli/scan_opts_parse.h"
#include "runner/exec/base_images.h"
#include "runner/scan/shard.h"
#include "runner/scan/after_finding.h"
#include "runner/report/disclose.h"
#include "runner/config/config.h"
#include "runner/cli/cli_usage.h"
#include "common/duration.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_COMPOSE = 256, OPT_PROJECT, OPT_SOURCE, OPT_BASE, OPT_HEAD,
	OPT_DIFF, OPT_HARNESS, OPT_TIMEOUT, OPT_OUT, OPT_WORK_DIR,
	OPT_CACHE_DIR, OPT_FAIL_ON, OPT_REPRODUCE, OPT_KEEP_GOING, OPT_POV,
	OPT_SANITIZER, OPT_SARIF, OPT_SHARD, OPT_NO_LLM, OPT_ALLOW_ENV,
	OPT_REGISTRY, OPT_BASE_IMAGES, OPT_REPORT_TIMEOUTS, OPT_REPORT_OOMS,
	OPT_SARIF_CATEGORY, OPT_LLM_REASON, OPT_CACHE_MAX, OPT_FUZZ_SECONDS,
	OPT_MIN_HARNESS_SECONDS, OPT_AFTER_FINDING, OPT_UNTIL_DEADLINE,
	OPT_SATURATION,
	OPT_LEND_CORES, OPT_DISCLOSE,
};

/* The commands an option applies to, for the tables below. */
#define PHASES (SCAN_CMD_SCAN | SCAN_CMD_PREPARE | SCAN_CMD_BUILD_TARGET | \
		SCAN_CMD_RUN)
#define REPORTING (SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT)
#define CHANGE (SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN | \
		SCAN_CMD_REPORT)

/*
 * One entry per option: getopt's table, each command's usage and the
 * bash completion are made from it, so a new option needs only its entry
 * (and its case in scan_opts_parse). `cmds` lists the commands whose help
 * shows it; every phase command accepts every option, so a phase re-runs
 * with scan's command line.
 */
static const struct scan_opt scan_opt_table[] = {
	{ "compose", "FILE", OPT_COMPOSE, PHASES | SCAN_CMD_CHECK | SCAN_CMD_HOOK,
	  "crs-compose.yaml (OSS-CRS format)" },
	{ "project", "DIR", OPT_PROJECT,
	  SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN |
	  SCAN_CMD_CHECK | SCAN_CMD_HOOK,
	  "project folder (Dockerfile, build.sh, project.yaml): an\n"
	  "OSS-Fuzz projects/NAME folder or the source's\n"
	  ".clusterfuzzlite/ (default: that one, when present)" },
	{ "source", "DIR", OPT_SOURCE, CHANGE | SCAN_CMD_CHECK,
	  "target source git repository (default .)" },
	{ "base", "REV", OPT_BASE, CHANGE,
	  "base of the change (merge-base with --head is used)" },
	{ "head", "REV", OPT_HEAD, CHANGE, "head of the change (default HEAD)" },
	{ "diff", "FILE", OPT_DIFF, CHANGE,
	  "the change as a unified diff instead of --base" },
	{ "harness", "NAME", OPT_HARNESS,
	  SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  "fuzz only this harness (repeatable); default: the\n"
	  "harnesses whose corpus reaches the change; every one\n"
	  "without a change, or when none reaches it\n"
	  "(docs/select.md)" },
	{ "pov", "FILE", OPT_POV, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "a known crashing input (repeatable): reproduced on head\n"
	  "and base, handed to CRSs; one that crashes only the\n"
	  "base is reported as fixed by the change" },
	{ "sarif", "FILE", OPT_SARIF,
	  SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  "a static analyser's SARIF 2.1.0 log (repeatable): its\n"
	  "results go to CRSs as bug-candidates/ and are marked\n"
	  "confirmed when a proved crash passes their location" },
	{ "sanitizer", "NAME", OPT_SANITIZER,
	  SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  "address, undefined or memory (default: project.yaml's,\n"
	  "address when listed)" },
	{ "timeout", "DUR", OPT_TIMEOUT, PHASES | SCAN_CMD_HOOK,
	  "deadline for the whole scan: 900, 90s, 15m, 1h (default 15m)" },
	{ "fuzz-seconds", "N", OPT_FUZZ_SECONDS, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "total fuzzing time, all selected harnesses together, as\n"
	  "ClusterFuzzLite's fuzz-seconds: split into their shares\n"
	  "(default: what --timeout leaves after the builds)" },
	{ "min-harness-seconds", "N", OPT_MIN_HARNESS_SECONDS,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "fuzz every selected harness at least N seconds; when the\n"
	  "time left cannot give a harness N seconds the scan says\n"
	  "so before fuzzing and its verdict is INCOMPLETE (exit 4)" },
	{ "out", "DIR", OPT_OUT, SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT,
	  "where results go, emptied at the start of a scan\n"
	  "(default crs-ci-out; see 'Own folders' below)" },
	{ "work-dir", "DIR", OPT_WORK_DIR,
	  PHASES | SCAN_CMD_REPORT | SCAN_CMD_CHECK,
	  "builds, runs and logs (default crs-ci-work; see 'Own\n"
	  "folders' below)" },
	{ "cache-dir", "DIR", OPT_CACHE_DIR, PHASES | SCAN_CMD_CHECK,
	  "saved images, base builds, corpora and git CRS\n"
	  "checkouts carried between CI runs (git checkouts: in\n"
	  "--work-dir without it)" },
	{ "cache-max", "SIZE", OPT_CACHE_MAX, PHASES,
	  "cap on the cache's images and corpora, least recently\n"
	  "used evicted first: 512M, 2G (default 2G)" },
	{ "registry", "DIR", OPT_REGISTRY, PHASES | SCAN_CMD_CHECK,
	  "the folder of registry/<name>.yaml files for compose\n"
	  "entries without source (default: $CRS_CI_REGISTRY, else\n"
	  "the registry installed with crs-ci)" },
	{ "fail-on", "WHAT", OPT_FAIL_ON,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT | SCAN_CMD_HOOK,
	  "new (default): only findings the change introduced;\n"
	  "any: every finding; none: never fail (not even when\n"
	  "INCOMPLETE: a harness got less fuzzing than it was due)" },
	{ "reproduce", "N", OPT_REPRODUCE, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "runs of each PoV during triage (default 5)" },
	{ "keep-going", NULL, OPT_KEEP_GOING, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "let CRSs fuzz to the deadline after their first PoV\n"
	  "(and the run past a proved finding: --after-finding\n"
	  "continue, unless given)" },
	{ "after-finding", "WHAT", OPT_AFTER_FINDING,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "once a finding that fails --fail-on is proved (reproduced\n"
	  "on head, absent on base): stop (end the run now), a\n"
	  "DURATION of search for more bugs (30s, 2m), or continue\n"
	  "to the deadline (default: 5% of what is left, 10s to\n"
	  "60s; docs/cmd/scan.md)" },
	{ "until-deadline", NULL, OPT_UNTIL_DEADLINE,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "fuzz to the deadline whatever is found or saturated:\n"
	  "--after-finding continue, --saturation off" },
	{ "saturation", "DUR|off", OPT_SATURATION,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "stop a harness once replays of its corpus on the coverage\n"
	  "build have shown no new line of the touched code for DUR\n"
	  "(default 60s; never before --min-harness-seconds); off:\n"
	  "fuzz every share to its end" },
	{ "lend-cores", "yes|no", OPT_LEND_CORES, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "yes (default): while harnesses fuzz, CRSs may also use\n"
	  "the compose's oss_crs_infra cores no CRS owns, where\n"
	  "crs-ci's own containers outweigh them 8 to 1; no: only\n"
	  "their own" },
	{ "no-llm", NULL, OPT_NO_LLM,
	  SCAN_CMD_SCAN | SCAN_CMD_PREPARE | SCAN_CMD_RUN,
	  "no LLM gateway (e.g. fork pull requests have no secrets):\n"
	  "CRSs that declare required_llms are skipped, and said so" },
	{ "llm-reason", "TEXT", OPT_LLM_REASON,
	  SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "why LLM CRSs run or not (the CI's decision, e.g. a fork\n"
	  "pull request without the maintainer's label): printed\n"
	  "and recorded in results.json (summary.llm_reason)" },
	{ "shard", "I/N", OPT_SHARD, SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  "fuzz only shard I of N of the selected harnesses (the\n"
	  "sorted list, round-robin; see crs-ci plan, crs-ci merge)" },
	{ "allow-env", "NAME", OPT_ALLOW_ENV, PHASES | SCAN_CMD_CHECK,
	  "let the compose or LLM config read environment variable\n"
	  "NAME (repeatable); without it a config reads only\n"
	  "*_API_KEY, *_API_BASE and *_BASE_URL names, never CI\n"
	  "tokens (GITHUB_*, ACTIONS_*, RUNNER_*, CI_*, GITLAB_*,\n"
	  "CRS_CI_*)" },
	{ "base-images", "M", OPT_BASE_IMAGES, PHASES,
	  "pull (default): pull a missing base image from its\n"
	  "registry; stand-in: use the offline Debian stand-ins\n"
	  "(container/base-images/build.sh) for the OSS-Fuzz and\n"
	  "AIxCC base images (also CRS_CI_BASE_IMAGES=stand-in)" },
	{ "report-timeouts", "yes|no", OPT_REPORT_TIMEOUTS, REPORTING,
	  "no: libFuzzer timeouts are triaged and listed as\n"
	  "suppressed in results.json but fail no policy and are\n"
	  "no SARIF results (default yes)" },
	{ "report-ooms", "yes|no", OPT_REPORT_OOMS, REPORTING,
	  "the same for out-of-memory findings (default yes)" },
	{ "sarif-category", "NAME", OPT_SARIF_CATEGORY, REPORTING,
	  "SARIF runs[].automationDetails.id \"NAME/\": jobs with\n"
	  "different categories (a sanitizer matrix) keep their\n"
	  "own code-scanning alerts (default crs-ci/PROJECT/)" },
	{ "disclose", "public|private|auto", OPT_DISCLOSE, REPORTING,
	  "auto (default, also CRS_CI_DISCLOSE): in CI on a public\n"
	  "repository, pre-existing findings are kept out of every\n"
	  "public output (a count only) and go sealed to the\n"
	  "maintainers; private: every finding so; public: none\n"
	  "(SECURITY.md, \"Disclosure policy\")" },
};

#define SCAN_OPT_NR (sizeof(scan_opt_table) / sizeof(scan_opt_table[0]))

static const struct {
	const char *name;
	unsigned bit;
} scan_cmds[] = {
	{ "build-target", SCAN_CMD_BUILD_TARGET }, { "check", SCAN_CMD_CHECK },
	{ "hook", SCAN_CMD_HOOK }, { "prepare", SCAN_CMD_PREPARE },
	{ "report", SCAN_CMD_REPORT }, { "run", SCAN_CMD_RUN },
	{ "scan", SCAN_CMD_SCAN },
};

const struct scan_opt *scan_opts_table(size_t *nr)
{
	*nr = SCAN_OPT_NR;
	return scan_opt_table;
}

unsigned scan_opts_cmd_bit(const char *cmd)
{
	for (size_t i = 0; i < sizeof(scan_cmds) / sizeof(scan_cmds[0]); i++)
		if (!strcmp(scan_cmds[i].name, cmd))
			return scan_cmds[i].bit;
	return 0;
}

void scan_opts_usage(FILE *f, const char *cmd, const char *synopsis)
{
	unsigned bit = scan_opts_cmd_bit(cmd);

	fputs(synopsis, f);
	fputs("\noptions:\n", f);
	for (size_t i = 0; i < SCAN_OPT_NR; i++) {
		const struct scan_opt *so = &scan_opt_table[i];
		const char *h = so->help;
		char head[64];

		if (!(so->cmds & bit))
			continue;
		snprintf(head, sizeof(head), "--%s%s%s", so->name,
			 so->arg ? " " : "", so->arg ? so->arg : "");
		if (strlen(head) > 18)	/* a long option on a line of its own */
			fprintf(f, "  %s\n%21s", head, "");
		else
			fprintf(f, "  %-18s ", head);
		while (*h) {
			size_t n = strcspn(h, "\n");

			fprintf(f, "%.*s\n", (int)n, h);
			h += n;
			if (*h == '\n' && *++h)
				fprintf(f, "%21s", "");
		}
	}
	fputs("  -h, --help         this text\n", f);
	if (bit && bit != SCAN_CMD_HOOK)
		fputs("\nOwn folders: --work-dir, --out and --cache-dir must lie "
		      "outside --source's\ngit checkout (the change under test "
		      "can write it), be real folders, not\nlinks, and hold no "
		      "links crs-ci did not make: crs-ci refuses them\n(exit 2) "
		      "otherwise. Without --work-dir/--out: crs-ci-work and "
		      "crs-ci-out in\nthe current folder when it lies outside "
		      "the checkout, else\n$RUNNER_TEMP/crs-ci/NAME-HASH/ (work, "
		      "out), or the same under\n${XDG_CACHE_HOME:-~/.cache}/crs-ci "
		      "off CI; the scan says where.\n", f);
	if (bit != SCAN_CMD_SCAN && bit != SCAN_CMD_HOOK)
		fputs("\nThe other options of 'crs-ci scan' are accepted and "
		      "ignored, so a phase\nre-runs with the scan's command "
		      "line.\n", f);
	fputs("Global options (anywhere on the line): -v, --verbose; "
	      "-q, --quiet.\n", f);
}

/* "yes" -> 1, "no" -> 0 into *out; CRS_EINPUT naming the option. */
static int parse_yes_no(const char *opt, const char *v, int *out)
{
	if (!strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "no"))
		*out = 0;
	else
		return crs_error_set(CRS_EINPUT, "%s: '%s' is not yes or no",
				     opt, v);
	return 0;
}

CRS_TESTABLE int scan_opts_check_category(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 100 || name[0] == '/' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:=") != n)
		return crs_error_set(CRS_EINPUT, "--sarif-category: '%s' is "
				     "not 1 to 100 letters, digits or . _ - / "
				     ": = (not starting with /)", name);
	return 0;
}

static int usage_error(FILE *err, const char *cmd, int r)
{
	cli_usage_error(err, cmd, "%s", crs_error_last());
	return r;
}

int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *synopsis, FILE *out, FILE *err)
{
	struct option long_opts[SCAN_OPT_NR + 2];
	const char *cmd = argv[0];	/* for the error hint */
	size_t alloc = 0, povs_alloc = 0, sarifs_alloc = 0, allow_alloc = 0;
	enum base_images_mode mode;
	long n;
	int c, until_deadline = 0;

	if (base_images_mode_from_env(&mode) != 0)
		return usage_error(err, cmd, CRS_EINPUT);
	o->base_images = (int)mode;
	for (size_t i = 0; i < SCAN_OPT_NR; i++)
		long_opts[i] = (struct option){ scan_opt_table[i].name,
			scan_opt_table[i].arg ? required_argument : no_argument,
			NULL, scan_opt_table[i].id };
	long_opts[SCAN_OPT_NR] = (struct option){ "help", no_argument, NULL,
						  'h' };
	long_opts[SCAN_OPT_NR + 1] = (struct option){ NULL, 0, NULL, 0 };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_COMPOSE: o->compose = optarg; break;
		case OPT_PROJECT: o->project = optarg; break;
		case OPT_SOURCE: o->source = optarg; break;
		case OPT_BASE: o->base = optarg; break;
		case OPT_HEAD: o->head = optarg; break;
		case OPT_DIFF: o->diff = optarg; break;
		case OPT_HARNESS:
			ALLOC_GROW(o->harnesses, o->harnesses_nr + 1, alloc);
			o->harnesses[o->harnesses_nr++] = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_duration(optarg, &o->timeout_s) != 0 ||
			    o->timeout_s < 30) {
				crs_error_set(CRS_EINPUT, "--timeout: '%s' is not "
					      "a duration of at least 30s", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			break;
		case OPT_FUZZ_SECONDS:
		case OPT_MIN_HARNESS_SECONDS: {
			long *v = c == OPT_FUZZ_SECONDS ? &o->fuzz_seconds :
				&o->min_harness_seconds;

			if (parse_duration(optarg, v) != 0 || *v < 1) {
				crs_error_set(CRS_EINPUT, "--%s: '%s' is not a "
					      "number of seconds of at least 1",
					      c == OPT_FUZZ_SECONDS ?
					      "fuzz-seconds" :
					      "min-harness-seconds", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			break;
		}
		case OPT_OUT: o->out_dir = optarg; break;
		case OPT_WORK_DIR: o->work_dir = optarg; break;
		case OPT_CACHE_DIR: o->cache_dir = optarg; break;
		case OPT_CACHE_MAX:
			if (config_parse_memory(optarg, &o->cache_max) != 0) {
				crs_error_prefix("--cache-max");
				return usage_error(err, cmd, CRS_EINPUT);
			}
			break;
		case OPT_REGISTRY: o->registry = optarg; break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "new") && strcmp(optarg, "any") &&
			    strcmp(optarg, "none")) {
				crs_error_set(CRS_EINPUT, "--fail-on: '%s' is not "
					      "one of new, any, none", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			o->fail_on = optarg;
			break;
		case OPT_REPRODUCE:
			n = strtol(optarg, NULL, 10);
			if (n < 1 || n > 100) {
				crs_error_set(CRS_EINPUT, "--reproduce: '%s' is "
					      "not a number from 1 to 100", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			o->reproduce_runs = (int)n;
			break;
		case OPT_KEEP_GOING: o->keep_going = 1; break;
		case OPT_AFTER_FINDING:
			if (after_finding_parse(optarg,
						&o->after_finding_s) != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			break;
		case OPT_UNTIL_DEADLINE:
			o->after_finding_s = AFTER_FINDING_CONTINUE;
			until_deadline = 1;
			break;
		case OPT_SATURATION:
			if (!strcmp(optarg, "off")) {
				o->saturation_s = 0;
			} else if (parse_duration(optarg, &o->saturation_s) != 0
				   || o->saturation_s < 1) {
				crs_error_clear();
				crs_error_set(CRS_EINPUT, "--saturation: '%s' "
					      "is not off or a duration (30s, "
					      "2m)", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			break;
		case OPT_LEND_CORES: {
			int yes = 1;

			if (parse_yes_no("--lend-cores", optarg, &yes) != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			o->no_lend_cores = !yes;
			break;
		}
		case OPT_NO_LLM: o->no_llm = 1; break;
		case OPT_LLM_REASON: o->llm_reason = optarg; break;
		case OPT_POV:
			ALLOC_GROW(o->povs, o->povs_nr + 1, povs_alloc);
			o->povs[o->povs_nr++] = optarg;
			break;
		case OPT_ALLOW_ENV:
			if (!config_env_name_ok(optarg)) {
				crs_error_set(CRS_EINPUT, "--allow-env: '%s' is "
					      "not an environment variable "
					      "name", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			ALLOC_GROW(o->allow_env, o->allow_env_nr + 1,
				   allow_alloc);
			o->allow_env[o->allow_env_nr++] = optarg;
			break;
		case OPT_SARIF:
			ALLOC_GROW(o->sarifs, o->sarifs_nr + 1, sarifs_alloc);
			o->sarifs[o->sarifs_nr++] = optarg;
			break;
		case OPT_SANITIZER:
			if (strcmp(optarg, "address") &&
			    strcmp(optarg, "undefined") &&
			    strcmp(optarg, "memory")) {
				crs_error_set(CRS_EINPUT, "--sanitizer: '%s' is "
					      "not one of address, undefined, "
					      "memory", optarg);
				return usage_error(err, cmd, CRS_EINPUT);
			}
			o->sanitizer = optarg;
			break;
		case OPT_SHARD:
			if (shard_parse(optarg, &o->shard_index,
					&o->shard_count) != 0) {
				crs_error_prefix("--shard");
				return usage_error(err, cmd, CRS_EINPUT);
			}
			break;
		case OPT_BASE_IMAGES:
			if (base_images_mode_parse(&mode, optarg,
						   "--base-images") != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			o->base_images = (int)mode;
			break;
		case OPT_REPORT_TIMEOUTS:
		case OPT_REPORT_OOMS: {
			int yes = 1;

			if (parse_yes_no(c == OPT_REPORT_OOMS ? "--report-ooms" :
					 "--report-timeouts", optarg, &yes) != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			*(c == OPT_REPORT_OOMS ? &o->hide_ooms :
			  &o->hide_timeouts) = !yes;
			break;
		}
		case OPT_DISCLOSE: {
			enum disclose_policy dp;

			if (disclose_parse(optarg, "--disclose", &dp) != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			o->disclose = optarg;
			break;
		}
		case OPT_SARIF_CATEGORY:
			if (scan_opts_check_category(optarg) != 0)
				return usage_error(err, cmd, CRS_EINPUT);
			o->sarif_category = optarg;
			break;
		case 'h':
			scan_opts_usage(out, argv[0], synopsis);
			return 1;
		default:
			cli_option_error(err, argv[0], c, argv, long_opts);
			return CRS_EINPUT;
		}
	}
	if (optind < argc) {
		crs_error_set(CRS_EINPUT, "unexpected argument '%s'",
			      argv[optind]);
		return usage_error(err, cmd, CRS_EINPUT);
	}
	if (o->diff && o->base) {
		crs_error_set(CRS_EINPUT, "options '--diff' and '--base' "
			      "cannot be used together");
		return usage_error(err, cmd, CRS_EINPUT);
	}
	/* a CRS let fuzz past its first PoV fuzzes past the proof too,
	 * unless --after-finding says otherwise */
	if (until_deadline)
		o->saturation_s = 0;
	if (o->keep_going && o->after_finding_s == AFTER_FINDING_DEFAULT)
		o->after_finding_s = AFTER_FINDING_CONTINUE;
	if (!o->disclose) {	/* a bad CRS_CI_DISCLOSE fails now, too */
		enum disclose_policy dp;

		if (disclose_parse(NULL, "--disclose", &dp) != 0)
			return usage_error(err, cmd, CRS_EINPUT);
	}
	return 0;
}

void scan_opts_release(struct scan_opts *o)
{
	free(o->harnesses);
	o->harnesses = NULL;
	o->harnesses_nr = 0;
	free(o->povs);
	o->povs = NULL;
	o->povs_nr = 0;
	free(o->sarifs);
	o->sarifs = NULL;
	o->sarifs_nr = 0;
	free(o->allow_env);
	o->allow_env = NULL;
	o->allow_env_nr = 0;
}
