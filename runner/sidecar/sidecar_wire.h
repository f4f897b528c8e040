/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_wire.h - reading a mailbox request, writing its response
 */
#ifndef CRS_RUNNER_SIDECAR_SIDECAR_WIRE_H
#define CRS_RUNNER_SIDECAR_SIDECAR_WIRE_H

#include <stddef.h>

#include "common/buf.h"

#define SIDECAR_ID_MAX 96		/* bytes of a request id */
#define SIDECAR_REQUEST_MAX 4096	/* bytes of request.txt */
#define SIDECAR_PATCH_MAX (1u << 20)	/* bytes of a patch */
#define SIDECAR_POV_MAX (16u << 20)	/* bytes of a PoV */
#define SIDECAR_HARNESS_MAX 128

/* Floods: what one sidecar_poll() does at most for each CRS's mailbox. */
#define SIDECAR_TICK_ENTRIES 4096	/* mailbox entries looked at */
#define SIDECAR_TICK_REFUSALS 64	/* requests refused */
/* Per CRS and run: past it the CRS's mailbox is no longer read. */
#define SIDECAR_REFUSED_MAX 10000	/* requests refused */
#define SIDECAR_WARN_MAX 10		/* refusals logged, then one line */

enum sidecar_kind {
	SIDECAR_BUILD,		/* apply-patch-build */
	SIDECAR_POV,		/* run-pov */
	SIDECAR_TEST,		/* apply-patch-test */
	SIDECAR_PROJECT,	/* build-project */
};

struct sidecar_request {
	enum sidecar_kind kind;
	char harness[SIDECAR_HARNESS_MAX + 1];	/* "" when not given */
	long rebuild_id;			/* -1 when not given */
	char builder[SIDECAR_HARNESS_MAX + 1];	/* builder_name; "": crs-ci's
						 * own build of the head */
	struct buf payload;			/* the patch or the PoV */
	struct buf fuzz_patch;	/* build-project: the fuzz project's diff */
};

struct sidecar_response {
	int retcode;
	const char *out, *err;	/* NUL-terminated; NULL: no file */
	long rebuild_id;	/* written when >= 1 and retcode is 0 */
};

/* 1 when `name` may be a request id (or a harness name), else 0. */
int sidecar_name_ok(const char *name, size_t max);

#ifdef UNIT_TESTS
/*
 * Parse the `len` bytes of a request.txt (`text`, not NUL-terminated) of
 * request `id` into *rq (initialised here; release it even on failure):
 * kind, harness, rebuild_id and builder_name, no payload. CRS_EINPUT
 * naming the problem when the text is refused.
 */
int sidecar_request_parse(struct sidecar_request *rq, const char *id,
			  const char *text, size_t len);
#endif
/*
 * Read request `id` from the requests folder `reqfd` with the rules
 * above into *rq (initialised here; release it even on failure).
 * CRS_EINPUT naming the problem when the request is refused.
 */
int sidecar_request_read(int reqfd, const char *id,
			 struct sidecar_request *rq);
void sidecar_request_release(struct sidecar_request *rq);

/*
 * Write responses/<id>/ into the responses folder `resfd` atomically
 * (hidden folder, then rename). CRS_ERR when it exists already or a
 * write fails.
 */
int sidecar_response_write(int resfd, const char *id,
			   const struct sidecar_response *rs);

#endif
