/* SPDX-License-Identifier: Apache-2.0 */
/*
 * github_job.c - what a GitHub Actions run shows: annotations, the
 * echoed sanitizer reports, the job summary and the step outputs
 *
 * Every string from a scan is untrusted (it came out of a container): it
 * is escaped for the workflow-command parser, for Markdown, or echoed
 * only between ::stop-commands:: and a random token.
 */
#include "runner/report/github.h"
#include "runner/report/pov_preview.h"
#include "runner/report/disclose.h"
#include "runner/report/change_lines.h"
#include "runner/report/timing_summary.h"
#include "runner/report/markdown.h"
#include "runner/http/http.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/finding.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "sarif/run_corpus.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define GITHUB_REPORT_ECHO_MAX ((size_t)64 << 10)
#define GITHUB_SUMMARY_ROWS_MAX 200

/* --- escaping ------------------------------------------------------------- */

#define SUMMARY_PROOFS_MAX 3	/* proofs at the top of the summary */

static void escape_cmd(struct buf *b, const char *s, int property)
{
	size_t len = s ? strlen(s) : 0;

	/* controls (ANSI escapes) and runner commands are shown, not run:
	 * the runner leaves unknown %XX as they are */
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' || s[i] == '\r' || s[i] == '\n' ||
		    (property && (s[i] == ':' || s[i] == ',')) ||
		    (s[i] != '\t' && log_must_escape(s, len, i)))
			buf_printf(b, "%%%02X", (unsigned char)s[i]);
		else
			buf_addch(b, s[i]);
	}
}

void github_escape_data(struct buf *b, const char *s)
{
	escape_cmd(b, s, 0);
}

CRS_TESTABLE void github_escape_property(struct buf *b, const char *s)
{
	escape_cmd(b, s, 1);
}

void github_escape_markdown(struct buf *b, const char *s)
{
	md_escape(b, s);
}

/*
 * A fresh random token of 32 hex digits (for ::stop-commands:: and
 * output delimiters) in out[33]. Cannot fail (aborts if the kernel has
 * no randomness).
 */
static void github_random_token(char out[33])
{
	unsigned char r[16];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();	/* no randomness: never emit a
					 * guessable token */
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* --- annotations ---------------------------------------------------------- */

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static const char *policy_of(const struct finding_set *fs)
{
	return fs->summary.fail_on ? fs->summary.fail_on : "new";
}

static int is_fixed(const struct finding *x)
{
	return x->novelty && !strcmp(x->novelty, "fixed-by-change");
}

static void annotation(struct buf *b, const char *kind,
		       const struct finding *x, const char *out_dir)
{
	struct buf t = BUF_INIT;
	int line, moved;
	const char *file = change_anchor_place(x, &line, &moved);

	/* on the change anchor: GitHub shows it on the diff only there */
	buf_printf(b, "::%s ", kind);
	if (file && *file) {
		buf_adds(b, "file=");
		github_escape_property(b, file);
		if (line > 0)
			buf_printf(b, ",line=%d", line);
		if (!moved && line > 0 && x->column > 0)
			buf_printf(b, ",col=%d", x->column);
		buf_addch(b, ',');
	}
	buf_printf(&t, "crs-ci: %s (%s)", or_unknown(x->crash_type),
		   x->novelty ? x->novelty : "novelty unknown");
	buf_adds(b, "title=");
	github_escape_property(b, t.ptr);
	buf_adds(b, "::");
	buf_reset(&t);
	if (moved) {
		change_anchor_lead_text(&t, x, 1);
		buf_adds(&t, ".\n");
	}
	buf_printf(&t, "%s in %s, reproduced %d/%d on the head build, "
		   "harness %s, found by %s.", or_unknown(x->crash_type),
		   or_unknown(x->function), x->reproduced, x->attempts,
		   or_unknown(x->harness), or_unknown(x->found_by));
	if (x->description && *x->description)
		buf_printf(&t, "\n%s", x->description);
	if (x->pov_path)
		buf_printf(&t, "\nPoV: %s/%s", out_dir, x->pov_path);
	if (is_fixed(x))
		buf_adds(&t, "\nIt crashes the base build, not the head: "
			 "fixed by this change.");
	github_escape_data(b, t.ptr);
	buf_addch(b, '\n');
	buf_release(&t);
}

size_t github_annotations(FILE *f, const struct finding_set *fs,
			  const char *out_dir)
{
	const char *policy = policy_of(fs);
	size_t errors = 0, warnings = 0, notices = 0, dropped = 0;
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *x = &fs->items[i];
		const char *kind;
		size_t *count;

		if (x->suppressed)	/* --report-timeouts/ooms no */
			continue;
		if (fs->run_cut && fs->run_cut->announced &&
		    fs->run_cut->finding && x->id &&
		    !strcmp(fs->run_cut->finding, x->id))
			continue;	/* printed when it was proved */
		if (is_fixed(x)) {
			kind = "notice";
			count = &notices;
		} else if (finding_fails_policy(x, policy)) {
			kind = "error";
			count = &errors;
		} else {
			kind = "warning";
			count = &warnings;
		}
		/* room is kept for github_report()'s own notices and
		 * warning: see GITHUB_ANNOTATIONS_* */
		if (*count >= (count == &errors ? GITHUB_ANNOTATIONS_ERRORS :
			       count == &warnings ? GITHUB_ANNOTATIONS_WARNINGS :
			       GITHUB_ANNOTATIONS_NOTICES)) {
			dropped++;
			continue;
		}
		(*count)++;
		annotation(&b, kind, x, out_dir);
	}
	if (dropped)
		buf_printf(&b, "::notice title=crs-ci::%zu more finding(s) "
			   "not annotated (GitHub shows at most %d errors "
			   "and %d warnings per step); see the job summary "
			   "and results.sarif\n", dropped,
			   GITHUB_ANNOTATIONS_MAX, GITHUB_ANNOTATIONS_MAX);
	fwrite(b.ptr, 1, b.len, f);
	buf_release(&b);
	return dropped;
}

