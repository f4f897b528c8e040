/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce.c - N runs of one input on one of crs-ci's builds
 *
 * The runs and the reading of their logs, shared by triage (head and
 * base builds) and patch validation (patched builds), so both judge a
 * crash the same way: the signature most runs agree on.
 */
#include "runner/reproduce.h"
#include "runner/container.h"
#include "runner/images.h"
#include "runner/scan.h"
#include "runner/scan_opts.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "sarif/crash.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * N runs of one input. A run that times out (libFuzzer exits 70) costs
 * the whole -timeout, so a timeout PoV gets at most 3 runs.
 */
static const char reproduce_script[] =
	"h=\"$1\"; n=\"$2\"; rss=\"$3\"; i=1\n"
	"while [ \"$i\" -le \"$n\" ]; do\n"
	"  /out/\"$h\" -runs=1 -timeout=10 -rss_limit_mb=\"$rss\" /testcase "
	">/triage/run.$i.log 2>&1\n"
	"  rc=$?; echo $rc >/triage/rc.$i\n"
	"  if [ \"$rc\" -eq 70 ] && [ \"$n\" -gt 3 ]; then n=3; fi\n"
	"  i=$((i + 1))\n"
	"done\n";

int reproduce_run(struct scan *s, const char *harness, const char *testcase,
		  const char *which, const char *tdir)
{
	char *out = scan_work_path(s, "builds/%s/%s/out", s->state.sanitizer,
				   which);
	int r = reproduce_run_in(s, harness, testcase, out, tdir);

	free(out);
	return r;
}

int reproduce_run_in(struct scan *s, const char *harness,
		     const char *testcase, const char *out_dir,
		     const char *tdir)
{
	struct strvec binds = STRVEC_INIT, args = STRVEC_INIT;
	char *log = xasprintf("%s/container.log", tdir);
	int r, code = -1;

	strvec_pushf(&binds, "%s:/out:ro", out_dir);
	strvec_pushf(&binds, "%s:/testcase:ro", testcase);
	strvec_pushf(&binds, "%s:/triage", tdir);
	strvec_push(&args, "reproduce");
	strvec_push(&args, harness);
	strvec_pushf(&args, "%d", s->opts->reproduce_runs);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(s));
	r = container_run_script(s, reproduce_script, strvec_list(&args),
				 strvec_list(&binds),
				 30.0 * s->opts->reproduce_runs + 60, log, &code);
	strvec_release(&binds);
	strvec_release(&args);
	free(log);
	return r;
}

void reproduce_read_runs(struct repro_verdict *v, const char *tdir, int runs,
			 const char *harness)
{
	char **sigs = xcalloc((size_t)runs + 1, sizeof(char *));
	int best = -1, best_count = 0;

	memset(v, 0, sizeof(*v));
	for (int i = 1; i <= runs; i++) {
		char *path = xasprintf("%s/run.%d.log", tdir, i);
		struct buf b = BUF_INIT;
		struct crash_report *cr = NULL;

		if (fs_read_file(&b, path, REPRODUCE_LOG_MAX) == 0) {
			v->attempts++;
			if (crash_report_parse(&cr, b.ptr, b.len) == 0) {
				sigs[i - 1] = crash_signature(cr, harness);
				crash_report_free(cr);
			}
		}
		crs_error_clear();
		buf_release(&b);
		free(path);
	}
	for (int i = 0; i < runs; i++) {
		int count = 0;

		if (!sigs[i])
			continue;
		for (int k = 0; k < runs; k++)
			count += sigs[k] && !strcmp(sigs[k], sigs[i]);
		if (count > best_count) {
			best = i;
			best_count = count;
		}
	}
	if (best >= 0) {
		struct buf b = BUF_INIT;

		v->log_path = xasprintf("%s/run.%d.log", tdir, best + 1);
		if (fs_read_file(&b, v->log_path, REPRODUCE_LOG_MAX) == 0)
			crash_report_parse(&v->report, b.ptr, b.len);
		crs_error_clear();
		buf_release(&b);
		v->signature = xstrdup(sigs[best]);
		v->reproduced = best_count;
	}
	for (int i = 0; i < runs; i++)
		free(sigs[i]);
	free(sigs);
}

void repro_verdict_release(struct repro_verdict *v)
{
	crash_report_free(v->report);
	free(v->signature);
	free(v->log_path);
	memset(v, 0, sizeof(*v));
}
