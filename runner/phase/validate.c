/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate.c - every patch a CRS submitted, validated by crs-ci itself
 *
 * A patch is a claim: policy, apply, build, povs, tests and refuzz
 * steps, stopping at the first failure; each verdict is recorded.
 *
 * Details: docs/results.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/container.h"
#include "runner/exec/images.h"
#include "runner/sidecar/patch_tree.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "runner/exec/snapshot.h"
#include "runner/scan/submissions.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/target_build.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "sarif/crash.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VALIDATE_PATCH_MAX (1u << 20)	/* bytes of a submitted patch */
#define VALIDATE_MAX_LINES 200		/* added + deleted lines */
#define VALIDATE_TESTS_S 600.0		/* the project's tests at most */
#define VALIDATE_STEP_MIN_S 10.0	/* less left: skip the step */

struct submitted {
	char *text;		/* the patch as read from its submit dir */
	size_t len;
	char *crs, *harness;
	char sha[65];
};

struct submitted_list {
	struct submitted *items;
	size_t nr, alloc;
	struct scan *s;		/* borrowed, for the CRS names */
};

/* One patch being validated. */
struct vpatch {
	struct scan *s;
	struct finding_set *fs;
	struct finding_patch *p;
	char sha12[13];
	char *which;		/* "patched-<sha12>": the build's name */
	char *work;		/* <work>/validate/<sha12> */
	char *logdir;		/* <out>/patches/logs/<sha12> */
	git_diff *diff;
	char *patch_path;	/* <work>/patch.diff: the diff as submitted */
	char *snapshot;		/* the head's, with the scan's sanitizer */
};

static void add_submitted(struct submitted_list *l, const void *text,
			  size_t len, const char *crs, const char *harness)
{
	struct submitted x = { 0 };

	sha256_hex(x.sha, text, len);
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i].sha, x.sha))
			return;
	x.text = xmalloc(len + 1);
	memcpy(x.text, text, len);
	x.text[len] = '\0';
	x.len = len;
	x.crs = xstrdup(crs);
	x.harness = xstrdup(harness);
	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = x;
}

/* SUBMIT_DIR/<harness>/patches/<file> of every CRS of the run. */
static void on_patch(const struct submission *sub, void *ctx)
{
	struct submitted_list *l = ctx;

	add_submitted(l, sub->data, sub->len,
		      l->s->compose->crs[sub->crs_index].name, sub->harness);
}

static void collect_patches(struct scan *s, struct submitted_list *l)
{
	l->s = s;
	submissions_walk(s, "patches", (off_t)VALIDATE_PATCH_MAX, "patch",
			 on_patch, l);
}

/* --- recording steps ---------------------------------------------------- */

/*
 * Record a step. `log` (absolute, may be NULL) is copied to
 * <logdir>/<name>.log; a failed step also records its detail and the
 * log's tail as the patch's failure.
 */
static void step(struct vpatch *v, const char *name, const char *verdict,
		 const char *detail, const char *log)
{
	char *dst = xasprintf("%s/%s.log", v->logdir, name);
	char *rel = NULL;

	if (log && (!strcmp(log, dst) || fs_copy_file(log, dst) == 0))
		rel = xasprintf("patches/logs/%s/%s.log", v->sha12, name);
	crs_error_clear();
	finding_patch_add_step(v->p, name, verdict, detail, rel);
	if (!strcmp(verdict, "failed")) {
		char *tail = log ? log_tail(log, 15, LOG_TAIL_CAP) : xstrdup("");

		v->p->failed_step = xstrdup(name);
		v->p->failure = xasprintf("%s%s%s", detail ? detail : "",
					  *tail ? "\n" : "", tail);
		log_info("validate: patch %s from %s: %s failed: %s", v->sha12,
			 v->p->crs, name, detail ? detail : "");
		free(tail);
	} else {
		log_info("validate: patch %s: %s %s%s%s", v->sha12, name,
			 verdict, detail ? ": " : "", detail ? detail : "");
	}
	free(dst);
	free(rel);
}

