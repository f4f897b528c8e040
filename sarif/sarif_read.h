/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_read.h - SARIF 2.1.0 from static analysers, read as bug candidates
 *
 * `--sarif FILE` (CodeQL, Semgrep, cppcheck, ...) gives claims, not proof:
 * each result becomes a struct finding_candidate that the CRSs receive
 * (bug-candidates/) and that the triage phase later confirms when a
 * proved finding's stack passes its location. The file is checked with
 * the rules of OSS-CRS's reference parser (oss-crs-contract.md §7.2), and
 * a bad one is refused with the file and the JSON path of the field.
 */
#ifndef CRS_SARIF_SARIF_READ_H
#define CRS_SARIF_SARIF_READ_H

#include <stddef.h>

#include "sarif/finding.h"

#define SARIF_READ_MAX_BYTES (64u << 20)	/* file size limit */
#define SARIF_READ_MAX_RESULTS 25000		/* results per file */
#define SARIF_READ_MESSAGE_MAX 1024		/* bytes of message kept */

/* Candidates in file order; items owned (finding_candidate_release). */
struct sarif_candidates {
	struct finding_candidate *v;
	size_t nr, alloc;
};
#define SARIF_CANDIDATES_INIT { NULL, 0, 0 }

#ifdef UNIT_TESTS
/*
 * Parse a SARIF 2.1.0 log held in memory and append one candidate per
 * result (over all runs, in order; `index` counts them from 0) to `out`.
 * A candidate's location is the result's first location whose
 * physicalLocation has an artifactLocation: its uri with "file://" (and
 * a host) or "file:" removed, %XX decoded and leading "./" dropped
 * (uriBaseId is ignored); its region's startLine and endLine (endLine
 * defaults to startLine); the name of a logicalLocation of kind
 * "function" of that location. `level` defaults to "warning"; `message`
 * is message.text cut to SARIF_READ_MESSAGE_MAX bytes; `source` is the
 * basename of `name`. Status fields stay NULL.
 *
 * Checks: a JSON object (duplicate keys refused) of at most
 * SARIF_READ_MAX_BYTES; version "2.1.0"; runs a non-empty array; each run
 * has tool.driver.name and a results array; at most
 * SARIF_READ_MAX_RESULTS results; each has message.text, an optional
 * string ruleId and a level among none, note, warning, error; an
 * artifactLocation has a uri; a region has an integer startLine >= 1 and
 * an optional integer endLine >= startLine. Strings may not contain NUL.
 *
 * Returns 0, or CRS_EINPUT naming `name` and the field, e.g.
 * "codeql.sarif: runs[0].results[3].locations[0].physicalLocation.region.
 * startLine: not an integer"; `out` is then unchanged.
 */
int sarif_candidates_parse(const char *buf, size_t len, const char *name,
			   struct sarif_candidates *out);
#endif
/*
 * Read the file at `path` (at most SARIF_READ_MAX_BYTES) and parse it as
 * above, messages naming `path`. CRS_EINPUT also when the file is missing
 * or too large; CRS_ERR on other I/O errors.
 */
int sarif_candidates_load(const char *path, struct sarif_candidates *out);
/*
 * Make candidate files under `root` (an absolute directory, e.g. the
 * scanned checkout or its path in the target image) relative to it:
 * "/src/x/lib/a.c" with root "/src/x" becomes "lib/a.c". Others are
 * left as they are. Cannot fail.
 */
void sarif_candidates_relativize(struct sarif_candidates *c,
				 const char *root);
/*
 * Mark each of fs->candidates: "confirmed" when a finding's stack has an
 * in-project frame in the candidate's file whose line lies in
 * [start_line, end_line] (end_line 0 means start_line), or, when the
 * candidate names a function, a frame in that file and function ("f" also
 * matches a frame "f(int)"); else "unconfirmed". The first finding in set
 * order that passes it gives finding_id and pov_path. Findings the change
 * fixed (novelty "fixed-by-change") confirm nothing: their PoV does not
 * crash the head. Returns the number confirmed. Cannot fail.
 */
size_t sarif_candidates_mark(struct finding_set *fs);
/* Free every candidate; `c` is then empty. Accepts NULL. */
void sarif_candidates_release(struct sarif_candidates *c);

#endif
