/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_write.h - SARIF 2.1.0 from a finding set
 *
 * One run, tool "crs-ci"; one rule per crash kind (with CWE tags and
 * security-severity from cwe.c); each result located at its top in-project
 * frame, its stack as a codeFlow (outermost first) and as result.stacks,
 * partialFingerprints under "crsCiSignature/v1" plus GitHub's
 * primaryLocationLineHash when the source file can be read.
 */
#ifndef CRS_SARIF_SARIF_WRITE_H
#define CRS_SARIF_SARIF_WRITE_H

#include <stddef.h>
#include <jansson.h>

#define SARIF_SCHEMA_URI "https://json.schemastore.org/sarif-2.1.0.json"
/* tool.driver.informationUri: the project's home page */
#define SARIF_TOOL_URI "https://github.com/crs-ci/crs-ci"
#define SARIF_RESULTS_MAX 25000		/* GitHub's per-run limit */
#define SARIF_SOURCE_MAX (16u << 20)	/* larger sources are not hashed */

struct finding_set;

#ifdef UNIT_TESTS
/*
 * Build the SARIF log (new reference in *out). `source_root` is where the
 * repo-relative files can be read for line hashes and UTF-16 columns (may
 * be NULL: no primaryLocationLineHash then); %SRCROOT% stands for
 * summary.source_root, else `source_root`, and is described in
 * run.originalUriBaseIds without that path. Files are read only when they
 * resolve inside source_root and are regular. A finding with no frame
 * that names a file is left out, because GitHub rejects a whole upload
 * when one result has no location (run.properties.resultsWithoutLocation
 * and a notification count them). At most SARIF_RESULTS_MAX results are
 * written (run.properties.resultsTruncated counts the rest). Returns 0;
 * there is no failure path other than out-of-memory, which exits.
 */
int sarif_from_findings(json_t **out, const struct finding_set *s,
			const char *source_root);
#endif
/*
 * Build and write it to `path` via a temporary file and rename(2).
 * Returns 0, or the error of sarif_from_findings, or CRS_ERR with a
 * message naming the path when it cannot be written.
 */
int sarif_write_file(const struct finding_set *s, const char *source_root,
		     const char *path);

#endif