/* --- policy ------------------------------------------------------------- */

static int has_component(const char *path, const char *const *names)
{
	const char *p = path;

	while (*p) {
		size_t n = strcspn(p, "/");

		for (size_t i = 0; names[i]; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				return 1;
		p += n;
		if (*p == '/')
			p++;
	}
	return 0;
}

static int is_source_ext(const char *base)
{
	static const char *const exts[] = {
		".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp",
		".hxx", ".inc", ".ipp", NULL,
	};
	const char *dot = strrchr(base, '.');

	for (size_t i = 0; dot && exts[i]; i++)
		if (!strcmp(dot, exts[i]))
			return 1;
	return 0;
}

/* Why `path` may not be patched, or NULL when it may. */
static const char *path_refused(struct scan *s, const char *path,
				const char *head_src)
{
	static const char *const bad_dirs[] = {
		"fuzz", "fuzzer", "fuzzers", "fuzzing", "test", "tests",
		"testing", ".git", ".clusterfuzzlite", "projects", NULL,
	};
	static const char *const dots[] = { "..", ".", "", NULL };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *file;
	struct buf b = BUF_INIT;
	struct stat st;
	const char *why = NULL;

	if (path[0] == '/' || has_component(path, dots))
		return "not a repository-relative path";
	if (has_component(path, bad_dirs))
		return "a fuzz harness, test or project file";
	if (!strcmp(base, "build.sh") || !strcmp(base, "Dockerfile") ||
	    !strcmp(base, "test.sh") || !strcmp(base, "run_tests.sh") ||
	    !strcmp(base, "project.yaml"))
		return "a build or test script";
	for (size_t i = 0; i < s->state.harnesses_nr; i++) {
		size_t n = strlen(s->state.harnesses[i]);

		if (!strncmp(base, s->state.harnesses[i], n) &&
		    base[n] == '.')
			return "a fuzz harness source";
	}
	if (!is_source_ext(base))
		return "not a C or C++ source file";
	file = xasprintf("%s/%s", head_src, path);
	if (lstat(file, &st) == 0 && S_ISREG(st.st_mode) &&
	    fs_read_file(&b, file, 16u << 20) == 0 &&
	    memmem(b.ptr, b.len, "LLVMFuzzerTestOneInput", 22))
		why = "a fuzz harness source (defines LLVMFuzzerTestOneInput)";
	crs_error_clear();
	buf_release(&b);
	free(file);
	return why;
}

/* Headers are -p1: "--- a/..." or /dev/null, "+++ b/..." or /dev/null. */
static const char *headers_refused(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 4 && !strncmp(p, "--- ", 4) &&
		    !(n >= 6 && !strncmp(p + 4, "a/", 2)) &&
		    !(n >= 13 && !strncmp(p + 4, "/dev/null", 9)))
			return "'---' header is not a/<path> (-p1)";
		if (n >= 4 && !strncmp(p, "+++ ", 4) &&
		    !(n >= 6 && !strncmp(p + 4, "b/", 2)) &&
		    !(n >= 13 && !strncmp(p + 4, "/dev/null", 9)))
			return "'+++' header is not b/<path> (-p1)";
		if (n >= 16 && !strncmp(p, "GIT binary patch", 16))
			return "a binary patch";
		p += n + 1;
	}
	return NULL;
}

