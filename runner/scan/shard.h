/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shard.h - splitting a scan's harnesses across CI jobs
 *
 * A big project outgrows one runner; the CI system's job matrix is then
 * the distributed engine. `crs-ci plan` prints the matrix, each job runs
 * `crs-ci scan --shard i/N` and `crs-ci merge` joins their results. Shard
 * i of N (1-based) gets the harnesses whose 0-based index in the sorted
 * list satisfies idx % N == i - 1, so counts differ by at most one and
 * every job computes its share alone, with nothing to coordinate.
 */
#ifndef CRS_RUNNER_SCAN_SHARD_H
#define CRS_RUNNER_SCAN_SHARD_H

#include <stddef.h>
#include <jansson.h>

struct scan;
struct strvec;

#define SHARD_MAX 256		/* largest N of --shard i/N and --shards */

/*
 * Parse "i/N" (decimal, 1 <= i <= N <= SHARD_MAX) into *index_out and
 * *count_out. 0, or CRS_EINPUT with a message quoting `spec`.
 */
int shard_parse(const char *spec, unsigned *index_out, unsigned *count_out);

/*
 * 1 when `name` can be a harness in a matrix: letters, digits, '_' and
 * '-' only (the matrix lists names separated by spaces).
 */
int shard_name_ok(const char *name);

#ifdef UNIT_TESTS
/* 1 when the idx-th (0-based) harness belongs to shard index/count. */
int shard_has(size_t idx, unsigned index, unsigned count);

/*
 * Push onto `out` the harnesses of shard index/count (1-based) out of
 * `names`, which are sorted and deduplicated first (the input is not
 * changed). Cannot fail.
 */
void shard_pick(struct strvec *out, char *const *names, size_t nr,
		unsigned index, unsigned count);
#endif

/*
 * The job matrix for `shards` shards of `names` (sorted, deduplicated):
 * {"include":[{"shard":"1/N","harnesses":"a c"}, ...]}, one entry per
 * shard. N is `shards`, or the number of distinct names when fewer, so
 * that no job is empty. New reference; NULL when names is empty or
 * shards is 0 (nothing to split).
 */
json_t *shard_matrix(char *const *names, size_t nr, unsigned shards);

/*
 * After select: keep only this shard's part of scan.json's harness list
 * (--shard i/N) and save scan.json; each kept and the shard's share are
 * logged. Nothing to do without --shard. A shard left without harnesses
 * runs nothing and passes. 0, or the error of saving scan.json.
 */
int phase_shard(struct scan *s);

#endif
