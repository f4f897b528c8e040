/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_prune.h - --mode prune: each harness's corpus minimized into the store
 *
 * ClusterFuzzLite's prune: libFuzzer's merge (-merge=1) of the store's
 * corpus (and the scan's other sources) on the head build keeps the
 * inputs that add coverage; the store's corpus/<harness>/ is replaced by
 * them. Inputs that crash or hang the build are left out, as merge does.
 * Details: docs/corpus.md.
 */
#ifndef CRS_RUNNER_EXEC_CORPUS_PRUNE_H
#define CRS_RUNNER_EXEC_CORPUS_PRUNE_H

struct scan;

/*
 * Prune every harness of the scan (its corpus imported already:
 * corpus_import.h) in a container of the base runner image with the head
 * build, no network, crs-ci's own cores; the merged folder the container
 * wrote is read by descriptor (regular files only, renamed by content)
 * and replaces corpus/<harness>/ of the store's next commit. A harness
 * with no input, or whose merge fails, keeps its store folder (a
 * warning). Errors: CRS_EINTR, CRS_EENGINE, write failures.
 */
int corpus_prune_all(struct scan *s);

#endif
