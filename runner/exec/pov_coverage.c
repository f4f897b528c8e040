/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pov_coverage.c - crashing and hanging inputs replayed on the coverage
 * build, each keeping its profile
 *
 * The PoVs are crs-ci's own copies in the output folder, read beneath it
 * by descriptor and copied into a fresh folder bound read-only; what the
 * container writes (io/) is read by descriptor, regular files only,
 * capped. The container has no network, the infra cpuset, a timeout.
 */
#include "runner/exec/pov_coverage.h"
#include "runner/exec/container.h"
#include "runner/scan/coverage.h"
#include "runner/scan/exec_ctx.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POV_COPY_MAX (64u << 20)	/* a PoV copied for the replay */

/*
 * In the base runner image: each /povs/<i> in its own process, with
 * LLVM_PROFILE_FILE holding %c (continuous mode: counters written
 * through an mmap of the profile, so the process may die any way); then
 * llvm-profdata and llvm-cov export into /replay/<i>.lcov. A build
 * without counter relocation cannot run in that mode: the profile
 * runtime says so and the script exits 14. <i>.rc is the PoV's exit
 * status (a crash or a timeout is expected).
 */
static const char pov_script[] =
	"h=\"$1\"; rss=\"$2\"; run=\"$3\"; t=/tmp/pov\n"
	"for p in /povs/*; do\n"
	"  [ -f \"$p\" ] || continue\n"
	"  i=${p##*/}; mkdir -p \"$t/$i\"\n"
	"  LLVM_PROFILE_FILE=\"$t/$i/%p%c.profraw\" timeout -s KILL "
	"$((run + 5)) \"/out/$h\" -timeout=\"$run\" -rss_limit_mb=\"$rss\" "
	"\"$p\" >\"/replay/$i.log\" 2>&1\n"
	"  echo $? >\"/replay/$i.rc\"\n"
	"  if grep -q 'counter_bias is undefined' \"/replay/$i.log\"; then\n"
	"    exit 14\n"
	"  fi\n"
	"  ls \"$t/$i\"/*.profraw >/dev/null 2>&1 || continue\n"
	"  llvm-profdata merge -sparse \"$t/$i\"/*.profraw "
	"-o \"$t/$i.profdata\" 2>>\"/replay/$i.log\" || continue\n"
	"  llvm-cov export -format=lcov -instr-profile=\"$t/$i.profdata\" "
	"\"/out/$h\" >\"/replay/$i.lcov\" 2>>\"/replay/$i.log\" || "
	"rm -f \"/replay/$i.lcov\"\n"
	"done\n";

#define POV_NO_RELOCATION 14

void pov_coverage_release(struct pov_coverage *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		coverage_free(p->cov ? p->cov[i] : NULL);
		free(p->failed ? p->failed[i] : NULL);
	}
	free(p->cov);
	free(p->failed);
	free(p->all_failed);
	memset(p, 0, sizeof(*p));
}

/* Copy the PoV `rel` (beneath the output folder) to `name` in dstfd. */
static int stage_pov(int outfd, const char *rel, int dstfd, const char *name,
		     const char *out_dir)
{
	struct buf b = BUF_INIT;
	const char *leaf = NULL;
	char *shown = xasprintf("%s/%s", out_dir, rel);
	int parent = -1, r;

	if ((r = fs_walk_beneath(&parent, &leaf, outfd, rel, 0, out_dir)) ||
	    (r = fs_read_regular_at(&b, parent, leaf, shown, POV_COPY_MAX,
				    NULL)) ||
	    (r = fs_write_at(dstfd, name, b.ptr, b.len)))
		goto out;
out:
	if (parent >= 0)
		close(parent);
	buf_release(&b);
	free(shown);
	return r;
}

