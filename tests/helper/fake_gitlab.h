/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_gitlab.h - a test fake of GitLab's merge-request REST API
 *
 * An in-process libmicrohttpd server on 127.0.0.1 (any free port) serving
 * /api/v4/projects/:id/merge_requests/:iid/versions (GET: two versions,
 * newest first, with the shas below), .../resource_label_events (GET:
 * fixed events, fake_gitlab.c says which) and .../discussions (POST: 201 with
 * a discussion, after checking the body is JSON with a "body" and a
 * "position" whose shas are the newest version's), and
 * /api/v4/projects/:id/issues (POST: 201 with the issue, echoing its
 * "confidential"; 400 without a "title"). Other project ids or
 * iids answer 404, a PRIVATE-TOKEN other than `token` answers 401 with
 * GitLab's {"message":"401 Unauthorized"}. It records every request.
 * Built once into libtesthelper.a (tests/helper/), linked into the
 * unit tests; the product never ships it.
 * Built alone with -DFAKE_GITLAB_MAIN it is a standalone server that
 * writes what it got to a file when it stops (integration tests).
 */
#ifndef CRS_TESTS_FAKES_FAKE_GITLAB_H
#define CRS_TESTS_FAKES_FAKE_GITLAB_H

#include "tests/helper/mhd_fake.h"

#include <pthread.h>


#define FAKE_GITLAB_BASE "1111111111111111111111111111111111111111"
#define FAKE_GITLAB_START "2222222222222222222222222222222222222222"
#define FAKE_GITLAB_HEAD "3333333333333333333333333333333333333333"
#define FAKE_GITLAB_OLD_HEAD "4444444444444444444444444444444444444444"
#define FAKE_GITLAB_MAX_REQ 16

struct fake_gitlab_req {
	char method[8];
	char url[256];
	char token[128];	/* PRIVATE-TOKEN as received */
	char content_type[64];
	char *body;		/* NUL-terminated, or NULL */
	unsigned status;	/* what the fake answered */
};

struct fake_gitlab {
	struct MHD_Daemon *d;
	struct mhd_fake_route route;
	unsigned port;
	char api_url[64];	/* "http://127.0.0.1:PORT/api/v4" */
	const char *token;	/* required PRIVATE-TOKEN */
	const char *project_id;	/* served project, "42" */
	const char *mr_iid;	/* served MR, "7" */
	pthread_mutex_t lock;
	struct fake_gitlab_req reqs[FAKE_GITLAB_MAX_REQ];
	int nr_reqs;
};

/* Start on 127.0.0.1:0. 0, or -1 (cannot listen). */
int fake_gitlab_start(struct fake_gitlab **out, const char *token,
		      const char *project_id, const char *mr_iid);
/* Stop and free. Accepts NULL. */
void fake_gitlab_stop(struct fake_gitlab *f);

#endif