static int check_policy(struct vpatch *v, const char *head_src)
{
	struct scan *s = v->s;
	const char *text = v->p->diff;
	size_t len = strlen(text), lines = 0;
	char *log = xasprintf("%s/policy.log", v->logdir);
	struct buf l = BUF_INIT;
	const char *why = headers_refused(text, len);
	char *detail = NULL;

	if (!why && git_diff_from_buffer(&v->diff, text, len) != 0) {
		const git_error *e = git_error_last();

		buf_printf(&l, "libgit2: %s\n", e ? e->message : "?");
		why = "not a unified diff";
	}
	if (!why && git_diff_num_deltas(v->diff) == 0)
		why = "an empty diff";
	for (size_t i = 0; !why && i < git_diff_num_deltas(v->diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(v->diff, i);
		const char *path = d->new_file.path ? d->new_file.path :
			d->old_file.path;
		git_patch *gp = NULL;
		size_t adds = 0, dels = 0;

		if (d->status == GIT_DELTA_DELETED)
			path = d->old_file.path;
		buf_printf(&l, "%s: ", path ? path : "?");
		if (!path)
			why = "a file without a name";
		else if (d->flags & GIT_DIFF_FLAG_BINARY)
			why = "a binary change";
		else if (d->status != GIT_DELTA_MODIFIED &&
			 d->status != GIT_DELTA_ADDED &&
			 d->status != GIT_DELTA_DELETED)
			why = "a rename, copy or mode change";
		else if (d->old_file.path && d->new_file.path &&
			 d->status == GIT_DELTA_MODIFIED &&
			 strcmp(d->old_file.path, d->new_file.path))
			why = "old and new names differ";
		else
			why = path_refused(s, path, head_src);
		if (!why && git_patch_from_diff(&gp, v->diff, i) == 0 &&
		    git_patch_line_stats(NULL, &adds, &dels, gp) == 0)
			lines += adds + dels;
		git_patch_free(gp);
		buf_printf(&l, "%s (+%zu -%zu)\n", why ? why : "ok", adds,
			   dels);
		if (why) {
			detail = xasprintf("%s: %s", path ? path : "?", why);
			why = detail;
		}
	}
	if (!why && lines > VALIDATE_MAX_LINES) {
		detail = xasprintf("%zu changed lines, more than %d", lines,
				   VALIDATE_MAX_LINES);
		why = detail;
	}
	if (!why)
		buf_printf(&l, "%zu changed line(s), at most %d: ok\n", lines,
			   VALIDATE_MAX_LINES);
	else
		buf_printf(&l, "refused: %s\n", why);
	fs_write_file_atomic(log, l.ptr, l.len);
	crs_error_clear();
	step(v, "policy", why ? "failed" : "passed", why ? why : NULL, log);
	free(detail);
	free(log);
	buf_release(&l);
	return why ? -1 : 0;
}

/* --- apply -------------------------------------------------------------- */

static int apply_patch(struct vpatch *v)
{
	struct scan *s = v->s;
	char *log = xasprintf("%s/apply.log", v->logdir);
	char *detail = NULL;
	struct buf l = BUF_INIT;
	int r;

	r = patch_tree_check(s->source_dir, s->state.head_commit, v->diff,
			     &detail);
	buf_printf(&l, "git_apply_to_tree on %s: %s\n", s->state.head_commit,
		   detail ? detail : "applies cleanly");
	fs_write_file_atomic(log, l.ptr, l.len);
	crs_error_clear();
	step(v, "apply", r ? "failed" : "passed", detail, log);
	buf_release(&l);
	free(detail);
	free(log);
	return r;
}

/* --- build -------------------------------------------------------------- */

/* The sanitizer a finding's PoV crashes with. */
static const char *pov_sanitizer(const struct vpatch *v,
				 const struct finding *f)
{
	return f->sanitizer ? f->sanitizer : v->s->state.sanitizer;
}

static int pov_applies(const struct finding *f);

/* The sanitizers the run's PoVs need, the scan's first. */
static void needed_sanitizers(const struct vpatch *v, struct strvec *sans)
{
	strvec_push(sans, v->s->state.sanitizer);
	for (size_t i = 0; i < v->fs->nr; i++) {
		const struct finding *f = &v->fs->items[i];
		const char *san = pov_sanitizer(v, f);
		size_t k;

		if (!pov_applies(f))
			continue;
		for (k = 0; k < sans->nr && strcmp(sans->v[k], san); k++)
			;
		if (k == sans->nr)
			strvec_push(sans, san);
	}
}

/*
 * One patched build: the head's snapshot with `san`, the patch applied
 * by plain `git apply` (apply proved that it applies), compiled. 0 with
 * the step passed so far, -1 with *detail, or CRS_EINTR.
 */
static int build_one(struct vpatch *v, const char *san, const char *log,
		     char **detail)
{
	struct scan *s = v->s;
	struct snapshot_job j = SNAPSHOT_JOB_INIT;
	char *snap = NULL;
	int r;

	if ((r = snapshot_head_ensure(s, san, &snap)) != 0)
		goto failed;
	if (!strcmp(san, s->state.sanitizer) && !v->snapshot)
		v->snapshot = xstrdup(snap);
	j.image = snap;
	j.patch_path = v->patch_path;
	j.strict = 1;
	j.cpuset = s->compose->infra.cpuset;	/* our own work is infra */
	j.memory = s->compose->infra.memory_bytes;
	j.limit_s = TARGET_BUILD_TIMEOUT_S;
	j.log_path = log;
	log_info("validate: patch %s: rebuilding from %s", v->sha12, snap);
	if ((r = snapshot_compile(s, &j, san, v->which)) != 0)
		goto failed;
	if (j.apply_failed) {
		*detail = xasprintf("git apply refused the patch in %s's "
				    "WORKDIR", snap);
		r = -1;
	} else if (j.exit_code != 0) {
		*detail = xasprintf("compile with SANITIZER=%s exited %d", san,
				    j.exit_code);
		r = -1;
	}
	free(snap);
	return r;
failed:
	if (r != CRS_EINTR) {
		*detail = xasprintf("SANITIZER=%s: %s", san, crs_error_last());
		crs_error_clear();
		r = -1;
	}
	free(snap);
	return r;
}

/* -1: the step failed; CRS_EINTR: stop everything. */
static int build_patched(struct vpatch *v)
{
	struct scan *s = v->s;
	struct strvec sans = STRVEC_INIT;
	char *detail = NULL, *log = NULL;
	int r = 0;

	needed_sanitizers(v, &sans);
	for (size_t i = 0; i < sans.nr && r == 0; i++) {
		free(log);
		log = scan_work_path(s, "logs/%s-%s-build.log", v->which,
				     sans.v[i]);
		r = build_one(v, sans.v[i], log, &detail);
	}
	if (r == 0) {
		char *ok = xasprintf("rebuilt from the head's snapshot for "
				     "%zu sanitizer(s): %s%s", sans.nr,
				     sans.v[0], sans.nr > 1 ? ", ..." : "");

		step(v, "build", "passed", ok, log);
		free(ok);
	} else if (r == -1) {
		step(v, "build", "failed", detail, log);
	}
	strvec_release(&sans);
	free(detail);
	free(log);
	return r;
}

/* --- povs --------------------------------------------------------------- */

/* A finding whose PoV a patch must stop: it crashes the head build. */
static int pov_applies(const struct finding *f)
{
	return f->pov_path && f->harness &&
		!(f->novelty && !strcmp(f->novelty, "fixed-by-change"));
}

static int check_povs(struct vpatch *v, struct strvec *fixed)
{
	struct scan *s = v->s;
	char *log = xasprintf("%s/povs.log", v->logdir);
	struct buf l = BUF_INIT;
	char *detail = NULL;
	size_t checked = 0;
	int r = 0;

	for (size_t i = 0; i < v->fs->nr && !detail; i++) {
		const struct finding *f = &v->fs->items[i];
		char *bin, *pov, *tdir, *out;
		struct repro_verdict rv = { 0 };

		if (!pov_applies(f))
			continue;
		out = scan_work_path(s, "builds/%s/%s/out",
				     pov_sanitizer(v, f), v->which);
		bin = xasprintf("%s/%s", out, f->harness);
		pov = xasprintf("%s/%s", s->out_dir, f->pov_path);
		tdir = xasprintf("%s/povs/%s", v->work, f->id);
		if (!fs_exists(bin)) {
			detail = xasprintf("harness %s is not in the patched "
					   "build", f->harness);
		} else if ((r = fs_remove_tree(tdir)) != 0 ||
			   (r = fs_mkdir_p(tdir)) != 0 ||
			   (r = reproduce_run_in(s, f->harness, pov, out,
						 tdir)) != 0) {
			if (r != CRS_EINTR) {
				detail = xasprintf("PoV of %s: %s", f->id,
						   crs_error_last());
				crs_error_clear();
				r = 0;
			}
		} else {
			reproduce_read_runs(&rv, tdir,
					    s->opts->reproduce_runs,
					    f->harness);
			checked++;
			buf_printf(&l, "finding %s (%s, %s): %s in %d/%d "
				   "run(s)\n", f->id, f->harness,
				   f->crash_type, rv.signature ?
				   "still crashes" : "no crash",
				   rv.reproduced, rv.attempts);
			if (rv.attempts == 0)
				detail = xasprintf("PoV of %s: no run "
						   "completed", f->id);
			else if (rv.signature) {
				detail = xasprintf("PoV of finding %s still "
					"crashes the patched build: %s "
					"(%d/%d runs)", f->id,
					rv.report && rv.report->crash_type ?
					rv.report->crash_type : "crash",
					rv.reproduced, rv.attempts);
				if (rv.log) {
					buf_adds(&l, "\n");
					buf_add(&l, rv.log, rv.log_len);
				}
			} else {
				strvec_push(fixed, f->id);
			}
		}
		repro_verdict_release(&rv);
		free(out);
		free(bin);
		free(pov);
		free(tdir);
		if (r)
			break;
	}
	if (r == 0 && !detail && checked == 0)
		detail = xstrdup("the run has no PoV to check the patch with");
	if (r == 0) {
		fs_write_file_atomic(log, l.ptr, l.len);
		crs_error_clear();
		if (!detail) {
			char *ok = xasprintf("%zu PoV(s) no longer crash",
					     checked);

			step(v, "povs", "passed", ok, log);
			free(ok);
		} else {
			step(v, "povs", "failed", detail, log);
			r = -1;
		}
	}
	buf_release(&l);
	free(detail);
	free(log);
	return r;
}

/* --- tests -------------------------------------------------------------- */

static double time_for(const struct scan *s, double want)
{
	double left = scan_remaining(s) - VALIDATE_STEP_MIN_S / 2;

	return left < want ? left : want;
}

static int run_tests(struct vpatch *v)
{
	struct scan *s = v->s;
	char *log = xasprintf("%s/tests.log", v->logdir);
	enum patch_tests_outcome o;
	int r, code = -1;

	r = patch_tree_run_tests(s, v->snapshot, v->patch_path, v->which,
				 s->compose->infra.cpuset,
				 s->compose->infra.memory_bytes,
				 time_for(s, VALIDATE_TESTS_S), log, &o, &code);
	if (r != 0)
		goto out;
	if (o == PATCH_TESTS_NONE) {
		step(v, "tests", "no tests", "the project has no "
		     "run_tests.sh or test.sh", log);
	} else if (o == PATCH_TESTS_PASSED) {
		step(v, "tests", "passed", NULL, log);
	} else {
		char *d = o == PATCH_TESTS_ERROR ?
			xasprintf("the tests did not finish: %s",
				  crs_error_last()) :
			xasprintf("the project's tests failed (exit %d)", code);

		step(v, "tests", "failed", d, log);
		free(d);
		r = -1;
	}
	crs_error_clear();
out:
	free(log);
	return r;
}

/* --- refuzz ------------------------------------------------------------- */

static const char refuzz_script[] =
	"h=\"$1\"; t=\"$2\"; rss=\"$3\"\n"
	"mkdir -p /tmp/corpus /tmp/art\n"
	"if [ -d /seeds ]; then cp -r /seeds/. /tmp/corpus/ 2>/dev/null; fi\n"
	"cp -r /povs/. /tmp/corpus/ 2>/dev/null\n"
	"if [ -f \"/out/${h}_seed_corpus.zip\" ]; then\n"
	"  unzip -o -q -j \"/out/${h}_seed_corpus.zip\" -d /tmp/corpus\n"
	"fi\n"
	"echo \"crs-ci: $(ls /tmp/corpus | wc -l) input(s), ${t}s\"\n"
	"exec \"/out/$h\" -max_total_time=\"$t\" -timeout=10 "
	"-rss_limit_mb=\"$rss\" -artifact_prefix=/tmp/art/ /tmp/corpus\n";

static int refuzz_one(struct vpatch *v, const char *h, int secs,
		      char **detail)
{
	struct scan *s = v->s;
	struct strvec binds = STRVEC_INIT, args = STRVEC_INIT;
	char *out = scan_work_path(s, "builds/%s/%s/out", s->state.sanitizer,
				   v->which);
	char *seeds = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/seeds",
				     s->state.run_id, h);
	char *povs = xasprintf("%s/refuzz/%s/povs", v->work, h);
	char *log = xasprintf("%s/refuzz/%s/fuzz.log", v->work, h);
	struct buf b = BUF_INIT;
	int r, code = -1;

	*detail = NULL;
	if ((r = fs_remove_tree(povs)) != 0 || (r = fs_mkdir_p(povs)) != 0)
		goto out;
	for (size_t i = 0; i < v->fs->nr; i++) {
		const struct finding *f = &v->fs->items[i];
		char *src, *dst;

		if (!pov_applies(f) || strcmp(f->harness, h))
			continue;
		src = xasprintf("%s/%s", s->out_dir, f->pov_path);
		dst = xasprintf("%s/pov-%s", povs, f->id);
		fs_copy_file(src, dst);
		crs_error_clear();
		free(src);
		free(dst);
	}
	strvec_pushf(&binds, "%s:/out:ro", out);
	strvec_pushf(&binds, "%s:/povs:ro", povs);
	if (fs_exists(seeds))
		strvec_pushf(&binds, "%s:/seeds:ro", seeds);
	strvec_push(&args, "refuzz");
	strvec_push(&args, h);
	strvec_pushf(&args, "%d", secs);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(&s->exec));
	log_info("validate: patch %s: fuzzing %s for %ds", v->sha12, h, secs);
	r = container_run_script(&s->exec, refuzz_script, strvec_list(&args),
				 strvec_list(&binds), secs + 60.0, log, &code);
	if (r == CRS_EINTR)
		goto out;
	if (r != 0) {
		*detail = xasprintf("%s: %s", h, crs_error_last());
		crs_error_clear();
		r = 0;
	} else if (code != 0) {
		struct crash_report *cr = NULL;

		if (fs_read_file(&b, log, REPRODUCE_LOG_MAX) == 0 &&
		    crash_report_parse(&cr, b.ptr, b.len) == 0)
			*detail = xasprintf("%s: new crash in %ds: %s", h,
					    secs, cr->crash_type ?
					    cr->crash_type : "crash");
		else
			*detail = xasprintf("%s: libFuzzer exited %d", h,
					    code);
		crs_error_clear();
		crash_report_free(cr);
	}