/*
 * A report's lines as the log shows them: no ANSI escape or other
 * control, no runner command (log_must_escape() per line), tabs kept.
 */
static void echo_escape(struct buf *b, const char *s, size_t len)
{
	while (len) {
		const char *nl = memchr(s, '\n', len);
		size_t n = nl ? (size_t)(nl - s) : len;

		for (size_t k = 0; k < n; k++) {
			if (s[k] != '\t' && log_must_escape(s, n, k))
				buf_printf(b, "\\x%02x", (unsigned char)s[k]);
			else
				buf_addch(b, s[k]);
		}
		if (nl)
			buf_addch(b, '\n');
		s += n + !!nl;
		len -= n + !!nl;
	}
}

int github_echo_reports(FILE *f, const struct finding_set *fs,
			const char *out_dir, size_t max_reports)
{
	size_t shown = 0;

	for (size_t i = 0; i < fs->nr && shown < max_reports; i++) {
		const struct finding *x = &fs->items[i];
		struct buf text = BUF_INIT, title = BUF_INIT, esc = BUF_INIT;
		char token[33];
		char *path;
		int r, truncated;

		if (!safe_relpath_ok(x->report_path))
			continue;
		path = xasprintf("%s/%s", out_dir, x->report_path);
		r = fs_read_file(&text, path, SIZE_MAX);
		free(path);
		if (r) {
			crs_error_clear();
			buf_release(&text);
			continue;
		}
		truncated = text.len > GITHUB_REPORT_ECHO_MAX;
		if (truncated) {
			text.len = GITHUB_REPORT_ECHO_MAX;
			text.ptr[text.len] = '\0';
		}
		echo_escape(&esc, text.ptr, text.len);
		buf_release(&text);
		text = esc;
		buf_init(&esc);
		do	/* a token inside the text would end the guard */
			github_random_token(token);
		while (memmem(text.ptr, text.len, token, strlen(token)));
		buf_printf(&title, "crs-ci: sanitizer report of %s (%s)",
			   or_unknown(x->id), or_unknown(x->crash_type));
		buf_reset(&esc);
		github_escape_data(&esc, title.ptr);
		fprintf(f, "::group::%s\n::stop-commands::%s\n", esc.ptr,
			token);
		fwrite(text.ptr, 1, text.len, f);
		if (text.len && text.ptr[text.len - 1] != '\n')
			fputc('\n', f);
		if (truncated)
			fputs("[report truncated]\n", f);
		fprintf(f, "::%s::\n::endgroup::\n", token);
		buf_release(&text);
		buf_release(&title);
		buf_release(&esc);
		shown++;
	}
	if (fflush(f) || ferror(f))
		return crs_error_set(CRS_ERR, "cannot write the workflow "
				     "log: %s", strerror(errno));
	return 0;
}

