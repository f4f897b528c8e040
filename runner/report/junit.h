/* SPDX-License-Identifier: Apache-2.0 */
/*
 * junit.h - the scan as a JUnit XML report (GitLab's Test summary)
 *
 * One <testsuite name="crs-ci">; one <testcase> per finding: <failure>
 * when it fails the policy, <skipped> when it is reported but does not
 * (pre-existing, flaky, --fail-on none), passing when the change fixed
 * it; plus one passing <testcase> per scanned harness without findings.
 */
#ifndef CRS_RUNNER_REPORT_JUNIT_H
#define CRS_RUNNER_REPORT_JUNIT_H

#include <stddef.h>

struct finding_set;
struct _xmlDoc;

/*
 * Build and write it to `path` (UTF-8, with an XML declaration) via a
 * temporary file and rename(2). 0, or CRS_ERR naming the path.
 */
int junit_write(const struct finding_set *fs, const char *path);

/*
 * A copy of `s` (NULL: "") that is valid UTF-8 containing only characters
 * XML 1.0 allows: each invalid byte becomes U+FFFD, each forbidden
 * character (C0 controls other than tab, LF and CR; U+FFFE, U+FFFF)
 * becomes a space; at most `max` bytes are kept, never ending inside a
 * character. Escaping of <, & and quotes is left to libxml2. Caller frees.
 */
char *junit_text_clean(const char *s, size_t max);

#endif
