/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reaper.h - what is left when crs-ci dies, and who removes it
 *
 * Every container and network carries its owner process; a watchdog
 * and the reaper remove what a killed crs-ci left, never a live
 * owner's or one they cannot check.
 *
 * Details: docs/crs-authors.md ("When crs-ci dies"); design notes:
 * docs/internals.md.
 */
#ifndef CRS_RUNNER_ENGINE_REAPER_H
#define CRS_RUNNER_ENGINE_REAPER_H

#include <time.h>

struct docker_client;
struct strvec;

#define REAPER_PIDNS_LABEL "io.crs-ci.pid-ns"
#define REAPER_PID_LABEL "io.crs-ci.pid"
#define REAPER_START_LABEL "io.crs-ci.pid-start"
#define REAPER_DEADLINE_LABEL "io.crs-ci.deadline"
/* On the gateway container: the folder of its key files. */
#define REAPER_KEYS_LABEL "io.crs-ci.keys"

/* What a container may outlive its own time limit by before the watchdog
 * kills it. */
#define REAPER_DEADLINE_GRACE_S 120

/*
 * Append the identity labels of this process (pid namespace, pid, start
 * time) and, when `deadline` is non-zero, the deadline (seconds since the
 * epoch). Cannot fail: a value it cannot read is left out, and an object
 * without it is never reaped by another process.
 */
void reaper_labels(struct strvec *labels, time_t deadline);

/*
 * Remove every container, LLM key folder and network whose owner process
 * is gone (see above). Logs what it removed; errors are logged, not
 * returned: a stale container must not stop a new scan.
 */
void reaper_reap_dead(struct docker_client *d);

/*
 * Start the watchdog of `owner` (the scan's CRS_CI_LABEL value); it logs
 * to `log_path` ("watchdog <pid> for <owner>" first). CRS_ERR when it
 * cannot be started. *out is the caller's: reaper_watchdog_stop().
 */
struct reaper_watchdog;
int reaper_watchdog_start(struct reaper_watchdog **out, const char *owner,
			  const char *log_path);
/* With `cleaned` the command removed its objects itself and the watchdog
 * exits without removing anything; without, the watchdog removes them
 * (retrying while the engine is away). Frees `w`; accepts NULL. */
void reaper_watchdog_stop(struct reaper_watchdog *w, int cleaned);

#endif
