/* SPDX-License-Identifier: Apache-2.0 */
/*
 * html_timeline.h - where a scan's time went, as an inline SVG
 *
 * Drawn from results.json's "timings" (docs/results.md): the phases as a
 * band on top, every other span (image and target builds, CRS builds,
 * fuzzing, replays, triage, validation, the report) as a bar in its lane
 * (one per parallel slot), a seconds axis below. Span names come from
 * CRS and harness names: hostile text, only ever placed in text nodes and
 * attribute values. No script, no external resource.
 */
#ifndef CRS_RUNNER_REPORT_HTML_TIMELINE_H
#define CRS_RUNNER_REPORT_HTML_TIMELINE_H

#include <jansson.h>

struct _xmlNode;
struct run_cut;
struct run_saturation;

#define HTML_TIMELINE_SPANS_MAX 2000	/* spans drawn; the rest counted */
#define HTML_TIMELINE_LANES_MAX 32	/* lanes drawn; higher ones dropped */

/*
 * Append a heading, one line of totals and the <svg> under `parent`.
 * `timings` NULL, not an object, or without a usable span: nothing is
 * added. Malformed spans (no name, negative or reversed times, a lane
 * out of range) are skipped. `cut` (results.json's "after_finding", may
 * be NULL) adds a marker at the proof of the first failing finding and
 * one where --after-finding ended the run, and its line to the totals;
 * `sat` (results.json's "saturation", may be NULL) adds its early-stop
 * line there when a harness stopped at saturation.
 * Cannot fail (out-of-memory exits).
 */
void html_timeline(struct _xmlNode *parent, const json_t *timings,
		   const struct run_cut *cut,
		   const struct run_saturation *sat);

#endif