/* --- job summary ---------------------------------------------------------- */

static void md(struct buf *b, const char *s)
{
	github_escape_markdown(b, s ? s : "unknown");
}

/* A code span whose fence is longer than any backtick run in `s`. */
static void md_code(struct buf *b, const char *s)
{
	size_t run = 0, max = 0;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > max)
			max = run;
	}
	/* HTML inside a code span is shown as text; only | and newlines
	 * could break a table row */
	for (size_t i = 0; i <= max; i++)
		buf_addch(b, '`');
	buf_addch(b, ' ');
	for (size_t i = 0, n = strlen(s); i < n; i++) {
		if (s[i] == '|')
			buf_adds(b, "\\|");
		else if (s[i] == '\n' || s[i] == '\r')
			buf_addch(b, ' ');
		else if (log_must_escape(s, n, i))
			buf_printf(b, "\\x%02x", (unsigned char)s[i]);
		else
			buf_addch(b, s[i]);
	}
	buf_addch(b, ' ');
	for (size_t i = 0; i <= max; i++)
		buf_addch(b, '`');
}

static void summary_row(struct buf *b, const struct finding *x,
			const char *policy, const char *out_dir)
{
	buf_adds(b, "| ");
	md(b, x->novelty ? x->novelty : (x->in_change ? "in change" :
					   "unknown"));
	buf_adds(b, finding_fails_policy(x, policy) ? " (fails)" : "");
	buf_adds(b, " | ");
	md(b, x->crash_type);
	buf_adds(b, " in ");
	md(b, x->function);
	buf_adds(b, " | ");
	if (change_anchor_moved(x->anchor)) {
		/* the changed line first: the one the diff shows */
		md(b, x->anchor->file);
		buf_printf(b, "\\:%d (changed line the PoV ran), crash at ",
			   x->anchor->line);
	}
	if (x->file) {
		md(b, x->file);
		if (x->line > 0)
			buf_printf(b, "\\:%d", x->line);
	} else {
		buf_adds(b, "outside the project");
	}
	buf_printf(b, " | %d/%d%s | ", x->reproduced, x->attempts,
		   x->reproduced < x->attempts ? " (flaky)" : "");
	md(b, x->found_by);
	if (x->found_after_s >= 0)
		buf_printf(b, " after %.0fs", x->found_after_s);
	buf_adds(b, " | ");
	md(b, x->harness);
	buf_adds(b, " | ");
	if (x->pov_path) {
		char *p = xasprintf("%s/%s", out_dir, x->pov_path);

		md_code(b, p);
		free(p);
	} else {
		buf_adds(b, "none");
	}
	buf_adds(b, " |\n");
}

/*
 * The changed lines around each of the first `rows` findings' moved
 * change anchors, with the crash line (change-lines.json's excerpts);
 * not again for the findings whose proof leads the summary.
 */
static void summary_anchor_lines(struct buf *b, const struct finding_set *fs,
				 size_t rows, const char *out_dir)
{
	json_t *all = change_lines_load(out_dir);
	const char *policy = policy_of(fs);
	size_t proved = 0;
	int head = 0;

	for (size_t i = 0; all && i < rows && b->len < GITHUB_SUMMARY_MAX / 2;
	     i++) {
		const struct finding *x = &fs->items[i];
		/* borrowed: the anchor's excerpt, then the crash's if apart */
		const json_t *a = json_object_get(all, x->id ? x->id : "");

		/* summary_proofs showed it at the top */
		if (finding_fails_policy(x, policy) &&
		    proved++ < SUMMARY_PROOFS_MAX)
			continue;

		for (size_t k = 0; k < 2 && change_anchor_moved(x->anchor);
		     k++) {
			const json_t *e = json_array_get(a, k);
			const char *role = json_string_value(
				json_object_get(e, "role"));

			if (!role || strcmp(role, k ? "crash" : "anchor"))
				break;
			if (!head++)
				buf_adds(b, "**Changed lines that led to the "
					 "crash** ('*' the changed line the PoV "
					 "ran, '>' the crash, '+' other changed "
					 "lines):\n\n");
			md_excerpt(b, e);
		}
	}
	json_decref(all);
}

