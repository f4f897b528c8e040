/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.c - folding the result sets of a scan's shards into one
 *
 * Strings move from one set to the other (pointer hand-offs), so nothing
 * is copied and each string keeps exactly one owner. Shards scan the same
 * head with the same triage; they differ only in which harnesses they
 * fuzzed, so a bug two shards found is one finding.
 */
#include "runner/scan/merge.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Take *from into *into when *into is NULL. */
static void merge_str(char **into, char **from)
{
	if (!*into && *from) {
		*into = *from;
		*from = NULL;	/* transferred */
	}
}

static void merge_swap(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

static int merge_has(char *const *v, size_t nr, const char *s)
{
	for (size_t i = 0; i < nr; i++)
		if (v[i] && s && !strcmp(v[i], s))
			return 1;
	return 0;
}

/* Move each string of from[] that into[] lacks to its end. */
static void merge_strv(char ***into, size_t *into_nr, char **from,
		       size_t from_nr)
{
	for (size_t i = 0; i < from_nr; i++) {
		if (!from[i] || merge_has(*into, *into_nr, from[i]))
			continue;
		*into = xrealloc(*into, st_mult(st_add(*into_nr, 2),
						sizeof(char *)));
		(*into)[(*into_nr)++] = from[i];
		(*into)[*into_nr] = NULL;
		from[i] = NULL;	/* transferred */
	}
}

static int merge_str_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	return strcmp(x ? x : "", y ? y : "");
}

/*
 * a's evidence is better than b's: a higher reproduce rate, then more
 * runs, then (for a stable choice) the smaller PoV hash.
 */
static int merge_better_rate(const struct finding *a, const struct finding *b)
{
	long long l = (long long)a->reproduced * (b->attempts > 0 ?
						  b->attempts : 1);
	long long r = (long long)b->reproduced * (a->attempts > 0 ?
						  a->attempts : 1);

	if (l != r)
		return l > r;
	if (a->attempts != b->attempts)
		return a->attempts > b->attempts;
	return a->pov_sha256 && (!b->pov_sha256 ||
				 strcmp(a->pov_sha256, b->pov_sha256) < 0);
}

/* The earlier finder; ties go to the smaller CRS name. */
static int merge_earlier(const struct finding *a, const struct finding *b)
{
	if (a->found_after_s < 0)
		return 0;
	if (b->found_after_s < 0 || a->found_after_s != b->found_after_s)
		return b->found_after_s < 0 ||
			a->found_after_s < b->found_after_s;
	return a->found_by && (!b->found_by ||
			       strcmp(a->found_by, b->found_by) < 0);
}

/*
 * The PoV and what its reproducing runs showed travel together: the
 * reproduce rate, the harness it is an input of, its report and stack.
 */
static void merge_take_evidence(struct finding *into, struct finding *from)
{
	struct finding_frame *stack = into->stack;
	struct change_anchor *anchor;
	size_t stack_nr = into->stack_nr;

	into->reproduced = from->reproduced;
	into->attempts = from->attempts;
	merge_swap(&into->pov_path, &from->pov_path);
	merge_swap(&into->pov_sha256, &from->pov_sha256);
	merge_swap(&into->report_path, &from->report_path);
	merge_swap(&into->harness, &from->harness);
	merge_swap(&into->description, &from->description);
	into->stack = from->stack;
	into->stack_nr = from->stack_nr;
	from->stack = stack;
	from->stack_nr = stack_nr;
	anchor = into->anchor;	/* it points into its stack */
	into->anchor = from->anchor;
	from->anchor = anchor;
}

