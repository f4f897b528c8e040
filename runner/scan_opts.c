/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_opts.c - option table and parser shared by scan and the phases
 *
 * One getopt_long table; getopt is fully reset (optind = 0) before each
 * parse so commands can run in-process one after another (tests do).
 */
#include "runner/scan_opts.h"
#include "runner/base_images.h"
#include "runner/shard.h"
#include "runner/config/config.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

const char scan_opts_help[] =
"  --compose FILE     crs-compose.yaml (OSS-CRS format)\n"
"  --project DIR      project folder (Dockerfile, build.sh, project.yaml): an\n"
"                     OSS-Fuzz projects/NAME folder or the source's\n"
"                     .clusterfuzzlite/ (default: that one, when present)\n"
"  --source DIR       target source git repository (default .)\n"
"  --base REV         base of the change (merge-base with --head is used)\n"
"  --head REV         head of the change (default HEAD)\n"
"  --diff FILE        the change as a unified diff instead of --base\n"
"  --harness NAME     fuzz only this harness (repeatable; default: all)\n"
"  --pov FILE         a known crashing input (repeatable): reproduced on head\n"
"                     and base, handed to CRSs; one that crashes only the\n"
"                     base is reported as fixed by the change\n"
"  --sarif FILE       a static analyser's SARIF 2.1.0 log (repeatable): its\n"
"                     results go to CRSs as bug-candidates/ and are marked\n"
"                     confirmed when a proved crash passes their location\n"
"  --sanitizer NAME   address, undefined or memory (default: project.yaml's,\n"
"                     address when listed)\n"
"  --timeout DUR      deadline for the whole scan: 900, 90s, 15m, 1h (default 15m)\n"
"  --fuzz-seconds N   fuzz every selected harness at least N seconds; when the\n"
"                     deadline cannot give a harness N seconds the scan says\n"
"                     so before fuzzing and its verdict is INCOMPLETE (exit 4)\n"
"  --out DIR          where results go (default crs-ci-out)\n"
"  --work-dir DIR     builds, runs and logs (default crs-ci-work)\n"
"  --cache-dir DIR    saved images, corpora and git CRS checkouts carried\n"
"                     between CI runs (git checkouts: in --work-dir without it)\n"
"  --registry DIR     the folder of registry/<name>.yaml files for compose\n"
"                     entries without source (default: $CRS_CI_REGISTRY, else\n"
"                     the registry installed with crs-ci)\n"
"  --fail-on WHAT     new (default): only findings the change introduced;\n"
"                     any: every finding; none: never fail (not even when\n"
"                     INCOMPLETE: a harness got less fuzzing than it was due)\n"
"  --reproduce N      runs of each PoV during triage (default 5)\n"
"  --keep-going       let CRSs fuzz to the deadline after their first PoV\n"
"  --no-llm           no LLM gateway (e.g. fork pull requests have no secrets):\n"
"                     CRSs that declare required_llms are skipped, and said so\n"
"  --shard I/N        fuzz only shard I of N of the selected harnesses (the\n"
"                     sorted list, round-robin; see crs-ci plan, crs-ci merge)\n"
"  --allow-env NAME   let the compose or LLM config read environment variable\n"
"                     NAME (repeatable); without it a config reads only\n"
"                     *_API_KEY, *_API_BASE and *_BASE_URL names, never CI\n"
"                     tokens (GITHUB_*, ACTIONS_*, RUNNER_*, CI_*, GITLAB_*,\n"
"                     CRS_CI_*)\n"
"  --base-images M    pull (default): pull a missing base image from its\n"
"                     registry; stand-in: use the offline Debian stand-ins\n"
"                     (container/base-images/build.sh) for the OSS-Fuzz and\n"
"                     AIxCC base images (also CRS_CI_BASE_IMAGES=stand-in)\n"
"  -h, --help         this text\n";

enum {
	OPT_COMPOSE = 256, OPT_PROJECT, OPT_SOURCE, OPT_BASE, OPT_HEAD,
	OPT_DIFF, OPT_HARNESS, OPT_TIMEOUT, OPT_OUT, OPT_WORK_DIR,
	OPT_CACHE_DIR, OPT_FAIL_ON, OPT_REPRODUCE, OPT_KEEP_GOING, OPT_POV,
	OPT_SANITIZER, OPT_SARIF, OPT_SHARD, OPT_NO_LLM, OPT_ALLOW_ENV,
	OPT_REGISTRY, OPT_BASE_IMAGES, OPT_FUZZ_SECONDS,
};

