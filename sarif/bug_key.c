/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bug_key.c - one bug, one finding: the bug key and the fold
 * (bug_key.h; docs/results.md, "One bug, one finding")
 */
#include "sarif/bug_key.h"
#include "sarif/finding.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <stdlib.h>
#include <string.h>

/* A fuzz entry point: the harness itself, not where the bug is. */
static int is_entry(const char *func)
{
	const char *dot;

	if (!func)
		return 0;
	if (!strcmp(func, "LLVMFuzzerTestOneInput") ||
	    !strcmp(func, "LLVMFuzzerInitialize"))
		return 1;
	dot = strrchr(func, '.');
	return dot && !strcmp(dot + 1, "fuzzerTestOneInput");
}

CRS_TESTABLE char *finding_bug_key(const struct finding *f)
{
	const char *type = f->signature ? f->signature : f->crash_type;
	size_t tn;

	if (!type)
		return NULL;
	tn = strcspn(type, "\n");
	for (size_t i = 0; i < f->stack_nr; i++) {
		const struct finding_frame *fr = &f->stack[i];

		if (!fr->in_project || !fr->file || is_entry(fr->func))
			continue;
		return xasprintf("%.*s\n%s:%d:%s", (int)tn, type, fr->file,
				 fr->line, fr->func ? fr->func : "");
	}
	return NULL;
}

static int rank(const char *novelty)
{
	if (!novelty)
		return 0;
	if (!strcmp(novelty, "new"))
		return 1;
	if (!strcmp(novelty, "changed"))
		return 2;
	if (!strcmp(novelty, "pre-existing"))
		return 3;
	return -1;	/* fixed-by-change: not folded */
}

static void fold(struct finding *into, struct finding *from)
{
	for (size_t i = 0; i < from->povs_nr; i++)
		finding_add_pov(into, from->povs[i].harness,
				from->povs[i].path, from->povs[i].sha256);
	into->duplicates += 1 + from->duplicates;
	if (from->found_after_s >= 0 &&
	    (into->found_after_s < 0 ||
	     from->found_after_s < into->found_after_s)) {
		free(into->found_by);
		into->found_by = from->found_by;
		from->found_by = NULL;
		into->found_after_s = from->found_after_s;
	}
	into->in_change |= from->in_change;
	if (rank(from->novelty) > rank(into->novelty)) {
		free(into->novelty);
		into->novelty = from->novelty;
		from->novelty = NULL;
	}
}

size_t finding_set_fold_bugs(struct finding_set *s)
{
	char **keys = xcalloc(s->nr + 1, sizeof(char *));
	size_t kept = 0, folded = 0;

	for (size_t i = 0; i < s->nr; i++) {
		struct finding *f = &s->items[i];

		/* its own PoV is listed (a no-op when triage did) */
		finding_add_pov(f, f->harness, f->pov_path, f->pov_sha256);
		keys[i] = rank(f->novelty) < 0 ? NULL : finding_bug_key(f);
	}
	for (size_t i = 0; i < s->nr; i++) {
		size_t k;

		for (k = 0; keys[i] && k < kept; k++)
			if (keys[k] && !strcmp(keys[k], keys[i]))
				break;
		if (keys[i] && k < kept) {
			struct finding gone = s->items[i];

			fold(&s->items[k], &gone);
			finding_release(&gone);
			free(keys[i]);
			folded++;
			continue;
		}
		s->items[kept] = s->items[i];
		keys[kept++] = keys[i];
	}
	for (size_t i = 0; i < kept; i++)
		free(keys[i]);
	free(keys);
	s->nr = kept;
	return folded;
}