static void merge_finding(struct finding *into, struct finding *from)
{
	int same_pov = into->pov_sha256 && from->pov_sha256 &&
		!strcmp(into->pov_sha256, from->pov_sha256);

	into->duplicates += from->duplicates + (same_pov ? 0 : 1);
	if (merge_earlier(from, into)) {
		into->found_after_s = from->found_after_s;
		merge_swap(&into->found_by, &from->found_by);
	}
	merge_str(&into->found_by, &from->found_by);
	if (merge_better_rate(from, into))
		merge_take_evidence(into, from);
	merge_str(&into->pov_path, &from->pov_path);
	merge_str(&into->pov_sha256, &from->pov_sha256);
	merge_str(&into->report_path, &from->report_path);
	merge_str(&into->novelty, &from->novelty);
	merge_str(&into->description, &from->description);
	merge_str(&into->kind, &from->kind);
	merge_str(&into->sanitizer, &from->sanitizer);
	merge_str(&into->harness, &from->harness);
	merge_str(&into->suppressed, &from->suppressed);
	into->in_change |= from->in_change;
	into->is_security |= from->is_security;
	if (!into->anchor && from->anchor &&
	    (from->anchor->frame < 0 ||
	     (size_t)from->anchor->frame < into->stack_nr)) {
		into->anchor = from->anchor;
		from->anchor = NULL;
	}
	for (size_t i = 0; i < from->povs_nr; i++)
		finding_add_pov(into, from->povs[i].harness,
				from->povs[i].path, from->povs[i].sha256);
	merge_strv(&into->fixed_by, &into->fixed_by_nr, from->fixed_by,
		   from->fixed_by_nr);
	if (into->fixed_by_nr)
		qsort(into->fixed_by, into->fixed_by_nr, sizeof(char *),
		      merge_str_cmp);
}

static void merge_patch(struct finding_patch *into, struct finding_patch *from)
{
	if (from->validated && !into->validated) {
		struct finding_patch t = *into;

		*into = *from;
		*from = t;
	}
	merge_strv(&into->fixes, &into->fixes_nr, from->fixes,
		   from->fixes_nr);
	if (into->fixes_nr)
		qsort(into->fixes, into->fixes_nr, sizeof(char *),
		      merge_str_cmp);
}

/* CRSs united; their PoVs summed, the earliest first PoV kept. */
static void merge_crs(struct scan_summary *into, struct scan_summary *from)
{
	int had = into->crs_povs && into->crs_first_pov_s;
	int stats = had || (from->crs_povs && from->crs_first_pov_s);
	size_t n = into->crs_nr;

	for (size_t i = 0; i < from->crs_nr; i++)
		if (from->crs[i] &&
		    !merge_has(into->crs, into->crs_nr, from->crs[i]))
			n++;
	into->crs = xrealloc(into->crs, st_mult(n + 1, sizeof(char *)));
	if (stats) {
		into->crs_povs = xrealloc(into->crs_povs,
					  st_mult(n + 1, sizeof(size_t)));
		into->crs_first_pov_s = xrealloc(
			into->crs_first_pov_s, st_mult(n + 1, sizeof(double)));
		for (size_t i = 0; !had && i < into->crs_nr; i++) {
			into->crs_povs[i] = 0;
			into->crs_first_pov_s[i] = -1;
		}
	}
	for (size_t i = 0; i < from->crs_nr; i++) {
		size_t k = 0;
		size_t p = from->crs_povs ? from->crs_povs[i] : 0;
		double t = from->crs_first_pov_s ?
			from->crs_first_pov_s[i] : -1;

		if (!from->crs[i])
			continue;
		while (k < into->crs_nr && strcmp(into->crs[k], from->crs[i]))
			k++;
		if (k == into->crs_nr) {
			into->crs[into->crs_nr++] = from->crs[i];
			from->crs[i] = NULL;	/* transferred */
			if (stats) {
				into->crs_povs[k] = 0;
				into->crs_first_pov_s[k] = -1;
			}
		}
		if (!stats)
			continue;
		into->crs_povs[k] += p;
		if (t >= 0 && (into->crs_first_pov_s[k] < 0 ||
			       t < into->crs_first_pov_s[k]))
			into->crs_first_pov_s[k] = t;
	}
	into->crs[into->crs_nr] = NULL;
}

static void merge_summary(struct scan_summary *into,
			  struct scan_summary *from)
{
	if (from->started_at && into->started_at &&
	    strcmp(from->started_at, into->started_at) < 0)
		merge_swap(&into->started_at, &from->started_at);
	if (from->finished_at && into->finished_at &&
	    strcmp(from->finished_at, into->finished_at) > 0)
		merge_swap(&into->finished_at, &from->finished_at);
	merge_str(&into->started_at, &from->started_at);
	merge_str(&into->finished_at, &from->finished_at);
	merge_str(&into->tool_version, &from->tool_version);
	merge_str(&into->project, &from->project);
	merge_str(&into->source_root, &from->source_root);
	merge_str(&into->head_build, &from->head_build);
	merge_str(&into->runner_image, &from->runner_image);
	merge_str(&into->base, &from->base);
	merge_str(&into->head, &from->head);
	merge_str(&into->mode, &from->mode);
	merge_str(&into->fail_on, &from->fail_on);
	merge_str(&into->sarif_category, &from->sarif_category);
	merge_str(&into->sanitizer, &from->sanitizer);
	if (from->duration_s > into->duration_s)
		into->duration_s = from->duration_s;
	into->timed_out |= from->timed_out;
	into->povs_submitted += from->povs_submitted;
	into->povs_not_reproduced += from->povs_not_reproduced;
	merge_strv(&into->harnesses, &into->harnesses_nr, from->harnesses,
		   from->harnesses_nr);
	if (into->harnesses_nr)
		qsort(into->harnesses, into->harnesses_nr, sizeof(char *),
		      merge_str_cmp);
	merge_crs(into, from);
	/* each harness runs in one shard: its shortfall, if any, is kept */
	for (size_t i = 0; i < from->incomplete_nr; i++) {
		const struct finding_incomplete *e = &from->incomplete[i];

		scan_summary_add_incomplete(into, e->harness, e->reason,
					    e->fuzzed_s, e->wanted_s);
	}
}

