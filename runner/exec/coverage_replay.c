/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_replay.c - a harness's corpus replayed on the coverage build
 *
 * Shared by the select phase (which harnesses reach the change) and the
 * change-coverage step (which changed lines fuzzing executed). The
 * corpus is CRS output: it reaches the container only through read-only
 * binds of crs-ci's own folders (checked by container_run), and what the
 * container writes (io/) is read by descriptor, regular files only,
 * capped. The container has no network, the infra cpuset, a timeout.
 */
#include "runner/exec/coverage_replay.h"
#include "runner/exec/build_record.h"
#include "runner/exec/container.h"
#include "runner/exec/target_build.h"
#include "runner/scan/coverage.h"
#include "runner/scan/scan.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The replay script's exit codes past its own `set -e` failures. */
enum {
	REPLAY_OK = 0,
	REPLAY_NO_INPUTS = 10,
	REPLAY_NO_PROFILE = 11,
	REPLAY_PROFDATA = 12,
	REPLAY_EXPORT = 13,
};

/*
 * In the base runner image: unzip the seed corpus, replay it and every
 * folder under /corpus in one process (-runs=0: each input runs once,
 * then libFuzzer exits), then llvm-profdata and llvm-cov export
 * -format=lcov into /replay. When that process fails (an input crashed
 * or hung the coverage build, and the inputs after it did not run), the
 * replay starts over with a clean profile in libFuzzer's merge mode: a
 * crashing input restarts the child, so one bad seed does not lose the
 * others' coverage, and the %1m profile pool merges the children's
 * counters. Merge mode costs about half a second more even on a few
 * inputs, which is why it is the second try. With no input at all the
 * harness still runs once (libFuzzer's empty-corpus input) so the export
 * says which lines its build instruments; the script then exits
 * REPLAY_NO_INPUTS.
 */
static const char replay_script[] =
	"h=\"$1\"; rss=\"$2\"; t=/tmp/replay\n"
	"mkdir -p \"$t/seeds\" \"$t/empty\" \"$t/prof\"\n"
	"if [ -f \"/out/${h}_seed_corpus.zip\" ]; then\n"
	"  unzip -qq -o \"/out/${h}_seed_corpus.zip\" -d \"$t/seeds\" "
	">/replay/unzip.log 2>&1 ||\n"
	"    echo \"replay: unzip of the seed corpus failed\" >&2\n"
	"fi\n"
	"set -- \"$t/seeds\"\n"
	"for d in /corpus/*; do\n"
	"  [ -d \"$d\" ] && set -- \"$@\" \"$d\"\n"
	"done\n"
	"n=$(find \"$@\" -type f | wc -l)\n"
	"echo \"$n\" >/replay/inputs\n"
	"export LLVM_PROFILE_FILE=\"$t/prof/%1m.profraw\"\n"
	"if [ \"$n\" -gt 0 ]; then\n"
	"  \"/out/$h\" -runs=0 -timeout=25 -rss_limit_mb=\"$rss\" "
	"\"$t/empty\" \"$@\" >/replay/replay.log 2>&1 || {\n"
	"    echo \"replay: one process failed ($?); merge mode\" "
	">>/replay/replay.log\n"
	"    rm -rf \"$t/prof\" \"$t/empty\" && "
	"mkdir -p \"$t/prof\" \"$t/empty\"\n"
	"    \"/out/$h\" -merge=1 -timeout=25 -rss_limit_mb=\"$rss\" "
	"\"$t/empty\" \"$@\" >>/replay/replay.log 2>&1\n"
	"  }\n"
	"else\n"
	"  \"/out/$h\" -runs=0 \"$t/empty\" >/replay/replay.log 2>&1\n"
	"fi\n"
	"echo $? >/replay/replay.rc\n"
	"ls \"$t\"/prof/*.profraw >/dev/null 2>&1 || exit 11\n"
	"llvm-profdata merge -sparse \"$t\"/prof/*.profraw "
	"-o \"$t/merged.profdata\" || exit 12\n"
	"llvm-cov export -format=lcov -instr-profile=\"$t/merged.profdata\" "
	"\"/out/$h\" >/replay/coverage.lcov || exit 13\n"
	"[ \"$n\" -gt 0 ] || exit 10\n";

void coverage_replay_release(struct coverage_replay *r)
{
	if (!r)
		return;
	free(r->failed);
	coverage_free(r->cov);
	r->failed = NULL;
	r->cov = NULL;
}

static void set_failed(struct coverage_replay *out, char *why)
{
	free(out->failed);
	out->failed = why;
}