out:
	buf_release(&b);
	strvec_release(&binds);
	strvec_release(&args);
	free(out);
	free(seeds);
	free(povs);
	free(log);
	return r;
}

static int refuzz(struct vpatch *v)
{
	struct scan *s = v->s;
	struct strvec done = STRVEC_INIT;
	char *log = xasprintf("%s/refuzz.log", v->logdir);
	struct buf l = BUF_INIT;
	char *detail = NULL;
	int r = 0, skipped = 0;

	for (size_t i = 0; i < v->fs->nr && !detail && !r; i++) {
		const struct finding *f = &v->fs->items[i];
		const char *h = f->harness;
		char *hl;
		double left;
		size_t k;

		if (!pov_applies(f))
			continue;
		for (k = 0; k < done.nr && strcmp(done.v[k], h); k++)
			;
		if (k < done.nr)
			continue;
		strvec_push(&done, h);
		left = time_for(s, (double)s->opts->refuzz_s + 60.0) - 60.0;
		if (left < 5) {
			skipped = 1;
			break;
		}
		if ((r = refuzz_one(v, h, (int)left, &detail)) != 0)
			break;
		hl = xasprintf("%s/refuzz/%s/fuzz.log", v->work, h);
		buf_printf(&l, "== %s: %s\n", h, detail ? detail : "no crash");
		{
			struct buf fl = BUF_INIT;

			if (fs_read_file(&fl, hl, 1u << 20) == 0)
				buf_add(&l, fl.ptr, fl.len);
			crs_error_clear();
			buf_release(&fl);
		}
		free(hl);
	}
	if (r == 0) {
		fs_write_file_atomic(log, l.ptr, l.len);
		crs_error_clear();
		if (detail) {
			step(v, "refuzz", "failed", detail, log);
			r = -1;
		} else if (skipped) {
			step(v, "refuzz", "skipped", "deadline", NULL);
			r = -1;
		} else {
			char *ok = xasprintf("%zu harness(es) fuzzed for up to "
					     "%ds: no crash", done.nr,
					     (int)s->opts->refuzz_s);

			step(v, "refuzz", "passed", ok, log);
			free(ok);
		}
	}
	strvec_release(&done);
	buf_release(&l);
	free(detail);
	free(log);
	return r;
}

