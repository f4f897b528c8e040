/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_coverage.c - replay every harness's corpus, join, draw, keep the trend
 */
#include "runner/exec/corpus_coverage.h"
#include "runner/exec/cache.h"
#include "runner/exec/corpus_import.h"
#include "runner/exec/coverage_replay.h"
#include "runner/corpus/corpus_store.h"
#include "runner/report/coverage_html.h"
#include "runner/scan/coverage.h"
#include "runner/scan/coverage_totals.h"
#include "runner/scan/scan.h"
#include "runner/scan/time_shares.h"
#include "sarif/project_cov.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HISTORY_MAX ((size_t)1 << 20)
#define HISTORY_PATH "coverage/history.json"

/* The store's history into c (a warning, and none, when it does not read). */
static void history_load(struct scan *s, struct project_cov *c)
{
	struct buf b = BUF_INIT;
	json_t *j = NULL;
	int r;

	if (!s->corpus_store)
		return;
	r = corpus_store_read_file(s->corpus_store, HISTORY_PATH, &b,
				   HISTORY_MAX);
	if (r == 0) {
		j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
		r = j ? project_cov_history_from_json(c, j, HISTORY_PATH) :
			crs_error_set(CRS_EINPUT, "%s: not JSON", HISTORY_PATH);
	}
	if (r != 0 && r != CRS_ENOTFOUND)
		log_warn("coverage: the store's %s: %s; the history starts "
			 "again", HISTORY_PATH, crs_error_last());
	if (r != 0) {
		crs_error_clear();
		project_cov_release(c);
	}
	json_decref(j);
	buf_release(&b);
}

/* One harness's replay; its coverage (or NULL) into *cov. */
static int replay_one(struct scan *s, const char *h, double timeout_s,
		      struct coverage **cov, long *inputs)
{
	struct coverage_replay rp = COVERAGE_REPLAY_INIT;
	struct strvec corpora = STRVEC_INIT;
	char *dir = scan_work_path(s, "coverage-mode/%s", h);
	char *imported = corpus_import_dir(s, h), *cached = NULL;
	int r;

	*cov = NULL;
	if (imported)
		strvec_push(&corpora, imported);
	if ((r = cache_corpus_stage(s, h, &cached)) != 0)
		goto out;
	if (cached)
		strvec_push(&corpora, cached);
	if ((r = coverage_replay_run(&rp, &s->exec, h, dir,
				     (const char *const *)corpora.v,
				     timeout_s)) != 0)
		goto out;
	if (rp.failed)
		log_warn("coverage: %s: %s", h, rp.failed);
	if (rp.inputs > 0)
		*inputs += rp.inputs;
	*cov = rp.cov;
	rp.cov = NULL;	/* transferred */
	log_info("coverage: %s: %ld input(s) replayed", h, rp.inputs);
out:
	coverage_replay_release(&rp);
	strvec_release(&corpora);
	free(dir);
	free(imported);
	free(cached);
	return r;
}

static int write_out(struct scan *s, const struct project_cov *c,
		     const struct buf *lcov)
{
	char *dir = xasprintf("%s/coverage", s->out_dir);
	char *lcov_path = xasprintf("%s/coverage.lcov", dir);
	char *html = xasprintf("%s/index.html", dir);
	char *hist = xasprintf("%s/history.json", dir);
	json_t *j = project_cov_history_to_json(c);
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
	int r;

	if ((r = fs_mkdir_p(dir)) == 0 &&
	    (r = fs_write_file_atomic(lcov_path, lcov->ptr, lcov->len)) == 0 &&
	    (r = fs_write_file_atomic(hist, text, strlen(text))) == 0 &&
	    (r = coverage_html_write(c, s->state.project, html)) == 0 &&
	    s->corpus_store)
		r = corpus_store_put_file(s->corpus_store, "coverage",
					  "history.json", text, strlen(text));
	if (r == 0)
		log_info("coverage: %zu of %zu instrumented line(s) run by "
			 "the corpus, in %zu file(s); %s", c->hit, c->lines,
			 c->nr, html);
	json_decref(j);
	free(text);
	free(dir);
	free(lcov_path);
	free(html);
	free(hist);
	return r;
}

int corpus_coverage_all(struct scan *s)
{
	size_t n = s->state.harnesses_nr;
	struct coverage **covs = xcalloc(n + 1, sizeof(*covs));
	struct project_cov c = { 0 };
	struct buf lcov = BUF_INIT;
	long inputs = 0;
	char at[32];
	time_t now = time(NULL);
	int r, ok = 0;

	if ((r = coverage_replay_build(s, &ok)) != 0)
		goto out;
	if (!ok) {
		r = crs_error_set(CRS_EBUILD, "coverage: the head does not "
				  "build with SANITIZER=coverage");
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (scan_interrupted(s))
			r = crs_error_set(CRS_EINTR, "interrupted");
		else
			r = replay_one(s, s->state.harnesses[i],
				       time_share_corpus(scan_remaining(s),
							 n - i),
				       &covs[i], &inputs);
	}
	if (r != 0)
		goto out;
	history_load(s, &c);
	coverage_totals(&c, &lcov, covs, n, s->state.repo_path);
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	project_cov_add_point(&c, at, s->state.head_commit ?
			      s->state.head_commit : "unknown", c.lines, c.hit,
			      (size_t)inputs);
	r = write_out(s, &c, &lcov);
out:
	for (size_t i = 0; i < n; i++)
		coverage_free(covs[i]);
	free(covs);
	project_cov_release(&c);
	buf_release(&lcov);
	return r;
}
