/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terminal.c - verdict for a terminal or a CI log
 *
 * Every string that came from a container (function names, file paths,
 * crash descriptions) goes through log_quote() first, so a hostile
 * harness cannot put escape sequences or workflow commands ("::", "##[")
 * in a log.
 */
#include "runner/report/terminal.h"
#include "runner/report/html.h"
#include "runner/report/disclose.h"
#include "runner/report/pov_preview.h"
#include "runner/report/timing_summary.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "sarif/run_corpus.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define TERMINAL_POV_BYTES 32	/* a PoV's bytes the verdict shows */

static const char *q(char *buf, size_t n, const char *s)
{
	if (!s)
		return "?";
	return log_quote(buf, n, s, strlen(s));
}

/* A name in a timings line, as log lines quote it. */
static void term_escape(struct buf *b, const char *s)
{
	char tmp[512];

	buf_adds(b, q(tmp, sizeof(tmp), s));
}

/* "fuzzing executed N of M changed lines; ...", quoted: paths are the
 * change's. Nothing in full mode. */
static void terminal_change_cov(FILE *f, const struct finding_set *fs)
{
	struct buf b = BUF_INIT;
	char *qb;

	if (!fs->change_coverage)
		return;
	change_cov_line(&b, fs->change_coverage);
	qb = xmalloc(st_add(st_mult(b.len, 4), 1));
	fprintf(f, "  %s\n", log_quote(qb, b.len * 4 + 1, b.ptr, b.len));
	free(qb);
	buf_release(&b);
}

/* Validated patches first, then the others with the step that failed. */
static void terminal_patches(FILE *f, const struct finding_set *fs,
			     const char *out_dir)
{
	size_t ok = 0;

	if (!fs->patches_nr)
		return;
	for (size_t i = 0; i < fs->patches_nr; i++)
		ok += fs->patches[i].validated != 0;
	fprintf(f, "patches: %zu submitted, %zu validated by crs-ci "
		"(policy, apply, build, every PoV, tests, re-fuzz)\n",
		fs->patches_nr, ok);
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];
		const char *tests = "?";
		char a[512], b[512];

		if (!p->validated)
			continue;
		for (size_t k = 0; k < p->steps_nr; k++)
			if (!strcmp(p->steps[k].name, "tests"))
				tests = p->steps[k].verdict;
		fprintf(f, "  [validated] %s/%s from %s fixes",
			out_dir, q(a, sizeof(a), p->path),
			q(b, sizeof(b), p->crs));
		for (size_t k = 0; k < p->fixes_nr; k++)
			fprintf(f, " %s", q(a, sizeof(a), p->fixes[k]));
		fprintf(f, " (tests: %s)\n", tests);
	}
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];
		const char *detail = NULL, *step = p->failed_step;
		char a[512], b[512], c[512];

		if (p->validated)
			continue;
		for (size_t k = 0; k < p->steps_nr; k++) {
			const struct finding_patch_step *st = &p->steps[k];

			if ((step && !strcmp(st->name, step)) ||
			    (!step && !strcmp(st->verdict, "skipped"))) {
				step = st->name;
				detail = st->detail;
				break;
			}
		}
		fprintf(f, "  [rejected] %.12s from %s: %s %s: %s\n",
			p->sha256 ? p->sha256 : "?", q(a, sizeof(a), p->crs),
			step ? q(b, sizeof(b), step) : "?",
			p->failed_step ? "failed" : "skipped",
			q(c, sizeof(c), detail));
	}
}

/* --sarif candidates: each confirmed one, and how many were not. */
static void terminal_candidates(FILE *f, const struct finding_set *fs,
				const char *out_dir)
{
	size_t unconfirmed = 0;

	if (!fs->candidates_nr)
		return;
	for (size_t i = 0; i < fs->candidates_nr; i++) {
		const struct finding_candidate *k = &fs->candidates[i];
		char a[512], b[512], c[512], d[512], e[512];

		if (!k->status || strcmp(k->status, "confirmed")) {
			unconfirmed++;
			continue;
		}
		fprintf(f, "  [confirmed] %s#%zu %s at %s:%d by finding %s, "
			"PoV %s/%s\n", q(a, sizeof(a), k->source), k->index,
			k->rule_id ? q(b, sizeof(b), k->rule_id) : "(no rule)",
			q(c, sizeof(c), k->file), k->start_line,
			q(d, sizeof(d), k->finding_id), out_dir,
			q(e, sizeof(e), k->pov_path));
	}
	fprintf(f, "  SARIF candidates: %zu confirmed, %zu unconfirmed (no "
		"PoV passes their location)\n",
		fs->candidates_nr - unconfirmed, unconfirmed);
}

