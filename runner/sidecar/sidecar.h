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

#include "runner/sidecar/sidecar_wire.h"

#include <stddef.h>
#include <sys/types.h>

struct scan;

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

/* How many CRSs have a job running now (a rebuild, a PoV run, a test
 * run); 0 for NULL. From the thread that polls. */
unsigned sidecar_busy(struct sidecar *sc);

void sidecar_free(struct sidecar *sc);

#endif
