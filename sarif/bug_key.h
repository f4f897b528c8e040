/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bug_key.h - one bug, one finding: the key that tells two findings are
 * the same bug, and folding them into one
 *
 * A crash signature (crash.h) names the harness when the harness's entry
 * function is among the top frames, so two harnesses that reach the same
 * bug give two signatures. The bug key ignores the harness: the crash
 * type (without the access size, as in the signature) and the top
 * in-project frame that is not a fuzz entry point, as file:line:function.
 */
#ifndef CRS_SARIF_BUG_KEY_H
#define CRS_SARIF_BUG_KEY_H

#include <stddef.h>

struct finding;
struct finding_set;

#ifdef UNIT_TESTS
/*
 * f's bug key, "<type>\n<file>:<line>:<function>", or NULL when f has no
 * in-project frame outside the fuzz entry points (nothing to match on:
 * such findings stay apart). Caller frees.
 */
char *finding_bug_key(const struct finding *f);
#endif

/*
 * Fold every finding into the first one (in set order: earliest found)
 * with the same bug key: its harnesses and PoVs listed on the kept one,
 * duplicates counted, the earliest finder credited, in_change if any is.
 * Novelty of the fold: "pre-existing" if the base crashes the same way on
 * any of its PoVs, else "changed" if the base crashes on any, else "new"
 * (a bug is new only when the base crashes on none of its PoVs).
 * "fixed-by-change" findings are not folded. Returns how many findings
 * were folded away.
 */
size_t finding_set_fold_bugs(struct finding_set *s);

#endif
