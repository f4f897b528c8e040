/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timings_record.h - a thread-safe record of spans in <work>/timings.json
 *
 * The recorder behind timings.h, free of any scan: a span is a kind, a
 * name, an optional harness, start and end in seconds since the record's
 * origin (a wall-clock time, so that separate processes share it) and a
 * lane. Every function is safe to call from any thread, and a NULL
 * record makes each a no-op. Writing the file never fails a caller: a
 * failure is logged once.
 */
#ifndef CRS_RUNNER_SCAN_TIMINGS_RECORD_H
#define CRS_RUNNER_SCAN_TIMINGS_RECORD_H

#include <jansson.h>

struct timings;

/* More spans than this in one record are not recorded. */
#define TIMINGS_SPANS_MAX 20000
/* timings.json's size limit */
#define TIMINGS_FILE_MAX (8u << 20)

/* The wall clock in seconds since the epoch. Cannot fail. */
double timings_wall_now(void);
/*
 * A recorder kept in `path`, read on its first use (not here). `origin`
 * (wall clock) and `deadline_s` are this process's scan start and
 * --timeout: a new record starts with them. Cannot fail; caller frees.
 */
struct timings *timings_new(const char *path, double origin,
			    double deadline_s);
/* End the spans still open (now), write the file, free. Accepts NULL. */
void timings_free(struct timings *t);

/*
 * Begin a span now; its id for timings_end(), or -1 when `t` is NULL or
 * holds TIMINGS_SPANS_MAX spans. A non-phase span takes the lowest lane
 * that no open non-phase span holds; a phase span lane 0. `harness` may
 * be NULL. Strings are copied.
 */
int timings_begin(struct timings *t, const char *kind, const char *name,
		  const char *harness);
/* End span `id` now and write the file; -1 or an ended span: no-op. */
void timings_end(struct timings *t, int id);
/* Phase `name` begins (timings.h, timing_phase, says what it drops). */
void timings_phase(struct timings *t, const char *name);
/* Forget the record: a new one starts at this process's scan start. */
void timings_restart(struct timings *t);
/* Now is the first PoV's arrival, unless one arrived before. */
void timings_first_pov(struct timings *t);
/*
 * results.json's "timings" object (new reference; docs/results.md), open
 * spans ending now; NULL when the record holds no span.
 */
json_t *timings_json(struct timings *t);
/* 1 when the record holds a span other than the report phase and the
 * "report" spans in it. */
int timings_beyond_report(struct timings *t);

#endif
