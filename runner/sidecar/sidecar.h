/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar.h - crs-ci's builder sidecar: requests that travel as files
 *
 * The mailbox layout; entries are hostile: no links followed,
 * regular files within caps, ids of [A-Za-z0-9._-].
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_SIDECAR_SIDECAR_H
#define CRS_RUNNER_SIDECAR_SIDECAR_H

#include "common/buf.h"

#include <stddef.h>
#include <sys/types.h>

struct scan;

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

#ifdef UNIT_TESTS
/* 1 when `name` may be a request id (or a harness name), else 0. */
int sidecar_name_ok(const char *name, size_t max);

/*
 * Parse the `len` bytes of a request.txt (`text`, not NUL-terminated) of
 * request `id` into *rq (initialised here; release it even on failure):
 * kind, harness, rebuild_id and builder_name, no payload. CRS_EINPUT
 * naming the problem when the text is refused.
 */
int sidecar_request_parse(struct sidecar_request *rq, const char *id,
			  const char *text, size_t len);
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

struct sidecar;

/*
 * The sidecar of the run s->state.run_id: creates every CRS's MAILBOX
 * (requests/, responses/) and REBUILD_OUT_DIR/<crs>/.
 */
int sidecar_new(struct sidecar **out, struct scan *s);

/*
 * Called by the run loop every tick. Each CRS has its own worker thread:
 * join a CRS's worker when its job ended, then, when that CRS has none
 * running, answer its refused requests at once and start its worker on
 * its first valid new request (one job at a time per CRS; different
 * CRSs' jobs run side by side). Each call looks at most at
 * SIDECAR_TICK_* entries of each mailbox, going on where the last call
 * stopped, so a flooded mailbox never holds the run loop (its deadline
 * and Ctrl-C checks) for long. Each worker runs on a copy of the scan
 * whose Ctrl-C flag is its own, so sidecar_stop() ends it. Returns 0, or
 * CRS_EINTR when the scan was interrupted, or CRS_ERR when no thread
 * could be started.
 */
int sidecar_poll(struct sidecar *sc);

/*
 * Stop every CRS's running job, if any, and join their threads: each
 * job's container is killed and removed (container_run), its request
 * answered with retcode 1. Call it when the harness's run ends (time
 * share, deadline, Ctrl-C).
 */
void sidecar_stop(struct sidecar *sc);

/* How many requests were answered so far. */
unsigned sidecar_answered(struct sidecar *sc);

void sidecar_free(struct sidecar *sc);

#endif
