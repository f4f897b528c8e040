/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triage_finding.c - a finding made from a PoV's reproductions
 *
 * Shared by triage (every PoV, after the run) and the early triage of
 * the first PoV during the run (early_jobs.c), so both build the same
 * finding: location, crash type, novelty against the base build.
 */
#include "runner/phase/triage_finding.h"
#include "runner/phase/phase.h"
#include "runner/exec/reproduce.h"
#include "runner/exec/reproduce_pov.h"
#include "runner/exec/source_index.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "diff/changeset.h"
#include "sarif/bug_key.h"
#include "sarif/crash.h"
#include "sarif/finding.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The frame file relative to the repo, or NULL when outside it. */
static char *repo_relative(const char *file, const char *repo_path)
{
	size_t n = strlen(repo_path);

	if (!file || strncmp(file, repo_path, n) || file[n] != '/')
		return NULL;
	return xstrdup(file + n + 1);
}

/*
 * A JVM frame's file in the head tree: its package path as the suffix of
 * exactly one .java file there (the index is built on the first such
 * frame). NULL when it is no JVM frame or no one file matches.
 */
static char *java_frame_file(const struct scan *s,
			     const struct crash_frame *cf,
			     struct source_index *idx, int *indexed)
{
	char *guess = crash_frame_java_path(cf), *src;
	const char *found = NULL;

	if (!guess)
		return NULL;
	if (!*indexed) {
		*indexed = 1;
		src = scan_work_path(s, "source/%s/src",
				     s->state.head_commit);
		if (source_index_build(idx, src, ".java") != 0)
			crs_error_clear();	/* no index: frames as printed */
		free(src);
	}
	found = source_index_find(idx, guess);
	free(guess);
	return found ? xstrdup(found) : NULL;
}

static void fill_location(struct finding *f, const struct crash_report *cr,
			  const struct scan *s, int on_head)
{
	const char *root = s->state.repo_path;
	char *prefix = xasprintf("%s/", root);
	struct source_index java = SOURCE_INDEX_INIT;
	int java_indexed = 0;

	f->stack = xcalloc(cr->frames_nr ? cr->frames_nr : 1,
			   sizeof(*f->stack));
	for (size_t i = 0; i < cr->frames_nr; i++) {
		const struct crash_frame *cf = &cr->frames[i];
		struct finding_frame *ff = &f->stack[f->stack_nr++];
		char *rel = crash_frame_in_project(cf, prefix) ?
			repo_relative(cf->file, root) : NULL;

		if (!rel && on_head && s->state.head_commit)
			rel = java_frame_file(s, cf, &java, &java_indexed);

		ff->func = cf->func ? xstrdup(cf->func) : NULL;
		ff->line = cf->line;
		ff->column = cf->column;
		ff->in_project = rel != NULL;
		ff->file = rel ? rel : (cf->file ? xstrdup(cf->file) : NULL);
		ff->in_change = on_head && rel &&
			diff_changeset_touches(s->change, rel, cf->line);
		if (rel && !f->file) {
			f->file = xstrdup(rel);
			f->line = cf->line;
			f->column = cf->column;
			f->function = cf->func ? xstrdup(cf->func) : NULL;
			f->in_change = ff->in_change;
		}
	}
	source_index_release(&java);
	free(prefix);
}

/*
 * Tell from the base build's runs (in `bdir`, when `on_base`) whether the
 * change brought the bug: "new" (base does not crash, or has no such
 * harness), "pre-existing" (same signature on base), "changed" (base
 * crashes differently), or NULL when there is no base build to ask.
 */
void triage_novelty(struct scan *s, const struct pov *p, const char *bdir,
		    int on_base, const char *head_sig, char **out, int quiet)
{
	struct repro_verdict v = { 0 };

	*out = NULL;
	if (!s->state.base_image)
		return;
	if (!on_base) {
		*out = xstrdup("new");	/* the harness itself is new */
		return;
	}
	reproduce_read_runs(&v, bdir, s->opts->reproduce_runs,
			    p->harness);
	if (!v.signature)
		*out = xstrdup("new");
	else if (!strcmp(v.signature, head_sig))
		*out = xstrdup("pre-existing");
	else
		*out = xstrdup("changed");
	if (!quiet)
		log_info("triage: PoV %.12s on base %.12s: %s", p->sha,
			 s->state.base_commit, *out);
	repro_verdict_release(&v);
}

static const char *kind_of(const struct crash_report *cr)
{
	return cr->kind ? cr->kind : "crash";
}

/* A finding from a verdict, nothing written; `on_head` says whose lines
 * its stack names. */
static struct finding *fill_finding(struct scan *s, struct finding_set *fs,
				    const struct pov *p,
				    const struct repro_verdict *v,
				    const char *id, int on_head)
{
	struct finding *f = finding_set_add(fs);

	f->id = xstrdup(id);
	f->signature = xstrdup(v->signature);
	f->crash_type = xstrdup(v->report->crash_type ? v->report->crash_type :
				kind_of(v->report));
	f->kind = xstrdup(kind_of(v->report));
	f->sanitizer = xstrdup(s->state.sanitizer);
	f->description = v->report->description ?
		xstrdup(v->report->description) : NULL;
	f->harness = xstrdup(p->harness);
	f->is_security = v->report->is_security;
	fill_location(f, v->report, s, on_head);
	f->pov_path = xasprintf("povs/%s", p->sha);
	f->pov_sha256 = xstrdup(p->sha);
	finding_add_pov(f, p->harness, f->pov_path, p->sha);
	f->reproduced = v->reproduced;
	f->attempts = v->attempts;
	f->found_by = p->crs ? xstrdup(p->crs) : NULL;
	return f;
}

/* fill_finding's, with its sanitizer report under <out>/reports/. */
struct finding *triage_add_finding(struct scan *s, struct finding_set *fs,
				   const struct pov *p,
				   const struct repro_verdict *v,
				   const char *id, int on_head,
				   time_t run_start)
{
	struct finding *f = fill_finding(s, fs, p, v, id, on_head);
	char *rdir = xasprintf("%s/reports", s->out_dir);
	char *rp = xasprintf("%s/%s.txt", rdir, id);

	f->found_after_s = p->user ? -1 : (p->mtime - (double)run_start);
	if (fs_mkdir_p(rdir) == 0 &&
	    fs_write_file_atomic(rp, v->log, v->log_len) == 0)
		f->report_path = xasprintf("reports/%s.txt", id);
	crs_error_clear();
	free(rdir);
	free(rp);
	return f;
}

void phase_triage_preview(struct scan *s, const char *harness,
			  const char *sha, const char *crs, int on_base,
			  struct finding_set *fs)
{
	char *hdir = reproduce_pov_dir(s, harness, sha, "head");
	char *bdir = reproduce_pov_dir(s, harness, sha, "base");
	struct pov p = { .crs = (char *)crs, .harness = (char *)harness };
	struct repro_verdict v = { 0 };
	struct finding *f;
	char id[17];

	snprintf(p.sha, sizeof(p.sha), "%s", sha);
	reproduce_read_runs(&v, hdir, s->opts->reproduce_runs, harness);
	if (v.signature && v.report) {
		crash_signature_id(id, v.signature);
		f = fill_finding(s, fs, &p, &v, id, 1);
		triage_novelty(s, &p, bdir, on_base, v.signature, &f->novelty,
			       0);
	}
	repro_verdict_release(&v);
	free(hdir);
	free(bdir);
}