/* The first bytes of the finding's PoV, two hex dump lines. */
static void terminal_pov_bytes(FILE *f, const struct finding *x,
			       const char *out_dir)
{
	struct buf dump = BUF_INIT;
	size_t size = 0;

	if (x->pov_path && pov_preview(&dump, out_dir, x->pov_path,
				       TERMINAL_POV_BYTES, "        ",
				       &size) == 0 && dump.len)
		fprintf(f, "      PoV's first bytes (%zu in all):\n%s", size,
			dump.ptr);
	buf_release(&dump);
}

void terminal_finding(FILE *f, const struct finding *x,
		      const struct scan_summary *sm, const char *out_dir)
{
	char a[512], b[512], c[512], *cmd;
	const char *label = x->novelty ? x->novelty :
		(x->in_change ? "in-change" : "unknown");

	fprintf(f, "  [%s] %s in %s at %s:%d%s\n", label,
		q(a, sizeof(a), x->crash_type),
		q(b, sizeof(b), x->function), q(c, sizeof(c), x->file),
		x->line, x->in_change ? " (a line this change added)" : "");
	fprintf(f, "      harness %s, reproduced %d/%d%s, found by %s",
		q(a, sizeof(a), x->harness), x->reproduced, x->attempts,
		x->reproduced < x->attempts ? " (flaky: a warning, not "
		"a failure)" : "", q(b, sizeof(b), x->found_by));
	if (x->found_after_s >= 0)
		fprintf(f, " after %.0fs", x->found_after_s);
	fputc('\n', f);
	if (x->anchor)	/* where the diff shows it, and why */
		fprintf(f, "      change anchor %s:%d: %s\n",
			q(a, sizeof(a), x->anchor->file), x->anchor->line,
			change_anchor_how_text(x->anchor));
	if (x->suppressed)
		fprintf(f, "      suppressed by --%s no: fails no "
			"policy, not in the SARIF\n", x->suppressed);
	fprintf(f, "      PoV %s/%s\n", out_dir,
		q(a, sizeof(a), x->pov_path));
	terminal_pov_bytes(f, x, out_dir);
	if (x->harnesses_nr > 1) {
		fprintf(f, "      one bug reached by %zu harnesses:",
			x->harnesses_nr);
		for (size_t k = 0; k < x->harnesses_nr; k++)
			fprintf(f, "%s %s", k ? "," : "",
				q(a, sizeof(a), x->harnesses[k]));
		fprintf(f, " (%zu PoV(s))\n", x->povs_nr);
	}
	if (x->novelty && !strcmp(x->novelty, "fixed-by-change"))
		fprintf(f, "      it crashes the base build, not the "
			"head: fixed by this change\n");
	else if ((cmd = pov_reproduce_cmd(sm, x, out_dir))) {
		char line[2048];

		fprintf(f, "      reproduce: %s\n", q(line, sizeof(line), cmd));
		free(cmd);
	}
}

/*
 * The harnesses fuzzed short: those --after-finding cut after the proof
 * of a failing finding on one line (the policy working), the others one
 * [incomplete] line each.
 */
static void terminal_incomplete(FILE *f, const struct finding_set *fs,
				size_t failing)
{
	const struct scan_summary *sm = &fs->summary;
	struct buf cut = BUF_INIT;

	for (size_t i = 0; i < sm->incomplete_nr; i++) {
		const struct finding_incomplete *e = &sm->incomplete[i];
		char a[256], b[512];

		if (failing && run_cut_is_reason(e->reason)) {
			buf_printf(&cut, "%s%s (%.0fs of %.0fs)",
				   cut.len ? ", " : "",
				   q(a, sizeof(a), e->harness), e->fuzzed_s,
				   e->wanted_s);
			continue;
		}
		fprintf(f, "  [incomplete] harness %s fuzzed %.0fs of %.0fs: "
			"%s\n", q(a, sizeof(a), e->harness), e->fuzzed_s,
			e->wanted_s, q(b, sizeof(b), e->reason));
	}
	if (cut.len)
		fprintf(f, "  fuzzed short after the proof, as --after-finding "
			"intends: %s\n", cut.ptr);
	buf_release(&cut);
}

