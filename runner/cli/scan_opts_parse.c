/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts_parse.c - option table and parser shared by scan and the phases
 *
 * One table of options (common/opt.h: name, value kind, commands, help);
 * the parse, each phase command's usage and the bash completion are made
 * from it. The parser keeps no global state, so commands can run
 * in-process one after another (tests do). Usage errors are one line
 * that names the command's help (runner/cli/cli_usage.c).
 */
#include "runner/cli/scan_opts_parse.h"
#include "runner/exec/base_images.h"
#include "runner/scan/shard.h"
#include "runner/scan/after_finding.h"
#include "runner/report/disclose.h"
#include "runner/config/config.h"
#include "runner/cli/cli_usage.h"
#include "runner/corpus/corpus_source.h"
#include "common/fsutil.h"
#include "common/duration.h"
#include "common/error.h"
#include "common/opt.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_COMPOSE = 256, OPT_PROJECT, OPT_SOURCE, OPT_BASE, OPT_HEAD,
	OPT_DIFF, OPT_HARNESS, OPT_TIMEOUT, OPT_OUT, OPT_WORK_DIR,
	OPT_CACHE_DIR, OPT_FAIL_ON, OPT_REPRODUCE, OPT_KEEP_GOING, OPT_POV,
	OPT_SANITIZER, OPT_SARIF, OPT_SHARD, OPT_NO_LLM, OPT_ALLOW_ENV,
	OPT_REGISTRY, OPT_BASE_IMAGES, OPT_REPORT_TIMEOUTS, OPT_REPORT_OOMS,
	OPT_SARIF_CATEGORY, OPT_LLM_REASON, OPT_CACHE_MAX, OPT_FUZZ_SECONDS,
	OPT_MIN_HARNESS_SECONDS, OPT_REFUZZ_SECONDS, OPT_AFTER_FINDING,
	OPT_UNTIL_DEADLINE, OPT_SATURATION,
	OPT_LEND_CORES, OPT_DISCLOSE, OPT_CORPUS, OPT_OSS_FUZZ_CORPUS,
	OPT_OSS_FUZZ_MIRROR, OPT_CORPUS_STORE, OPT_CORPUS_STORE_BRANCH,
	OPT_MODE, OPT_CACHE_IMAGES,
};

/* The commands an option applies to, for the tables below. */
#define PHASES (SCAN_CMD_SCAN | SCAN_CMD_PREPARE | SCAN_CMD_BUILD_TARGET | \
		SCAN_CMD_RUN)
#define REPORTING (SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT)
#define CHANGE (SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN | \
		SCAN_CMD_REPORT)

/*
 * One entry per option: the parse, each command's usage and the bash
 * completion are made from it, so a new option needs only its entry (and
 * its case in scan_opt_apply). `groups` lists the commands whose help
 * shows it; every phase command accepts every option, so a phase re-runs
 * with scan's command line.
 */