/*
 * The coverage of the change: the union of the lines each shard executed.
 * A diff-mode shard without it (measured by none) makes it unknown, in
 * whichever order the shards come; `into` with no mode yet has no shard.
 */
static void merge_change_cov(struct finding_set *into,
			     struct finding_set *from, const char *from_name)
{
	char *why;

	if (from->change_coverage && into->change_coverage) {
		change_cov_merge(into->change_coverage, from->change_coverage);
		return;
	}
	if (from->change_coverage) {
		into->change_coverage = from->change_coverage;
		from->change_coverage = NULL;	/* transferred */
		if (!into->summary.mode || strcmp(into->summary.mode, "delta"))
			return;
		change_cov_set_unknown(into->change_coverage, "an earlier "
				       "shard has no coverage of the change");
		return;
	}
	if (!into->change_coverage || !from->summary.mode ||
	    strcmp(from->summary.mode, "delta"))
		return;
	why = xasprintf("%s has no coverage of the change", from_name);
	change_cov_set_unknown(into->change_coverage, why);
	free(why);
}

/* Different non-NULL values of the same field: not shards of one scan. */
static int merge_conflict(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

int merge_finding_sets(struct finding_set *into, struct finding_set *from,
		       const char *from_name)
{
	struct scan_summary *a = &into->summary, *b = &from->summary;

	if (merge_conflict(a->project, b->project) ||
	    merge_conflict(a->head, b->head) ||
	    merge_conflict(a->base, b->base))
		return crs_error_set(CRS_EINPUT, "%s: scans project '%s' at "
				     "'%s'..'%s', not '%s' at '%s'..'%s': not "
				     "a shard of the same scan", from_name,
				     b->project ? b->project : "?",
				     b->base ? b->base : "", b->head ?
				     b->head : "?", a->project ? a->project :
				     "?", a->base ? a->base : "",
				     a->head ? a->head : "?");
	for (size_t i = 0; i < from->nr; i++) {
		struct finding *f = &from->items[i];
		struct finding *g = finding_set_find(into, f->id);

		if (g) {
			merge_finding(g, f);
			continue;
		}
		g = finding_set_add(into);
		*g = *f;
		memset(f, 0, sizeof(*f));	/* transferred */
	}
	for (size_t i = 0; i < from->patches_nr; i++) {
		struct finding_patch *p = &from->patches[i], *q = NULL;

		for (size_t k = 0; k < into->patches_nr && !q; k++)
			if (into->patches[k].sha256 && p->sha256 &&
			    !strcmp(into->patches[k].sha256, p->sha256))
				q = &into->patches[k];
		if (q) {
			merge_patch(q, p);
			continue;
		}
		q = finding_set_add_patch(into);
		*q = *p;
		memset(p, 0, sizeof(*p));	/* transferred */
	}
	merge_change_cov(into, from, from_name);
	merge_summary(a, b);
	return 0;
}

static int merge_finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return strcmp(x->id ? x->id : "", y->id ? y->id : "");
}

static int merge_patch_cmp(const void *a, const void *b)
{
	const struct finding_patch *x = a, *y = b;

	return strcmp(x->sha256 ? x->sha256 : "", y->sha256 ? y->sha256 : "");
}

void merge_sort(struct finding_set *s)
{
	if (s->nr)
		qsort(s->items, s->nr, sizeof(*s->items), merge_finding_cmp);
	if (s->patches_nr)
		qsort(s->patches, s->patches_nr, sizeof(*s->patches),
		      merge_patch_cmp);
}