/* Read io/<i>.lcov into out->cov[i], or say why not. */
static void take_lcov(struct pov_coverage *out, int iofd, size_t i,
		      const char *io)
{
	struct buf text = BUF_INIT;
	char *name = xasprintf("%zu.lcov", i);
	char *shown = xasprintf("%s/%s", io, name);
	int r = fs_read_regular_at(&text, iofd, name, shown,
				   COVERAGE_LCOV_MAX, NULL);

	if (r == CRS_ENOTFOUND)
		out->failed[i] = xasprintf("the PoV left no profile; see "
					   "%s/%zu.log", io, i);
	else if (r != 0 || coverage_parse_lcov(&out->cov[i], text.ptr,
					       text.len, shown) != 0)
		out->failed[i] = xasprintf("unusable coverage: %s",
					   crs_error_last());
	crs_error_clear();
	buf_release(&text);
	free(name);
	free(shown);
}

/* Copy the PoVs into dir/in as 0, 1, ...; 0 or an I/O error. */
static int stage_all(struct pov_coverage *out, const struct exec_ctx *x,
		     const char *in, const char *const *povs, size_t nr)
{
	int outfd = -1, infd = -1, r;

	if ((r = fs_open_dir(&outfd, x->out_dir)) != 0 ||
	    (r = fs_open_dir(&infd, in)) != 0)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		char name[24];

		snprintf(name, sizeof(name), "%zu", i);
		if (stage_pov(outfd, povs[i], infd, name, x->out_dir) != 0) {
			out->failed[i] = xasprintf("its PoV cannot be read: "
						   "%s", crs_error_last());
			crs_error_clear();
		}
	}
out:
	if (outfd >= 0)
		close(outfd);
	if (infd >= 0)
		close(infd);
	return r;
}

int pov_coverage_run(struct pov_coverage *out, struct exec_ctx *x,
		     const char *harness, const char *dir,
		     const char *const *povs, size_t nr, double timeout_s)
{
	struct strvec binds = STRVEC_INIT, args = STRVEC_INIT;
	char *bout = exec_work_path(x, "builds/coverage/head/out");
	char *bin = xasprintf("%s/%s", bout, harness);
	char *log = xasprintf("%s/container.log", dir);
	char *io = xasprintf("%s/io", dir), *in = xasprintf("%s/in", dir);
	int r, code = -1, iofd = -1;

	if (nr > POV_COVERAGE_MAX)
		nr = POV_COVERAGE_MAX;
	out->nr = nr;
	out->cov = xcalloc(nr + 1, sizeof(*out->cov));
	out->failed = xcalloc(nr + 1, sizeof(*out->failed));
	if (!fs_exists(bin)) {
		out->all_failed = xstrdup("the coverage build has no such "
					  "harness");
		r = 0;
		goto out;
	}
	if ((r = fs_remove_tree(dir)) != 0 || (r = fs_mkdir_p(dir)) != 0 ||
	    (r = fs_mkdir_new(io)) != 0 || (r = fs_mkdir_new(in)) != 0 ||
	    (r = stage_all(out, x, in, povs, nr)) != 0)
		goto out;
	strvec_pushf(&binds, "%s:/out:ro", bout);
	strvec_pushf(&binds, "%s:/povs:ro", in);
	strvec_pushf(&binds, "%s:/replay", io);
	strvec_push(&args, "pov-coverage");
	strvec_push(&args, harness);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(x));
	strvec_pushf(&args, "%d", POV_COVERAGE_RUN_S);
	r = container_run_script(x, pov_script, strvec_list(&args),
				 strvec_list(&binds), timeout_s, log, &code);
	if (r == CRS_ETIMEOUT) {
		crs_error_clear();
		out->all_failed = xasprintf("replaying the PoVs took longer "
					    "than %.0fs", timeout_s);
		r = 0;
		goto out;
	}
	if (r != 0 || (r = fs_open_dir(&iofd, io)) != 0)
		goto out;
	if (code == POV_NO_RELOCATION) {
		out->all_failed = xstrdup("the coverage build was compiled "
					  "without runtime counter relocation");
		goto out;
	}
	if (code != 0) {
		out->all_failed = xasprintf("the replay exited %d; see %s",
					    code, log);
		goto out;
	}
	for (size_t i = 0; i < nr; i++)
		if (!out->failed[i])
			take_lcov(out, iofd, i, io);
out:
	if (iofd >= 0)
		close(iofd);
	strvec_release(&binds);
	strvec_release(&args);
	free(io);
	free(in);
	free(bout);
	free(bin);
	free(log);
	return r;
}