int coverage_replay_run(struct coverage_replay *out, struct exec_ctx *x,
			const char *harness, const char *dir,
			const char *const *corpora, double timeout_s)
{
	struct strvec binds = STRVEC_INIT, args = STRVEC_INIT;
	char *bout = exec_work_path(x, "builds/coverage/head/out");
	char *bin = xasprintf("%s/%s", bout, harness);
	char *log = xasprintf("%s/container.log", dir);
	char *io = xasprintf("%s/io", dir);
	char *lcov = xasprintf("%s/coverage.lcov", io);
	struct buf text = BUF_INIT;
	int r, code = -1, iofd = -1;

	if (!fs_exists(bin)) {
		set_failed(out, xstrdup("the coverage build has no such "
					"harness"));
		r = 0;
		goto out;
	}
	/* only io/ is the container's; its log and our files sit beside it */
	if ((r = fs_remove_tree(dir)) != 0 || (r = fs_mkdir_p(dir)) != 0 ||
	    (r = fs_mkdir_new(io)) != 0)
		goto out;
	strvec_pushf(&binds, "%s:/out:ro", bout);
	strvec_pushf(&binds, "%s:/replay", io);
	for (size_t i = 0; corpora && corpora[i]; i++)
		if (fs_exists(corpora[i]))	/* a link: bind_source_check */
			strvec_pushf(&binds, "%s:/corpus/%zu:ro", corpora[i],
				     i);
	strvec_push(&args, "coverage-replay");
	strvec_push(&args, harness);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(x));
	r = container_run_script(x, replay_script, strvec_list(&args),
				 strvec_list(&binds), timeout_s, log, &code);
	if (r == CRS_ETIMEOUT) {
		crs_error_clear();
		set_failed(out, xasprintf("replaying its corpus took longer "
					  "than %.0fs", timeout_s));
		r = 0;
		goto out;
	}
	if (r != 0 || (r = fs_open_dir(&iofd, io)) != 0)
		goto out;
	out->inputs = fs_read_count_at(iofd, "inputs");
	switch (code) {
	case REPLAY_OK:
		break;
	case REPLAY_NO_INPUTS:
		out->no_inputs = 1;
		break;
	case REPLAY_NO_PROFILE:
		set_failed(out, xasprintf("the replay wrote no profile; see "
					  "%s/replay.log", io));
		goto out;
	case REPLAY_PROFDATA:
	case REPLAY_EXPORT:
		set_failed(out, xasprintf("%s failed; see %s",
					  code == REPLAY_PROFDATA ?
					  "llvm-profdata" : "llvm-cov export",
					  log));
		goto out;
	default:
		set_failed(out, xasprintf("the replay exited %d; see %s", code,
					  log));
		goto out;
	}
	if (fs_read_regular_at(&text, iofd, "coverage.lcov", lcov,
			       COVERAGE_LCOV_MAX, NULL) != 0 ||
	    coverage_parse_lcov(&out->cov, text.ptr, text.len, lcov) != 0) {
		set_failed(out, xasprintf("unusable coverage: %s",
					  crs_error_last()));
		crs_error_clear();
	}
out:
	if (iofd >= 0)
		close(iofd);
	buf_release(&text);
	strvec_release(&binds);
	strvec_release(&args);
	free(io);
	free(bout);
	free(bin);
	free(log);
	free(lcov);
	return r;
}

/* beside out/, as its build.json: the record of a build that failed */
#define COVERAGE_FAILED_RECORD "build-failed.json"

int coverage_replay_build(struct scan *s, int *ok_out)
{
	char *id = NULL, hash[65];
	char *dir = scan_work_path(s, "builds/coverage/head");
	char *log = scan_work_path(s, "logs/head-coverage-build.log");
	struct build_record rec;
	int r;

	*ok_out = 0;
	if ((r = target_build_record(s, s->state.head_image,
				     s->state.head_commit, "coverage", &id,
				     hash, &rec)) != 0)
		goto out;
	if (build_record_matches(dir, COVERAGE_FAILED_RECORD, &rec)) {
		log_warn("the head did not build with SANITIZER=coverage "
			 "before (log %s)", log);
		goto out;
	}
	if ((r = build_record_remove(dir, COVERAGE_FAILED_RECORD)) != 0)
		goto out;
	r = target_compile(s, s->state.head_image, s->state.head_commit,
			   "coverage", "head", NULL);
	if (r == CRS_EINTR || r == CRS_EENGINE)
		goto out;
	if (r != 0) {
		log_warn("the head does not build with SANITIZER=coverage "
			 "(log %s)", log);
		crs_error_clear();
		if ((r = fs_mkdir_p(dir)) == 0)
			r = build_record_write(dir, COVERAGE_FAILED_RECORD,
					       &rec);
		goto out;
	}
	*ok_out = 1;
out:
	free(dir);
	free(id);
	free(log);
	return r;
}
