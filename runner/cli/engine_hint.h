/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_hint.h - what to tell a user whose container engine does not answer
 *
 * One wording for every command that meets an unreachable engine: how to
 * start it, or how to point crs-ci at one that runs.
 */
#ifndef CRS_RUNNER_CLI_ENGINE_HINT_H
#define CRS_RUNNER_CLI_ENGINE_HINT_H

/* "start it (...), or set DOCKER_HOST to ...": a static string. */
const char *engine_hint_start(void);

#endif