/* The edits the scan did not read: the checkout's, not committed. */
static void terminal_uncommitted(FILE *f, const struct scan_summary *sm)
{
	if (!sm->uncommitted_total)
		return;
	fprintf(f, "  NOT SCANNED: %zu uncommitted file(s) in the checkout "
		"(", sm->uncommitted_total);
	for (size_t i = 0; i < sm->uncommitted_nr && i < 3; i++) {
		char a[256];

		fprintf(f, "%s%s", i ? ", " : "",
			q(a, sizeof(a), sm->uncommitted[i]));
	}
	fprintf(f, "%s): the scan read the commits up to HEAD; commit them "
		"and scan again\n", sm->uncommitted_total > 3 ? ", ..." : "");
}

size_t terminal_report(FILE *f, const struct finding_set *fs,
		       const char *out_dir)
{
	const struct scan_summary *sm = &fs->summary;
	const char *policy = sm->fail_on ? sm->fail_on : "new";
	char pq[256], polq[64];
	size_t failing = 0;
	enum finding_verdict v = finding_set_verdict(fs, policy, &failing);
	fprintf(f, "crs-ci: %s: %zu finding(s), %zu failing --fail-on %s "
		"(%zu PoV(s) submitted, %zu not reproduced, %.0fs)\n",
		q(pq, sizeof(pq), sm->project ? sm->project : "scan"), fs->nr,
		failing, q(polq, sizeof(polq), policy),
		sm->povs_submitted, sm->povs_not_reproduced, sm->duration_s);
	if (sm->private_findings) {
		struct buf line = BUF_INIT;

		disclose_public_line(&line, sm->private_findings);
		fprintf(f, "  %s\n", line.ptr);
		buf_release(&line);
	}
	if (sm->crs_povs && sm->crs_first_pov_s && sm->crs_nr) {
		fprintf(f, "  PoVs per CRS:");
		for (size_t i = 0; i < sm->crs_nr; i++) {
			char a[256];

			fprintf(f, "%s %s %zu", i ? "," : "",
				q(a, sizeof(a), sm->crs[i]), sm->crs_povs[i]);
			if (sm->crs_first_pov_s[i] >= 0)
				fprintf(f, " (first after %.1fs)",
					sm->crs_first_pov_s[i]);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < fs->nr; i++)
		terminal_finding(f, &fs->items[i], sm, out_dir);
	terminal_candidates(f, fs, out_dir);
	terminal_patches(f, fs, out_dir);
	terminal_incomplete(f, fs, failing);
	terminal_change_cov(f, fs);
	{
		struct buf t = BUF_INIT;

		timing_summary(&t, fs->timings, "  ", term_escape);
		if (t.len)
			fputs(t.ptr, f);
		buf_release(&t);
	}
	fprintf(f, "verdict: %s\n", finding_verdict_name(v));
	{
		struct buf t = BUF_INIT;

		run_cut_line(&t, fs->run_cut);
		if (t.len)
			fprintf(f, "  %s\n", t.ptr);
		buf_reset(&t);
		run_saturation_line(&t, fs->saturation);
		if (t.len)
			fprintf(f, "  %s\n", t.ptr);
		buf_reset(&t);
		run_corpus_line(&t, fs->corpus);
		if (t.len)
			fprintf(f, "  %s\n", t.ptr);
		buf_release(&t);
	}
	terminal_uncommitted(f, sm);
	if (v == VERDICT_INCOMPLETE)
		fprintf(f, "  no finding fails --fail-on %s, but %zu selected "
			"harness(es) got less fuzzing than they were due: not "
			"a clean pass\n", q(polq, sizeof(polq), policy),
			sm->incomplete_nr);
	/* where to look next (issue 43, item 3) */
	if (out_dir)
		fprintf(f, "  report: %s/%s\n", out_dir, HTML_REPORT_NAME);
	return failing;
}
