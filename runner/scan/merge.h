/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.h - one result set from the result sets of a scan's shards
 *
 * `crs-ci merge` loads each shard's results.json and folds them into one
 * set, which then gives one SARIF log and one verdict. Findings are the
 * same bug when their ids (signature hashes) are equal.
 */
#ifndef CRS_RUNNER_SCAN_MERGE_H
#define CRS_RUNNER_SCAN_MERGE_H

struct finding_set;

/*
 * Move everything of `from` into `into`; `from` is left holding only
 * what was not taken (the caller releases it either way).
 *
 * Findings with the same id become one: duplicates are summed (plus one
 * for the other PoV, unless both carry the same PoV); the earliest
 * found_after_s comes with its found_by; reproduced/attempts are the
 * better rate of the two (then more runs, then the smaller PoV hash), and
 * the PoV, its sha256, harness, report, description and stack come with
 * that pair; in_change is or-ed, fixed_by united, a missing novelty
 * filled in. Ties are broken by value, not by order, so the result does
 * not depend on which set is merged first. Patches with the same sha256
 * become one (a validated one wins; fixes united). The summary: earliest
 * started_at, latest finished_at, longest duration_s, timed_out or-ed,
 * PoV counts summed, harnesses united (sorted), CRSs united with their
 * PoVs summed and the earliest first PoV; other fields keep the first
 * known value. change_coverage (sarif/change_cov.h) is the union of the
 * lines the shards executed, unknown when one is or when a diff-mode
 * shard has none.
 *
 * Returns 0, or CRS_EINPUT when the sets scanned different projects or
 * head commits (message names `from_name`; nothing is moved then).
 */
int merge_finding_sets(struct finding_set *into, struct finding_set *from,
		       const char *from_name);

/* Order findings by id and patches by sha256. Cannot fail. */
void merge_sort(struct finding_set *s);

#endif
