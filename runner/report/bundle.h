/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle.h - the result bundle an untrusted pull-request job hands over
 *
 * Written by the unprivileged job (bundle.json beside copies of the
 * scan's results), read as hostile input by `crs-ci publish` in the
 * privileged job: strict types, size caps. Format: docs/bundle.md.
 */
#ifndef CRS_RUNNER_REPORT_BUNDLE_H
#define CRS_RUNNER_REPORT_BUNDLE_H

#include "runner/report/suggest.h"

#include <stddef.h>

struct finding_set;

#define BUNDLE_FORMAT "crs-ci-result-bundle"
#define BUNDLE_VERSION 1
#define BUNDLE_FILE "bundle.json"
#define BUNDLE_FILE_MAX ((size_t)4 << 20)	/* bundle.json, bytes */
#define BUNDLE_SUGGESTIONS_MAX 100
#define BUNDLE_REPLACEMENT_MAX ((size_t)16 << 10)	/* one suggestion */
#define BUNDLE_PATH_MAX 1024
#define BUNDLE_NAME_MAX 64	/* a CRS name */

/* What the unprivileged job saw: its pull request and the scan. */
struct bundle_pr {
	long number;
	const char *head_sha, *base_sha;	/* 40 or 64 hex digits */
};

/*
 * Write DIR/bundle.json (atomically) from `fs`: format, version, the
 * pull request `pr`, verdict, counts and one suggestion per validated
 * hunk. 0 or a CRS_E* code naming the path.
 */
int bundle_write(const char *dir, const struct finding_set *fs,
		 const struct bundle_pr *pr);

/* A bundle as read: every string owned, checked and bounded. */
struct bundle {
	long pr_number;
	char head_sha[65], base_sha[65];
	char verdict[16];	/* "pass", "fail", "incomplete" */
	long findings, new_findings;
	struct patch_suggestions sg;	/* message written by crs-ci */
	size_t dropped;		/* suggestions cut for a bad field */
};

/*
 * Read DIR/bundle.json without following a link: at most
 * BUNDLE_FILE_MAX bytes, JSON with the fields above of the right types
 * (CRS_EINPUT naming the field otherwise: the whole bundle is refused). A
 * suggestion with a bad or oversized field is dropped and logged (counted
 * in `dropped`); the message of each kept one is written here from its
 * patch's hash and CRS name, never taken from the bundle.
 */
int bundle_read(struct bundle *out, const char *dir);
void bundle_release(struct bundle *b);

#endif
