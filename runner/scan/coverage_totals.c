/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_totals.c - the union of harnesses' lcov exports, per repo file
 */
#include "runner/scan/coverage_totals.h"
#include "runner/scan/coverage.h"
#include "sarif/project_cov.h"
#include "common/buf.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* One instrumented line of one file, from one harness. */
struct seen {
	char *path;	/* repository-relative (owned by the first of it) */
	int line;
	int hit;
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

void coverage_totals(struct project_cov *out, struct buf *lcov,
		     struct coverage *const *covs, size_t n,
		     const char *repo_path)
{
	struct seen *v = NULL;
	struct strvec paths = STRVEC_INIT;	/* the strings v[] points to */
	size_t nr = 0, alloc = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t f = 0; covs[k] && f < covs[k]->nr; f++) {
			const struct coverage_file *cf = &covs[k]->files[f];
			char *rel = coverage_repo_relative(cf->path, repo_path);

			if (!rel)
				continue;
			strvec_push(&paths, rel);
			free(rel);
			rel = paths.v[paths.nr - 1];
			for (size_t i = 0; i < cf->lines_nr; i++) {
				if (nr == alloc) {
					alloc = alloc ? 2 * alloc : 1024;
					v = xrealloc(v, alloc * sizeof(*v));
				}
				v[nr].path = rel;
				v[nr].line = cf->lines[i];
				v[nr++].hit = cf->hit[i] != 0;
			}
		}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_seen);
	for (size_t i = 0; i < nr;) {
		struct project_cov_file *pf;
		size_t j = i;

		out->files = xrealloc(out->files, (out->nr + 1) *
				      sizeof(*out->files));
		pf = &out->files[out->nr++];
		pf->path = xstrdup(v[i].path);
		pf->lines = pf->hit = 0;
		if (lcov)
			buf_printf(lcov, "SF:%s\n", pf->path);
		while (j < nr && !strcmp(v[j].path, v[i].path)) {
			size_t l = j;
			int hit = 0;

			/* one line, seen by one harness or several */
			while (l < nr && !strcmp(v[l].path, v[j].path) &&
			       v[l].line == v[j].line)
				hit |= v[l++].hit;
			pf->lines++;
			pf->hit += (size_t)hit;
			if (lcov)
				buf_printf(lcov, "DA:%d,%d\n", v[j].line, hit);
			j = l;
		}
		if (lcov)
			buf_printf(lcov, "LF:%zu\nLH:%zu\nend_of_record\n",
				   pf->lines, pf->hit);
		out->lines += pf->lines;
		out->hit += pf->hit;
		i = j;
	}
	strvec_release(&paths);
	free(v);
}