/* --- one patch ---------------------------------------------------------- */

static void skip_rest(struct vpatch *v, size_t from, const char *why)
{
	for (size_t i = from; finding_patch_step_names[i]; i++)
		step(v, finding_patch_step_names[i], "skipped", why, NULL);
}

/* Write the diff to its place in the output folder; sets p->path. */
static int write_patch_file(struct vpatch *v)
{
	struct scan *s = v->s;
	const char *rel_dir = v->p->validated ? "patches" : "patches/rejected";
	char *dir = xasprintf("%s/%s", s->out_dir, rel_dir);
	char *path = xasprintf("%s/%s.patch", dir, v->sha12);
	int r;

	if ((r = fs_mkdir_p(dir)) == 0 &&
	    (r = fs_write_file_atomic(path, v->p->diff,
				      strlen(v->p->diff))) == 0)
		v->p->path = xasprintf("%s/%s.patch", rel_dir, v->sha12);
	free(dir);
	free(path);
	return r;
}

static int validate_one(struct scan *s, struct finding_set *fs,
			const struct submitted *in, const char *head_src)
{
	struct vpatch v = { 0 };
	struct strvec fixed = STRVEC_INIT;
	size_t at = 0;
	int r = 0;

	v.s = s;
	v.fs = fs;
	v.p = finding_set_add_patch(fs);
	memcpy(v.sha12, in->sha, 12);
	v.p->sha256 = xstrdup(in->sha);
	v.p->crs = xstrdup(in->crs);
	v.p->harness = xstrdup(in->harness);
	v.which = xasprintf("patched-%s", v.sha12);
	v.work = scan_work_path(s, "validate/%s", v.sha12);
	v.logdir = xasprintf("%s/patches/logs/%s", s->out_dir, v.sha12);
	v.patch_path = xasprintf("%s/patch.diff", v.work);
	if ((r = fs_remove_tree(v.logdir)) != 0 ||
	    (r = fs_mkdir_p(v.logdir)) != 0 ||
	    (r = fs_remove_tree(v.work)) != 0 ||
	    (r = fs_mkdir_p(v.work)) != 0 ||
	    (r = fs_write_file_atomic(v.patch_path, in->text, in->len)) != 0)
		goto out;
	v.p->diff = xstrndup(in->text, in->len);
	log_info("validate: patch %s from %s (%s)", v.sha12, in->crs,
		 in->harness);
	if (strlen(v.p->diff) != in->len) {
		step(&v, "policy", "failed", "contains a NUL byte", NULL);
		at = 1;
		goto done;
	}
	at = 1;
	if (check_policy(&v, head_src) != 0)
		goto done;
	at = 2;
	if (scan_remaining(s) < VALIDATE_STEP_MIN_S)
		goto deadline;
	if (apply_patch(&v) != 0)
		goto done;
	at = 3;
	if (scan_remaining(s) < VALIDATE_STEP_MIN_S)
		goto deadline;
	if ((r = build_patched(&v)) != 0)
		goto done;
	at = 4;
	if (scan_remaining(s) < VALIDATE_STEP_MIN_S)
		goto deadline;
	if ((r = check_povs(&v, &fixed)) != 0)
		goto done;
	at = 5;
	if (scan_remaining(s) < VALIDATE_STEP_MIN_S)
		goto deadline;
	if ((r = run_tests(&v)) != 0)
		goto done;
	at = 6;
	if (scan_remaining(s) < VALIDATE_STEP_MIN_S)
		goto deadline;
	if ((r = refuzz(&v)) != 0)
		goto done;
	v.p->validated = 1;
	goto done;
deadline:
	skip_rest(&v, at - 1, "deadline");
done:
	if (r == -1 || (r == 0 && v.p->failed_step))
		skip_rest(&v, v.p->steps_nr, "an earlier step failed");
	if (r == -1)
		r = 0;		/* a failed step, recorded */
	if (r)
		goto out;
	if (v.p->validated) {
		v.p->fixes = xcalloc(fixed.nr + 1, sizeof(char *));
		for (size_t i = 0; i < fixed.nr; i++) {
			struct finding *f = finding_set_find(fs, fixed.v[i]);

			v.p->fixes[v.p->fixes_nr++] = xstrdup(fixed.v[i]);
			if (!f)
				continue;
			f->fixed_by = xrealloc(f->fixed_by, st_mult(
				f->fixed_by_nr + 1, sizeof(char *)));
			f->fixed_by[f->fixed_by_nr++] = xstrdup(in->sha);
		}
		log_info("validate: patch %s from %s is validated: fixes %zu "
			 "finding(s)", v.sha12, in->crs, fixed.nr);
	}
	r = write_patch_file(&v);
out:
	git_diff_free(v.diff);
	strvec_release(&fixed);
	free(v.which);
	free(v.work);
	free(v.logdir);
	free(v.patch_path);
	free(v.snapshot);
	return r;
}