static const struct option long_opts[] = {
	{ "compose", required_argument, NULL, OPT_COMPOSE },
	{ "project", required_argument, NULL, OPT_PROJECT },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "head", required_argument, NULL, OPT_HEAD },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "harness", required_argument, NULL, OPT_HARNESS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "fuzz-seconds", required_argument, NULL, OPT_FUZZ_SECONDS },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "work-dir", required_argument, NULL, OPT_WORK_DIR },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "registry", required_argument, NULL, OPT_REGISTRY },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "reproduce", required_argument, NULL, OPT_REPRODUCE },
	{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
	{ "no-llm", no_argument, NULL, OPT_NO_LLM },
	{ "pov", required_argument, NULL, OPT_POV },
	{ "sanitizer", required_argument, NULL, OPT_SANITIZER },
	{ "sarif", required_argument, NULL, OPT_SARIF },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "allow-env", required_argument, NULL, OPT_ALLOW_ENV },
	{ "base-images", required_argument, NULL, OPT_BASE_IMAGES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int parse_duration(const char *s, long *out)
{
	char *end = NULL;
	long v, mult = 1;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || v < 0)
		goto bad;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else
		goto bad;
	if (v > 7 * 24 * 3600 / mult)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	return crs_error_set(CRS_EINPUT, "'%s' is not a duration "
			     "(examples: 900, 90s, 15m, 1h)", s);
}

static int usage_error(FILE *err, const char *usage, int r)
{
	log_fprintf(err, "crs-ci: ", "%s", crs_error_last());
	fputs(usage, err);
	return r;
}

int scan_opts_parse(struct scan_opts *o, int argc, char **argv,
		    const char *usage, FILE *out, FILE *err)
{
	size_t alloc = 0, povs_alloc = 0, sarifs_alloc = 0, allow_alloc = 0;
	const char *env_mode = getenv("CRS_CI_BASE_IMAGES");
	enum base_images_mode mode = BASE_IMAGES_PULL;
	long n;
	int c;

	if (env_mode && env_mode[0] &&
	    base_images_mode_parse(&mode, env_mode,
				   "CRS_CI_BASE_IMAGES") != 0)
		return usage_error(err, usage, CRS_EINPUT);
	o->base_images = (int)mode;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
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
				return usage_error(err, usage, CRS_EINPUT);
			}
			break;
		case OPT_FUZZ_SECONDS:
			if (parse_duration(optarg, &o->fuzz_seconds) != 0 ||
			    o->fuzz_seconds < 1) {
				crs_error_set(CRS_EINPUT, "--fuzz-seconds: '%s' is "
					      "not a number of seconds of at least "
					      "1", optarg);
				return usage_error(err, usage, CRS_EINPUT);
			}
			break;
		case OPT_OUT: o->out_dir = optarg; break;
		case OPT_WORK_DIR: o->work_dir = optarg; break;
		case OPT_CACHE_DIR: o->cache_dir = optarg; break;
		case OPT_REGISTRY: o->registry = optarg; break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "new") && strcmp(optarg, "any") &&
			    strcmp(optarg, "none")) {
				crs_error_set(CRS_EINPUT, "--fail-on: '%s' is not "
					      "one of new, any, none", optarg);
				return usage_error(err, usage, CRS_EINPUT);
			}
			o->fail_on = optarg;
			break;
		case OPT_REPRODUCE:
			n = strtol(optarg, NULL, 10);
			if (n < 1 || n > 100) {
				crs_error_set(CRS_EINPUT, "--reproduce: '%s' is "
					      "not a number from 1 to 100", optarg);
				return usage_error(err, usage, CRS_EINPUT);
			}
			o->reproduce_runs = (int)n;
			break;
		case OPT_KEEP_GOING: o->keep_going = 1; break;
		case OPT_NO_LLM: o->no_llm = 1; break;
		case OPT_POV:
			ALLOC_GROW(o->povs, o->povs_nr + 1, povs_alloc);
			o->povs[o->povs_nr++] = optarg;
			break;
		case OPT_ALLOW_ENV:
			if (!config_env_name_ok(optarg)) {
				crs_error_set(CRS_EINPUT, "--allow-env: '%s' is "
					      "not an environment variable "
					      "name", optarg);
				return usage_error(err, usage, CRS_EINPUT);
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
				return usage_error(err, usage, CRS_EINPUT);
			}
			o->sanitizer = optarg;
			break;
		case OPT_SHARD:
			if (shard_parse(optarg, &o->shard_index,
					&o->shard_count) != 0) {
				crs_error_prefix("--shard");
				return usage_error(err, usage, CRS_EINPUT);
			}
			break;
		case OPT_BASE_IMAGES:
			if (base_images_mode_parse(&mode, optarg,
						   "--base-images") != 0)
				return usage_error(err, usage, CRS_EINPUT);
			o->base_images = (int)mode;
			break;
		case 'h':
			fputs(usage, out);
			return 1;
		default:
			crs_error_set(CRS_EINPUT, "unknown or incomplete option "
				      "'%s'", argv[optind - 1]);
			return usage_error(err, usage, CRS_EINPUT);
		}
	}
	if (optind < argc) {
		crs_error_set(CRS_EINPUT, "unexpected argument '%s'",
			      argv[optind]);
		return usage_error(err, usage, CRS_EINPUT);
	}
	if (o->diff && o->base) {
		crs_error_set(CRS_EINPUT, "options '--diff' and '--base' "
			      "cannot be used together");
		return usage_error(err, usage, CRS_EINPUT);
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