/*
 * The name the action uploads this job's output under (CRS_CI_ARTIFACT_
 * NAME, set by actions/action.yml: crs-ci-CATEGORY, -SANITIZER or
 * -results, one per matrix job); crs-ci-results when unset or not a name
 * the action writes.
 */
static const char *artifact_name(void)
{
	const char *n = getenv("CRS_CI_ARTIFACT_NAME");

	if (!n || strncmp(n, "crs-ci-", 7) || strlen(n) > 100 ||
	    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789._-") != strlen(n))
		return "crs-ci-results";
	return n;
}

/*
 * The proof of each of the first SUMMARY_PROOFS_MAX failing findings, at
 * the top of the summary: the crash, its first changed-lines excerpt, the
 * PoV's first bytes and the one command that reproduces it.
 */
static void summary_proofs(struct buf *b, const struct finding_set *fs,
			   const char *policy, const char *out_dir)
{
	json_t *all = change_lines_load(out_dir);
	size_t shown = 0;

	for (size_t i = 0; i < fs->nr && shown < SUMMARY_PROOFS_MAX &&
	     b->len < GITHUB_SUMMARY_MAX / 4; i++) {
		const struct finding *x = &fs->items[i];
		/* borrowed */
		const json_t *a = json_object_get(all, x->id ? x->id : "");
		const json_t *e = json_array_get(a, 0), *e1;
		const char *role = json_string_value(json_object_get(e,
								     "role"));
		struct buf dump = BUF_INIT;
		size_t size = 0;
		char *cmd;

		if (!finding_fails_policy(x, policy))
			continue;
		shown++;
		buf_adds(b, "### [");
		md(b, x->novelty ? x->novelty : "unknown");
		buf_adds(b, "] ");
		md(b, x->crash_type);
		buf_adds(b, " in ");
		md(b, x->function);
		if (x->file) {
			buf_adds(b, " at ");
			md(b, x->file);
			if (x->line > 0)
				buf_printf(b, "\\:%d", x->line);
		}
		buf_adds(b, "\n\n");
		if (e)
			md_excerpt(b, e);
		/* a changed line the PoV ran, apart from the crash: the crash
		 * too */
		e1 = json_array_get(a, 1);
		if (role && !strcmp(role, "anchor") && e1 &&
		    (role = json_string_value(json_object_get(e1, "role"))) &&
		    !strcmp(role, "crash"))
			md_excerpt(b, e1);
		if (x->pov_path && pov_preview(&dump, out_dir, x->pov_path,
					       POV_PREVIEW_BYTES, "",
					       &size) == 0) {
			buf_printf(b, "**The PoV** (%zu byte(s)%s):\n\n", size,
				   size > POV_PREVIEW_BYTES ? ", the first "
				   "shown" : "");
			md_code_block(b, NULL, dump.ptr);
			buf_addch(b, '\n');
		}
		buf_release(&dump);
		if ((cmd = pov_reproduce_cmd(&fs->summary, x, out_dir))) {
			buf_adds(b, "**Reproduce:** ");
			md_code(b, cmd);
			buf_adds(b, "\n\n");
			free(cmd);
		}
	}
	if (shown) {	/* the paths above are the runner's */
		buf_adds(b, "**On your machine:** download this job's "
			 "artifact (");
		md_code(b, artifact_name());
		buf_adds(b, "), unzip it, and in a clone of the repository run "
			 "`crs-ci reproduce <the unzipped folder>`: it builds "
			 "the recorded head and reruns each PoV.\n\n");
	}
	json_decref(all);
}

/*
 * The harnesses fuzzed short: those --after-finding cut after the proof
 * of a failing finding on one quiet line (the policy working), the
 * others listed as what keeps the scan from a clean pass.
 */
static void summary_incomplete(struct buf *b, const struct finding_set *fs,
			       size_t failing)
{
	const struct scan_summary *sm = &fs->summary;
	size_t cut = 0, listed = 0;

	for (size_t i = 0; i < sm->incomplete_nr; i++) {
		const struct finding_incomplete *e = &sm->incomplete[i];

		if (!failing || !run_cut_is_reason(e->reason))
			continue;
		buf_adds(b, cut++ ? ", " : "Fuzzed short after the proof, as "
			 "`--after-finding` intends: ");
		md_code_span(b, e->harness);
		buf_printf(b, " (%.0f s of %.0f s)", e->fuzzed_s, e->wanted_s);
	}
	if (cut)
		buf_adds(b, ".\n\n");
	for (size_t i = 0; i < sm->incomplete_nr; i++) {
		const struct finding_incomplete *e = &sm->incomplete[i];

		if (failing && run_cut_is_reason(e->reason))
			continue;
		if (!listed++)
			buf_adds(b, "**Incomplete:** these selected harnesses "
				 "got less fuzzing than they were due, so no "
				 "finding is not a clean pass:\n\n");
		buf_adds(b, "- ");
		md_code_span(b, e->harness);
		buf_printf(b, ": fuzzed %.0f s of %.0f s: ", e->fuzzed_s,
			   e->wanted_s);
		md(b, e->reason);
		buf_adds(b, "\n");
	}
	if (listed)
		buf_adds(b, "\n");
}

static void md_list(struct buf *b, const char *label, char **v, size_t n)
{
	buf_printf(b, "**%s:** ", label);
	if (!n)
		buf_adds(b, "none");
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_adds(b, ", ");
		md(b, v[i]);
	}
	buf_adds(b, "\n\n");
}