int phase_validate(struct scan *s)
{
	struct submitted_list l = { 0 };
	struct finding_set fs;
	char *results = xasprintf("%s/results.json", s->out_dir);
	char *head_src = NULL;
	int r;

	timing_phase(s, "validate");
	finding_set_init(&fs);
	if (!s->state.run_id || !s->state.head_commit) {
		r = crs_error_set(CRS_ENOTFOUND, "no run in %s: run the run "
				  "phase first", s->work_dir);
		goto out;
	}
	if ((r = finding_set_load(&fs, results)) != 0)
		goto out;
	collect_patches(s, &l);
	if (!l.nr && !fs.patches_nr)
		goto out;
	log_info("validate: %zu distinct patch(es) submitted", l.nr);
	if ((r = target_source_dir(s, s->state.head_commit, &head_src)) != 0)
		goto out;
	finding_set_clear_patches(&fs);	/* an earlier validation's */
	for (size_t i = 0; i < l.nr && r == 0; i++) {
		char name[13];
		int span;

		snprintf(name, sizeof(name), "%.12s", l.items[i].sha);
		span = timing_begin(s, "validate", name);
		r = validate_one(s, &fs, &l.items[i], head_src);
		timing_end(s, span);
		if (r == 0 && scan_interrupted(s))
			r = crs_error_set(CRS_EINTR, "interrupted");
	}
	timings_into(s, &fs);
	if (r == 0)
		r = finding_set_save(&fs, results);
out:
	for (size_t i = 0; i < l.nr; i++) {
		free(l.items[i].text);
		free(l.items[i].crs);
		free(l.items[i].harness);
	}
	free(l.items);
	finding_set_release(&fs);
	free(head_src);
	free(results);
	return r;
}
