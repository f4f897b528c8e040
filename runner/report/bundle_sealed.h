/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle_sealed.h - a bundle's sealed evidence of private findings, filed
 * by `crs-ci publish` as draft security advisories
 *
 * The files are hostile (a fork can forge them): only CMS PEM armour is
 * accepted, and every other word of an advisory is crs-ci's own.
 */
#ifndef CRS_RUNNER_REPORT_BUNDLE_SEALED_H
#define CRS_RUNNER_REPORT_BUNDLE_SEALED_H

#include <stddef.h>

struct github_env;

#define BUNDLE_SEALED_DIR "private"
#define BUNDLE_SEALED_MAX 5		/* advisories one publish files */
#define BUNDLE_SEALED_PR_MAX 3		/* drafts of one pull request, ever */
#define BUNDLE_SEALED_ENTRIES 64	/* entries of private/ looked at */
#define BUNDLE_SEALED_FILE_MAX ((size_t)64 << 10)	/* bytes, one file */
#define BUNDLE_SEALED_TOKEN_ENV "CRS_CI_ADVISORY_TOKEN"

/* One finding's sealed files as read: PEM text, checked. */
struct bundle_sealed {
	unsigned n;		/* the N of finding-N.*.cms */
	char *details;		/* finding-N.md.cms */
	char *pov;		/* finding-N.pov.cms, or NULL */
	char id[17];		/* finding-N.id: 16 hex digits, or "" */
};

struct bundle_sealed_set {
	struct bundle_sealed items[BUNDLE_SEALED_MAX];
	size_t nr;
	size_t refused;		/* entries passed over, each logged */
};

/*
 * Read DIR/private/ through a directory descriptor, never following a
 * link: names finding-N.md.cms and finding-N.pov.cms (N from 1 to 999),
 * regular files of at most BUNDLE_SEALED_FILE_MAX bytes holding one CMS
 * PEM block and nothing else, and finding-N.id (16 hex digits, the
 * finding's id); at most BUNDLE_SEALED_MAX findings. Anything
 * else is passed over with a message. No folder: 0 and nothing read.
 * 0, or CRS_EINPUT when private/ is there but not a folder.
 */
int bundle_sealed_read(struct bundle_sealed_set *out, const char *dir);
void bundle_sealed_release(struct bundle_sealed_set *s);

/*
 * File one draft security advisory per finding of `s` on env->repository
 * with the token in BUNDLE_SEALED_TOKEN_ENV (the workflow's token cannot):
 * a summary and text written here (pull request `pr_number`), the sealed
 * details and the sealed PoV when they fit GitHub's 65,535 characters.
 * The repository's drafts are read first: a finding whose id a draft
 * names already is not filed again (another run, another pull request),
 * and no pull request gets more than BUNDLE_SEALED_PR_MAX drafts in all.
 * Without the token, says so once. *made counts the advisories made. A
 * refusal is a warning; returns 0.
 */
int bundle_sealed_file(const struct bundle_sealed_set *s,
		       const struct github_env *env, long pr_number,
		       size_t *made, long timeout_ms);

#endif
