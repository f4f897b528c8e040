/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_github.h - a test fake of the GitHub REST API endpoints crs-ci uses
 *
 * An in-process libmicrohttpd server on 127.0.0.1 (any free port) that
 * answers POST /repos/{o}/{r}/code-scanning/sarifs (202 with a receipt),
 * GET /repos/{o}/{r}/code-scanning/sarifs/{id} ("pending" for the first
 * `pending_polls` polls, then "complete", or "failed" with errors) and
 * POST /repos/{o}/{r}/pulls/{n}/reviews (200),
 * POST /repos/{o}/{r}/security-advisories (201 with a draft, 422 for a
 * body GitHub would refuse), and for `crs-ci publish`
 * GET /repos/{o}/{r}/pulls?head=OWNER:BRANCH (the `pulls` list filtered by
 * head.label), GET .../pulls/{n}/files (`files` on page 1, [] after) and
 * POST .../check-runs (201), requiring
 * "Authorization: Bearer <token>" (401 "Bad credentials" otherwise), and
 * records what it was sent. Built once into libtesthelper.a
 * (tests/helper/), linked into the unit tests; the product never ships it.
 * Built alone with -DFAKE_GITHUB_MAIN it is a standalone server that
 * writes the advisory it got to a file when it stops (integration tests).
 */
#ifndef CRS_TESTS_FAKES_FAKE_GITHUB_H
#define CRS_TESTS_FAKES_FAKE_GITHUB_H

#include "tests/helper/mhd_fake.h"

#include <jansson.h>
#include <pthread.h>

/* The id the fake gives every uploaded SARIF. */
#define FAKE_SARIF_ID "47177e22-5596-11eb-80a1-c1e54ef945c6"


struct fake_github {
	struct MHD_Daemon *d;
	struct mhd_fake_route route;
	unsigned port;
	pthread_mutex_t lock;

	/* behaviour: set before requests arrive */
	const char *token;	/* required bearer token */
	int pending_polls;	/* polls answered "pending" first */
	int fail_processing;	/* then "failed" instead of "complete" */
	int upload_status;	/* 0: 202; else that status with a message */
	const char *pulls;	/* JSON array of pull requests, or NULL */
	const char *files;	/* JSON array: the files of each of them */

	/* records: read after the requests finished */
	int requests;
	int uploads, polls, reviews, check_runs, lookups, advisories;
	char *upload_body;	/* last upload's JSON body */
	char *upload_path;
	char *review_body;	/* last review's JSON body */
	char *review_path;
	char *check_run_body;	/* last check run's JSON body */
	struct fake_github_req {	/* every request, in order */
		char *method, *url, *body;	/* url with ?head= if given */
		unsigned status;
	} *reqs;
	int nr_reqs;
	json_t *drafts;		/* the advisories made, newest first:
				 * GET security-advisories lists them */
	char *advisory_body;	/* last security advisory's JSON body */
	char *advisory_path;
	char *last_auth;	/* last Authorization header */
	char *last_accept;	/* last Accept header */
	char *last_api_version;	/* last X-GitHub-Api-Version header */
};

/* Start on 127.0.0.1; 0 or -1. */
int fake_github_start(struct fake_github **out, const char *token);
/* Stop and free. Accepts NULL. */
void fake_github_stop(struct fake_github *f);

#endif
