/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timing_summary.h - results.json's "timings" as a few lines for people
 *
 * What the terminal report and the GitHub job summary print at the end
 * of a scan: wall time per phase, the builds with their durations, the
 * fuzzing seconds per harness, the time to the first PoV and how much of
 * the deadline was fuzzing. Names come from the pull request's build
 * (harnesses) and the compose, so each sink passes its own escaper.
 */
#ifndef CRS_RUNNER_REPORT_TIMING_SUMMARY_H
#define CRS_RUNNER_REPORT_TIMING_SUMMARY_H

#include <jansson.h>

struct buf;

/* Append `s` escaped for the sink. */
typedef void (*timing_escape_fn)(struct buf *b, const char *s);

/* At most this many builds are listed; the rest are counted. */
#define TIMING_SUMMARY_BUILDS_MAX 12

/*
 * Append the lines for `timings` (borrowed; NULL or one without spans
 * appends nothing), each starting with `prefix` and ending in a newline;
 * every name goes through `esc`. Cannot fail.
 */
void timing_summary(struct buf *b, const json_t *timings, const char *prefix,
		    timing_escape_fn esc);

#endif