void github_summary(struct buf *b, const struct finding_set *fs,
		    const char *out_dir, const char *const *notes,
		    size_t notes_nr)
{
	const struct scan_summary *sm = &fs->summary;
	const char *policy = policy_of(fs);
	size_t failing = 0, rows = 0;
	enum finding_verdict v = finding_set_verdict(fs, policy, &failing);

	buf_adds(b, "## crs-ci: ");
	buf_adds(b, finding_verdict_name(v));
	if (sm->project) {
		buf_adds(b, " (");
		md(b, sm->project);
		buf_adds(b, ")");
	}
	buf_printf(b, "\n\n**%zu** proved finding(s), **%zu** failing "
		   "`--fail-on ", fs->nr, failing);
	md(b, policy);
	buf_printf(b, "`; %zu PoV(s) submitted, %zu did not reproduce; "
		   "%.0f s%s.\n\n", sm->povs_submitted,
		   sm->povs_not_reproduced, sm->duration_s,
		   sm->timed_out ? " (the scan hit its deadline)" : "");
	if (sm->private_findings) {
		disclose_public_line(b, sm->private_findings);
		buf_adds(b, ".\n\n");
	}
	summary_proofs(b, fs, policy, out_dir);
	{
		struct buf t = BUF_INIT;

		run_cut_line(&t, fs->run_cut);
		if (t.len) {
			buf_adds(b, "**After the finding:** ");
			md(b, t.ptr);
			buf_adds(b, ".\n\n");
		}
		buf_reset(&t);
		run_saturation_line(&t, fs->saturation);
		if (t.len) {
			buf_adds(b, "**Early stop:** ");
			md(b, t.ptr);
			buf_adds(b, ".\n\n");
		}
		buf_reset(&t);
		run_corpus_line(&t, fs->corpus);
		if (t.len) {
			buf_adds(b, "**Corpus:** ");
			md(b, t.ptr + strlen("corpus: "));
			buf_adds(b, ".\n\n");
		}
		buf_release(&t);
	}
	summary_incomplete(b, fs, failing);
	if (sm->base || sm->head) {
		buf_adds(b, "**Change:** ");
		md(b, sm->base ? sm->base : "none");
		buf_adds(b, "..");
		md(b, sm->head);
		buf_adds(b, sm->mode ? " (" : "");
		if (sm->mode)
			md(b, sm->mode);
		buf_adds(b, sm->mode ? ")\n\n" : "\n\n");
	}
	md_change_cov(b, fs->change_coverage);
	if (fs->nr) {
		buf_adds(b, "| novelty | crash | location | reproduced | "
			 "found by | harness | PoV |\n"
			 "|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < fs->nr; i++) {
			size_t before = b->len;

			if (rows >= GITHUB_SUMMARY_ROWS_MAX)
				break;
			summary_row(b, &fs->items[i], policy, out_dir);
			if (b->len > GITHUB_SUMMARY_MAX / 2) {
				b->len = before;
				b->ptr[before] = '\0';
				break;
			}
			rows++;
		}
		if (rows < fs->nr)
			buf_printf(b, "\n%zu more finding(s) are in "
				   "results.json and results.sarif.\n",
				   fs->nr - rows);
		buf_adds(b, "\n");
		summary_anchor_lines(b, fs, rows, out_dir);
	}
	md_list(b, "Harnesses", sm->harnesses, sm->harnesses_nr);
	md_list(b, "CRSs", sm->crs, sm->crs_nr);
	if (fs->timings) {
		size_t before = b->len;

		buf_adds(b, "**Timings**\n\n");
		timing_summary(b, fs->timings, "- ", md_escape);
		if (b->len == before + strlen("**Timings**\n\n")) {
			b->len = before;	/* none to list */
			b->ptr[before] = '\0';
		} else {
			buf_adds(b, "\n");
		}
	}
	if (fs->nr && sm->head_build && sm->runner_image) {
		buf_adds(b, "**Reproduce** a finding on the head build: ");
		{
			char *cmd = xasprintf("docker run --rm -v %s:/out:ro "
					      "-v %s%s/<pov>:/testcase:ro "
					      "%s reproduce <harness>",
					      sm->head_build,
					      *out_dir == '/' ? "" : "$PWD/",
					      out_dir, sm->runner_image);

			md_code(b, cmd);
			free(cmd);
		}
		buf_adds(b, "\n\n");
	}
	for (size_t i = 0; i < notes_nr; i++) {
		buf_adds(b, "- ");
		md(b, notes[i]);
		buf_adds(b, "\n");
	}
	if (notes_nr)
		buf_adds(b, "\n");
}