static const struct opt_spec scan_opt_table[] = {
	{ .name = "compose", .id = OPT_COMPOSE, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .groups = PHASES | SCAN_CMD_CHECK | SCAN_CMD_HOOK |
		    SCAN_CMD_REPRODUCE,
	  .help = "crs-compose.yaml (OSS-CRS format)" },
	{ .name = "project", .id = OPT_PROJECT, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN |
		    SCAN_CMD_CHECK | SCAN_CMD_HOOK | SCAN_CMD_REPRODUCE,
	  .help = "project folder (Dockerfile, build.sh, project.yaml): an\n"
	  "OSS-Fuzz projects/NAME folder or the source's\n"
	  ".clusterfuzzlite/ (default: that one, when present)" },
	{ .name = "source", .id = OPT_SOURCE, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .groups = CHANGE | SCAN_CMD_CHECK | SCAN_CMD_REPRODUCE,
	  .help = "target source git repository (default .)" },
	{ .name = "base", .id = OPT_BASE, .kind = OPT_STRING,
	  .value_name = "REV",
	  .groups = CHANGE,
	  .help = "base of the change (merge-base with --head is used)" },
	{ .name = "head", .id = OPT_HEAD, .kind = OPT_STRING,
	  .value_name = "REV",
	  .groups = CHANGE,
	  .help = "head of the change (default HEAD)" },
	{ .name = "diff", .id = OPT_DIFF, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .groups = CHANGE,
	  .help = "the change as a unified diff instead of --base" },
	{ .name = "harness", .id = OPT_HARNESS, .kind = OPT_STRING,
	  .value_name = "NAME",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  .help = "fuzz only this harness (repeatable); default: the\n"
	  "harnesses whose corpus reaches the change; every one\n"
	  "without a change, or when none reaches it\n"
	  "(docs/select.md)" },
	{ .name = "pov", .id = OPT_POV, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "a known crashing input (repeatable): reproduced on head\n"
	  "and base, handed to CRSs; one that crashes only the\n"
	  "base is reported as fixed by the change" },
	{ .name = "corpus", .id = OPT_CORPUS, .kind = OPT_STRING,
	  .value_name = "SRC",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "more inputs for the corpus (repeatable): a folder, a zip\n"
	  "or tar file, or an http(s) URL of one; {harness} stands\n"
	  "for each harness's name, else one <harness>/ folder per\n"
	  "harness is read (docs/corpus.md)" },
	{ .name = "oss-fuzz-corpus", .id = OPT_OSS_FUZZ_CORPUS,
	  .kind = OPT_STRING, .value_name = "NAME",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "add OSS-Fuzz's public corpus backups of project NAME,\n"
	  "one public.zip per harness, as CIFuzz does" },
	{ .name = "oss-fuzz-mirror", .id = OPT_OSS_FUZZ_MIRROR,
	  .kind = OPT_STRING, .value_name = "URL",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "where --oss-fuzz-corpus downloads from (default\n"
	  "https://storage.googleapis.com): a mirror with its layout" },
	{ .name = "corpus-store", .id = OPT_CORPUS_STORE, .kind = OPT_STRING,
	  .value_name = "REPO",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "a git storage repository (a path or URL) whose branch\n"
	  "holds corpus/<harness>/: read first by every scan,\n"
	  "grown by --mode batch (docs/corpus.md)" },
	{ .name = "corpus-store-branch", .id = OPT_CORPUS_STORE_BRANCH,
	  .kind = OPT_STRING, .value_name = "NAME",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "the store's branch (default crs-ci-corpus)" },
	{ .name = "mode", .id = OPT_MODE, .kind = OPT_STRING,
	  .value_name = "MODE",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "code-change (the default: a change's scan, the store\n"
	  "only read), batch (the whole project, what fuzzing grew\n"
	  "added to --corpus-store), prune (each harness's store\n"
	  "corpus minimized by libFuzzer's merge) or coverage (the\n"
	  "project's coverage by the corpus, in <out>/coverage/), as\n"
	  "ClusterFuzzLite's" },
	{ .name = "sarif", .id = OPT_SARIF, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  .help = "a static analyser's SARIF 2.1.0 log (repeatable): its\n"
	  "results go to CRSs as bug-candidates/ and are marked\n"
	  "confirmed when a proved crash passes their location" },
	{ .name = "sanitizer", .id = OPT_SANITIZER, .kind = OPT_ENUM,
	  .value_name = "NAME",
	  .choices = "address|undefined|memory",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_BUILD_TARGET | SCAN_CMD_RUN,
	  .help = "address, undefined or memory (default: project.yaml's,\n"
	  "address when listed)" },
	{ .name = "timeout", .id = OPT_TIMEOUT, .kind = OPT_DURATION,
	  .value_name = "DUR",
	  .min = 30, .want = "a duration of at least 30s",
	  .groups = PHASES | SCAN_CMD_HOOK,
	  .help = "deadline for the whole scan: 900, 90s, 15m, 1h (default 15m)" },
	{ .name = "fuzz-seconds", .id = OPT_FUZZ_SECONDS, .kind = OPT_DURATION,
	  .value_name = "N",
	  .min = 1, .want = "a number of seconds of at least 1",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "total fuzzing time, all selected harnesses together, as\n"
	  "ClusterFuzzLite's fuzz-seconds: split into their shares\n"
	  "(default: what --timeout leaves after the builds)" },
	{ .name = "min-harness-seconds", .id = OPT_MIN_HARNESS_SECONDS,
	  .kind = OPT_DURATION,
	  .value_name = "N",
	  .min = 1, .want = "a number of seconds of at least 1",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "fuzz every selected harness at least N seconds; when the\n"
	  "time left cannot give a harness N seconds the scan says\n"
	  "so before fuzzing and its verdict is INCOMPLETE (exit 4)" },
	{ .name = "out", .id = OPT_OUT, .kind = OPT_STRING, .value_name = "DIR",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT,
	  .help = "where results go, emptied at the start of a scan\n"
	  "(default crs-ci-out; see 'Own folders' below)" },
	{ .name = "work-dir", .id = OPT_WORK_DIR, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .groups = PHASES | SCAN_CMD_REPORT | SCAN_CMD_CHECK |
		    SCAN_CMD_REPRODUCE,
	  .help = "builds, runs and logs (default crs-ci-work; see 'Own\n"
	  "folders' below)" },
	{ .name = "cache-dir", .id = OPT_CACHE_DIR, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .groups = PHASES | SCAN_CMD_CHECK,
	  .help = "saved images, base builds, corpora and git CRS\n"
	  "checkouts carried between CI runs (git checkouts: in\n"
	  "--work-dir without it)" },
	{ .name = "cache-max", .id = OPT_CACHE_MAX, .kind = OPT_STRING,
	  .value_name = "SIZE",
	  .groups = PHASES,
	  .help = "cap on the cache's images and corpora, least recently\n"
	  "used evicted first: 512M, 2G (default 2G)" },
	{ .name = "cache-images", .id = OPT_CACHE_IMAGES, .kind = OPT_ENUM,
	  .choices = "yes|no",
	  .groups = PHASES,
	  .help = "yes (default): load the images the cache holds; no:\n"
	  "build them (a cache a merge request's pipeline could have\n"
	  "written; its corpora are still read, as hostile input)" },
	{ .name = "registry", .id = OPT_REGISTRY, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .groups = PHASES | SCAN_CMD_CHECK,
	  .help = "the folder of registry/<name>.yaml files for compose\n"
	  "entries without source (default: $CRS_CI_REGISTRY, else\n"
	  "the registry installed with crs-ci)" },
	{ .name = "fail-on", .id = OPT_FAIL_ON, .kind = OPT_ENUM,
	  .value_name = "WHAT",
	  .choices = "new|any|none",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPORT | SCAN_CMD_HOOK,
	  .help = "new (default): only findings the change introduced;\n"
	  "any: every finding; none: never fail (not even when\n"
	  "INCOMPLETE: a harness got less fuzzing than it was due)" },
	{ .name = "reproduce", .id = OPT_REPRODUCE, .kind = OPT_INT,
	  .value_name = "N",
	  .min = 1, .max = 100,
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN | SCAN_CMD_REPRODUCE,
	  .help = "runs of each PoV during triage (default 5)" },
	{ .name = "refuzz-seconds", .id = OPT_REFUZZ_SECONDS,
	  .kind = OPT_DURATION, .value_name = "N",
	  .min = 1, .max = 3600, .want = "1 to 3600 seconds",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "a candidate patch's last check fuzzes each harness with a\n"
	  "finding for up to N seconds on the patched build (default 30)" },
	{ .name = "keep-going", .id = OPT_KEEP_GOING, .kind = OPT_FLAG,
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "let CRSs fuzz to the deadline after their first PoV\n"
	  "(and the run past a proved finding: --after-finding\n"
	  "continue, unless given)" },
	{ .name = "after-finding", .id = OPT_AFTER_FINDING, .kind = OPT_STRING,
	  .value_name = "WHAT",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "once a finding that fails --fail-on is proved (reproduced\n"
	  "on head, absent on base): stop (end the run now), a\n"
	  "DURATION of search for more bugs (30s, 2m), or continue\n"
	  "to the deadline (default: 5% of what is left, 10s to\n"
	  "60s; docs/cmd/scan.md)" },
	{ .name = "until-deadline", .id = OPT_UNTIL_DEADLINE, .kind = OPT_FLAG,
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "fuzz to the deadline whatever is found or saturated:\n"
	  "--after-finding continue, --saturation off" },
	{ .name = "saturation", .id = OPT_SATURATION, .kind = OPT_STRING,
	  .value_name = "DUR|off",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "stop a harness once replays of its corpus on the coverage\n"
	  "build have shown no new line or branch of the touched code,\n"
	  "nor new inputs running it far more, for DUR (default 60s; never\n"
	  "before a third of its time, a half when the change weakens a\n"
	  "guard, nor --min-harness-seconds); off: fuzz every share to\n"
	  "its end" },
	{ .name = "lend-cores", .id = OPT_LEND_CORES, .kind = OPT_ENUM,
	  .choices = "yes|no",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "yes (default): while harnesses fuzz, CRSs may also use\n"
	  "the compose's oss_crs_infra cores no CRS owns, where\n"
	  "crs-ci's own containers outweigh them 8 to 1; no: only\n"
	  "their own" },
	{ .name = "no-llm", .id = OPT_NO_LLM, .kind = OPT_FLAG,
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_PREPARE | SCAN_CMD_RUN,
	  .help = "no LLM gateway (e.g. fork pull requests have no secrets):\n"
	  "CRSs that declare required_llms are skipped, and said so" },
	{ .name = "llm-reason", .id = OPT_LLM_REASON, .kind = OPT_STRING,
	  .value_name = "TEXT",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "why LLM CRSs run or not (the CI's decision, e.g. a fork\n"
	  "pull request without the maintainer's label): printed\n"
	  "and recorded in results.json (summary.llm_reason)" },
	{ .name = "shard", .id = OPT_SHARD, .kind = OPT_STRING,
	  .value_name = "I/N",
	  .groups = SCAN_CMD_SCAN | SCAN_CMD_RUN,
	  .help = "fuzz only shard I of N of the selected harnesses (the\n"
	  "sorted list, round-robin; see crs-ci plan, crs-ci merge)" },
	{ .name = "allow-env", .id = OPT_ALLOW_ENV, .kind = OPT_STRING,
	  .value_name = "NAME",
	  .groups = PHASES | SCAN_CMD_CHECK,
	  .help = "let the compose or LLM config read environment variable\n"
	  "NAME (repeatable); without it a config reads only\n"
	  "*_API_KEY, *_API_BASE and *_BASE_URL names, never CI\n"
	  "tokens (GITHUB_*, ACTIONS_*, RUNNER_*, CI_*, GITLAB_*,\n"
	  "CRS_CI_*)" },
	{ .name = "base-images", .id = OPT_BASE_IMAGES, .kind = OPT_STRING,
	  .value_name = "M",
	  .groups = PHASES,
	  .help = "pull (default): pull a missing base image from its\n"
	  "registry; stand-in: use the offline Debian stand-ins\n"
	  "(container/base-images/build.sh) for the OSS-Fuzz and\n"
	  "AIxCC base images (also CRS_CI_BASE_IMAGES=stand-in)" },
	{ .name = "report-timeouts", .id = OPT_REPORT_TIMEOUTS, .kind = OPT_ENUM,
	  .choices = "yes|no",
	  .groups = REPORTING,
	  .help = "no: libFuzzer timeouts are triaged and listed as\n"
	  "suppressed in results.json but fail no policy and are\n"
	  "no SARIF results (default yes)" },
	{ .name = "report-ooms", .id = OPT_REPORT_OOMS, .kind = OPT_ENUM,
	  .choices = "yes|no",
	  .groups = REPORTING,
	  .help = "the same for out-of-memory findings (default yes)" },
	{ .name = "sarif-category", .id = OPT_SARIF_CATEGORY, .kind = OPT_STRING,
	  .value_name = "NAME",
	  .groups = REPORTING,
	  .help = "SARIF runs[].automationDetails.id \"NAME/\": jobs with\n"
	  "different categories (a sanitizer matrix) keep their\n"
	  "own code-scanning alerts (default crs-ci/PROJECT/)" },
	{ .name = "disclose", .id = OPT_DISCLOSE, .kind = OPT_STRING,
	  .value_name = "public|private|auto",
	  .groups = REPORTING,
	  .help = "auto (default, also CRS_CI_DISCLOSE): in CI on a public\n"
	  "repository, pre-existing findings are kept out of every\n"
	  "public output (a count only) and go sealed to the\n"
	  "maintainers; private: every finding so; public: none\n"
	  "(SECURITY.md, \"Disclosure policy\")" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

static const struct {
	const char *name;
	unsigned bit;
} scan_cmds[] = {
	{ "build-target", SCAN_CMD_BUILD_TARGET }, { "check", SCAN_CMD_CHECK },
	{ "hook", SCAN_CMD_HOOK }, { "prepare", SCAN_CMD_PREPARE },
	{ "report", SCAN_CMD_REPORT }, { "reproduce", SCAN_CMD_REPRODUCE },
	{ "run", SCAN_CMD_RUN }, { "scan", SCAN_CMD_SCAN },
};

const struct opt_spec *scan_opts_table(void)
{
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
	opt_help(f, scan_opt_table, bit);
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
	if (bit != SCAN_CMD_SCAN && bit != SCAN_CMD_HOOK &&
	    bit != SCAN_CMD_REPRODUCE)
		fputs("\nThe other options of 'crs-ci scan' are accepted and "
		      "ignored, so a phase\nre-runs with the scan's command "
		      "line.\n", f);
	fputs("Global options (anywhere on the line): -v, --verbose; "
	      "-q, --quiet.\n", f);
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

/* The growing arrays' allocated sizes during one parse. */
struct scan_opts_alloc {
	size_t harnesses, povs, sarifs, allow_env, corpora;
};

static int usage_error(FILE *err, const char *cmd, int r)
{
	cli_usage_error(err, cmd, "%s", crs_error_last());
	return r;
}

/* The value of option `v` (checked against its kind) into *o: 0, or
 * CRS_EINPUT with the message set. */
static int scan_opt_apply(struct scan_opts *o, const struct opt_value *v,
			  struct scan_opts_alloc *al, int *until_deadline)
{
	const char *arg = v->arg;
	enum base_images_mode mode;
	enum disclose_policy dp;

	switch (v->spec->id) {
	case OPT_COMPOSE: o->compose = arg; break;
	case OPT_PROJECT: o->project = arg; break;
	case OPT_SOURCE: o->source = arg; break;
	case OPT_BASE: o->base = arg; break;
	case OPT_HEAD: o->head = arg; break;
	case OPT_DIFF: o->diff = arg; break;
	case OPT_HARNESS:
		ALLOC_GROW(o->harnesses, o->harnesses_nr + 1, al->harnesses);
		o->harnesses[o->harnesses_nr++] = arg;
		break;
	case OPT_TIMEOUT: o->timeout_s = v->num; break;
	case OPT_FUZZ_SECONDS: o->fuzz_seconds = v->num; break;
	case OPT_MIN_HARNESS_SECONDS: o->min_harness_seconds = v->num; break;
	case OPT_OUT: o->out_dir = arg; break;
	case OPT_WORK_DIR: o->work_dir = arg; break;
	case OPT_CACHE_DIR: o->cache_dir = arg; break;
	case OPT_CACHE_MAX:
		if (config_parse_memory(arg, &o->cache_max) != 0)
			return crs_error_prefix("--cache-max");
		break;
	case OPT_REGISTRY: o->registry = arg; break;
	case OPT_FAIL_ON: o->fail_on = arg; break;
	case OPT_REPRODUCE: o->reproduce_runs = (int)v->num; break;
	case OPT_REFUZZ_SECONDS: o->refuzz_s = v->num; break;
	case OPT_KEEP_GOING: o->keep_going = 1; break;
	case OPT_AFTER_FINDING:
		return after_finding_parse(arg, &o->after_finding_s);
	case OPT_UNTIL_DEADLINE:
		o->after_finding_s = AFTER_FINDING_CONTINUE;
		*until_deadline = 1;
		break;
	case OPT_SATURATION:
		if (!strcmp(arg, "off")) {
			o->saturation_s = 0;
		} else if (parse_duration(arg, &o->saturation_s) != 0 ||
			   o->saturation_s < 1) {
			crs_error_clear();
			return crs_error_set(CRS_EINPUT, "--saturation: '%s' "
					     "is not off or a duration (30s, "
					     "2m)", arg);
		}
		break;
	case OPT_LEND_CORES: o->no_lend_cores = v->num == 1; break;
	case OPT_CACHE_IMAGES: o->no_cache_images = v->num == 1; break;
	case OPT_NO_LLM: o->no_llm = 1; break;
	case OPT_LLM_REASON: o->llm_reason = arg; break;
	case OPT_CORPUS:
		if (!*arg || (!corpus_source_is_url(arg) &&
			      !corpus_source_per_harness(arg) &&
			      !fs_exists(arg)))
			return crs_error_set(CRS_EINPUT, "--corpus: '%s': no "
					     "such folder or file", arg);
		ALLOC_GROW(o->corpora, o->corpora_nr + 1, al->corpora);
		o->corpora[o->corpora_nr++] = arg;
		break;
	case OPT_OSS_FUZZ_CORPUS:
		if (!corpus_source_oss_fuzz_name_ok(arg))
			return crs_error_set(CRS_EINPUT, "--oss-fuzz-corpus: "
					     "'%s' is not an OSS-Fuzz project "
					     "name (a-z, 0-9, _ and -)", arg);
		o->oss_fuzz_corpus = arg;
		break;
	case OPT_CORPUS_STORE:
		if (!*arg)
			return crs_error_set(CRS_EINPUT, "--corpus-store: empty");
		o->corpus_store = arg;
		break;
	case OPT_CORPUS_STORE_BRANCH:
		if (!corpus_source_branch_ok(arg))
			return crs_error_set(CRS_EINPUT, "--corpus-store-branch: "
					     "'%s' is not a branch name (letters, "
					     "digits, . _ - /)", arg);
		o->corpus_store_branch = arg;
		break;
	case OPT_MODE:
		o->batch = !strcmp(arg, "batch");
		o->prune = !strcmp(arg, "prune");
		o->coverage_mode = !strcmp(arg, "coverage");
		if (!o->batch && !o->prune && !o->coverage_mode &&
		    strcmp(arg, "code-change"))
			return crs_error_set(CRS_EINPUT, "--mode: '%s' is not "
					     "code-change, batch, prune or "
					     "coverage", arg);
		break;
	case OPT_OSS_FUZZ_MIRROR:
		if (!corpus_source_is_url(arg))
			return crs_error_set(CRS_EINPUT, "--oss-fuzz-mirror: "
					     "'%s' is not an http(s) URL", arg);
		o->oss_fuzz_mirror = arg;
		break;
	case OPT_POV:
		ALLOC_GROW(o->povs, o->povs_nr + 1, al->povs);
		o->povs[o->povs_nr++] = arg;
		break;
	case OPT_ALLOW_ENV:
		if (!config_env_name_ok(arg))
			return crs_error_set(CRS_EINPUT, "--allow-env: '%s' is "
					     "not an environment variable "
					     "name", arg);
		ALLOC_GROW(o->allow_env, o->allow_env_nr + 1, al->allow_env);
		o->allow_env[o->allow_env_nr++] = arg;
		break;
	case OPT_SARIF:
		ALLOC_GROW(o->sarifs, o->sarifs_nr + 1, al->sarifs);
		o->sarifs[o->sarifs_nr++] = arg;
		break;
	case OPT_SANITIZER: o->sanitizer = arg; break;
	case OPT_SHARD:
		if (shard_parse(arg, &o->shard_index, &o->shard_count) != 0)
			return crs_error_prefix("--shard");
		break;
	case OPT_BASE_IMAGES:
		if (base_images_mode_parse(&mode, arg, "--base-images") != 0)
			return CRS_EINPUT;
		o->base_images = (int)mode;
		break;
	case OPT_REPORT_TIMEOUTS: o->hide_timeouts = v->num == 1; break;
	case OPT_REPORT_OOMS: o->hide_ooms = v->num == 1; break;
	case OPT_DISCLOSE:
		if (disclose_parse(arg, "--disclose", &dp) != 0)
			return CRS_EINPUT;
		o->disclose = arg;
		break;
	case OPT_SARIF_CATEGORY:
		if (scan_opts_check_category(arg) != 0)
			return CRS_EINPUT;
		o->sarif_category = arg;
		break;
	}
	return 0;
}

int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *synopsis, FILE *out, FILE *err)
{
	const char *cmd = argv[0];	/* for the error hint */
	struct scan_opts_alloc al = { 0 };
	enum base_images_mode mode;
	struct opt_parser p;
	struct opt_value v;
	int r, until_deadline = 0;

	if (base_images_mode_from_env(&mode) != 0)
		return usage_error(err, cmd, CRS_EINPUT);
	o->base_images = (int)mode;
	opt_parser_init(&p, scan_opt_table, argc, argv, 0, cmd);
	while ((r = opt_next(&p, &v)) == 1) {
		if (v.spec->id == 'h') {
			scan_opts_usage(out, cmd, synopsis);
			return 1;
		}
		if (scan_opt_apply(o, &v, &al, &until_deadline) != 0)
			return usage_error(err, cmd, CRS_EINPUT);
	}
	if (r != 0)
		return usage_error(err, cmd, CRS_EINPUT);
	if (p.idx < argc) {
		crs_error_set(CRS_EINPUT, "unexpected argument '%s'",
			      argv[p.idx]);
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
	if ((o->batch || o->prune || o->coverage_mode) &&
	    (o->base || o->diff)) {
		crs_error_set(CRS_EINPUT, "--mode %s works on the whole "
			      "project: no --base or --diff", o->batch ?
			      "batch" : o->prune ? "prune" : "coverage");
		return usage_error(err, cmd, CRS_EINPUT);
	}
	if (o->prune && !o->corpus_store) {
		crs_error_set(CRS_EINPUT, "--mode prune minimizes the corpus "
			      "store: it needs --corpus-store");
		return usage_error(err, cmd, CRS_EINPUT);
	}
	if (o->oss_fuzz_mirror && !o->oss_fuzz_corpus) {
		crs_error_set(CRS_EINPUT, "--oss-fuzz-mirror needs "
			      "--oss-fuzz-corpus NAME");
		return usage_error(err, cmd, CRS_EINPUT);
	}
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
	free(o->corpora);
	o->corpora = NULL;
	o->corpora_nr = 0;
}
