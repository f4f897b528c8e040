/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cwe.h - crash kinds as SARIF rules: id, names, CWE, severity
 *
 * Every crash type the parser produces ("Heap-buffer-overflow WRITE 4",
 * "Timeout", ...) maps to one rule. Memory-access classes whose danger
 * depends on the access get one rule per access ("-read", "-write"),
 * because GitHub's security-severity is a property of the rule.
 */
#ifndef CRS_SARIF_CWE_H
#define CRS_SARIF_CWE_H

struct cwe_rule {
	const char *rule_id;	/* "crs-ci/heap-buffer-overflow-write" */
	const char *name;	/* "HeapBufferOverflowWrite" */
	const char *title;	/* one line: "Heap buffer overflow (write)" */
	const char *description; /* two or three sentences, < 1024 chars */
	int cwe;		/* most specific CWE id, 0 when none fits */
	int cwe_extra;		/* a second CWE tag (787, 125), or 0 */
	const char *severity;	/* GitHub security-severity, "9.0" */
	int is_security;	/* memory-safety class (ClusterFuzz's notion),
				   or a JVM sanitizer's injection/RCE class */
};

/*
 * The rule for a normalised crash type (its first word picks the class,
 * a following READ or WRITE the access). Never NULL: unknown types get
 * the generic "crs-ci/crash" rule. Returns a static entry. Cannot fail.
 */
const struct cwe_rule *cwe_rule_for(const char *crash_type);

#endif
