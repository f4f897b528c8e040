/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reaper.h - what is left when crs-ci dies, and who removes it
 *
 * Every container and network crs-ci creates carries, besides its owner
 * label, who owns it: the pid namespace (boot id and namespace inode),
 * the pid and the process's start time, and a deadline. Two things
 * remove what a crs-ci that died (SIGKILL, the OOM killer) left:
 *
 *  - a watchdog: a small child of every engine-using command, in its own
 *    session, that outlives it. When the command ends without saying
 *    goodbye it removes the scan's containers, networks and LLM key
 *    files; while the command lives it kills any container of the scan
 *    whose deadline label has passed (a container's own deadline);
 *  - the reaper, at the start of every engine-using command: it removes
 *    the containers (and their LLM key files) and networks whose owner
 *    process is provably gone: same pid namespace, and no process with
 *    that pid and start time. An owner it cannot check (another host or
 *    pid namespace, or a crs-ci too old to label its pid) is never
 *    touched, and neither is a live one.
 */
#ifndef CRS_RUNNER_EXEC_REAPER_H
#define CRS_RUNNER_EXEC_REAPER_H

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