/* Append `text` to the file at `path` (the step summary). 0 or CRS_ERR. */
int github_append_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	size_t off = 0;
	int r = 0;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: cannot open: %s", path,
				     strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = crs_error_set(CRS_ERR, "%s: cannot write: %s",
					  path, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) && !r)
		r = crs_error_set(CRS_ERR, "%s: cannot write: %s", path,
				  strerror(errno));
	return r;
}

/* --- outputs -------------------------------------------------------------- */

static void output_var(struct buf *b, const char *name, const char *value)
{
	char delim[33];

	do
		github_random_token(delim);
	while (strstr(value, delim));
	buf_printf(b, "%s<<ghadelimiter_%s\n%s\nghadelimiter_%s\n", name,
		   delim, value, delim);
}

int github_outputs_write(const char *path, const struct finding_set *fs,
			 const char *sarif_path)
{
	const char *policy = policy_of(fs);
	size_t failing = 0, fresh = 0;
	struct buf b = BUF_INIT;
	char n[32];
	int r;

	for (size_t i = 0; i < fs->nr; i++) {
		failing += finding_fails_policy(&fs->items[i], policy) != 0;
		fresh += finding_fails_policy(&fs->items[i], "new") != 0;
	}
	snprintf(n, sizeof(n), "%zu", fs->nr);
	output_var(&b, "findings", n);
	snprintf(n, sizeof(n), "%zu", fresh);
	output_var(&b, "new-findings", n);
	output_var(&b, "sarif", sarif_path ? sarif_path : "");
	output_var(&b, "verdict", failing ? "fail" :
		   fs->summary.incomplete_nr ? "incomplete" : "pass");
	r = github_append_file(path, b.ptr, b.len);
	buf_release(&b);
	return r;
}
