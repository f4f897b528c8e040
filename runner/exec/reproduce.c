/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce.c - N runs of one input on one of crs-ci's builds
 *
 * The runs and the reading of their logs, shared by triage (head and
 * base builds) and patch validation (patched builds), so both judge a
 * crash the same way: the signature most runs agree on. The container
 * writes only <tdir>/io (see reproduce.h); its logs are read back through
 * a directory descriptor.
 */
#include "runner/exec/reproduce.h"
#include "runner/exec/container.h"
#include "runner/exec/images.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * N runs of one input. A run that times out (libFuzzer exits 70) costs
 * the whole -timeout, so a timeout PoV gets at most 3 runs, and the runs
 * after the first hang wait out their timeouts side by side (issue 42,
 * item 8): a hang's reproduction takes two timeouts, not three.
 */
static const char reproduce_script[] =
	"h=\"$1\"; n=\"$2\"; rss=\"$3\"; i=1\n"
	"run() {\n"
	"  /out/\"$h\" -runs=1 -timeout=10 -rss_limit_mb=\"$rss\" /testcase "
	">/triage/run.$1.log 2>&1\n"
	"  echo $? >/triage/rc.$1\n"
	"}\n"
	"while [ \"$i\" -le \"$n\" ]; do\n"
	"  run \"$i\"\n"
	"  if [ \"$(cat /triage/rc.$i)\" -eq 70 ]; then\n"
	"    [ \"$n\" -gt 3 ] && n=3\n"
	"    while [ \"$i\" -lt \"$n\" ]; do i=$((i + 1)); run \"$i\" & done\n"
	"    wait\n"
	"    break\n"
	"  fi\n"
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
	char *io = xasprintf("%s/io", tdir);
	int r, code = -1;

	/* a fresh folder of our own: nothing a container left is bound */
	if ((r = fs_remove_tree(io)) != 0 || (r = fs_mkdir_new(io)) != 0)
		goto out;
	strvec_pushf(&binds, "%s:/out:ro", out_dir);
	strvec_pushf(&binds, "%s:/testcase:ro", testcase);
	strvec_pushf(&binds, "%s:/triage", io);
	strvec_push(&args, "reproduce");
	strvec_push(&args, harness);
	strvec_pushf(&args, "%d", s->opts->reproduce_runs);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(&s->exec));
	r = container_run_script(&s->exec, reproduce_script, strvec_list(&args),
				 strvec_list(&binds),
				 30.0 * s->opts->reproduce_runs + 60, log, &code);
out:
	strvec_release(&binds);
	strvec_release(&args);
	free(log);
	free(io);
	return r;
}

void reproduce_read_runs(struct repro_verdict *v, const char *tdir, int runs,
			 const char *harness)
{
	char **sigs = xcalloc((size_t)runs + 1, sizeof(char *));
	struct buf *logs = xcalloc((size_t)runs + 1, sizeof(struct buf));
	char *io = xasprintf("%s/io", tdir);
	int best = -1, best_count = 0, dfd = -1;

	memset(v, 0, sizeof(*v));
	if (fs_open_dir(&dfd, io) != 0)
		runs = 0;	/* no folder, or a link: no attempt */
	crs_error_clear();
	for (int i = 1; i <= runs; i++) {
		char name[32], *what;
		struct buf *b = &logs[i - 1];
		struct crash_report *cr = NULL;

		buf_init(b);
		snprintf(name, sizeof(name), "run.%d.log", i);
		what = xasprintf("%s/%s", io, name);
		if (fs_read_regular_at(b, dfd, name, what,
				       REPRODUCE_LOG_MAX, NULL) == 0) {
			v->attempts++;
			if (crash_report_parse(&cr, b->ptr, b->len) == 0) {
				sigs[i - 1] = crash_signature(cr, harness);
				crash_report_free(cr);
			}
		} else {
			buf_release(b);
		}
		crs_error_clear();
		free(what);
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
		struct buf *b = &logs[best];

		v->log_path = xasprintf("%s/run.%d.log", io, best + 1);
		crash_report_parse(&v->report, b->ptr, b->len);
		crs_error_clear();
		v->log_len = b->len;
		v->log = buf_detach(b, NULL);
		v->signature = xstrdup(sigs[best]);
		v->reproduced = best_count;
	}
	for (int i = 0; i < runs; i++) {
		free(sigs[i]);
		buf_release(&logs[i]);
	}
	if (dfd >= 0)
		close(dfd);
	free(logs);
	free(sigs);
	free(io);
}

void repro_verdict_release(struct repro_verdict *v)
{
	crash_report_free(v->report);
	free(v->signature);
	free(v->log_path);
	free(v->log);
	memset(v, 0, sizeof(*v));
}
