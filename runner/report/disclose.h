/* SPDX-License-Identifier: Apache-2.0 */
/*
 * disclose.h - the disclosure policy: which findings stay out of public
 * outputs (DESIGN.md decision 13)
 *
 * --disclose public|private|auto; a private finding leaves the result set
 * before any public writer runs and only its count stays.
 * Details: SECURITY.md ("Disclosure policy"), docs/internals.md.
 */
#ifndef CRS_RUNNER_REPORT_DISCLOSE_H
#define CRS_RUNNER_REPORT_DISCLOSE_H

#include <stddef.h>

struct buf;
struct finding;
struct finding_set;

enum disclose_policy {
	DISCLOSE_AUTO = 0,
	DISCLOSE_PUBLIC,
	DISCLOSE_PRIVATE,
};

/* A finding taken out of the public result set, with its evidence. */
struct private_finding {
	char *id;		/* the finding's id (16 hex), or NULL */
	char *crash_type, *kind, *sanitizer, *harness, *description;
	char *function, *file;	/* NULL when unknown */
	int line;
	int is_security;
	char *novelty;
	char *stack;		/* "#0 func file:line" lines, or NULL */
	struct buf *report;	/* sanitizer output (capped), may be empty */
	struct buf *pov;	/* the primary PoV's bytes, may be empty */
	char *pov_cms;		/* the PoV sealed (PEM CMS), or NULL */
};

struct private_set {
	struct private_finding *items;
	size_t nr, alloc;
};
#define PRIVATE_SET_INIT { NULL, 0, 0 }
/* Free the records, wiping PoVs and reports. Accepts NULL. */
void private_set_release(struct private_set *p);

/*
 * "auto", "public" or "private" (NULL: CRS_CI_DISCLOSE, then "auto").
 * 0, or CRS_EINPUT naming `what` ("--disclose") and the value.
 */
int disclose_parse(const char *arg, const char *what,
		   enum disclose_policy *out);

#ifdef UNIT_TESTS
/*
 * Is the repository this CI job runs for public? GitHub Actions: the
 * event file's repository.visibility ("public") or repository.private
 * (false); GitLab CI: CI_PROJECT_VISIBILITY "public" (or "internal",
 * which every signed-in user of the instance can read). In CI, when it
 * cannot be told (no event file, no variable), it counts as public: the
 * safe side. Outside CI: 0. `why` (may be NULL) gets a static phrase.
 */
int disclose_repo_public(const char **why);

/* Is `f` private under `p` here (disclose_repo_public for auto)? */
int disclose_is_private(enum disclose_policy p, const struct finding *f);
#endif

/*
 * disclose_is_private() under the --disclose value `opt` (NULL:
 * CRS_CI_DISCLOSE, then auto; the command line checked it already, so a
 * bad value counts as private). For the log lines of the proving phases.
 */
int disclose_hides(const char *opt, const struct finding *f);

/*
 * Move every private finding of `fs` into `out` with its evidence read
 * from `out_dir` (PoV at most CMS_SEAL_INPUT_MAX, report at most 1 MiB),
 * then remove from `out_dir` every file it names (its PoVs and report),
 * the patches that fix it and the candidates it confirmed, and count it
 * in fs->summary.private_findings (and private_failing when it fails
 * fs->summary.fail_on). Returns 0 or CRS_ERR (a file could not be
 * removed: nothing may then be published).
 */
int disclose_split(struct finding_set *fs, const char *out_dir,
		   enum disclose_policy p, struct private_set *out);

/*
 * The neutral public line for `n` private findings, appended to `b`:
 * "1 finding in released code was reported privately to the
 * maintainers". Nothing when n is 0.
 */
void disclose_public_line(struct buf *b, size_t n);

#endif
