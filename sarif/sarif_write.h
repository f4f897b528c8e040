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

#include <jansson.h>

struct finding_set;

/*
 * Build the SARIF log (new reference in *out). `source_root` is where the
 * repo-relative files can be read for line hashes (may be NULL).
 */
int sarif_from_findings(json_t **out, const struct finding_set *s,
			const char *source_root);
/* Write it to `path` (atomic, checked). */
int sarif_write_file(const struct finding_set *s, const char *source_root,
		     const char *path);

#endif
