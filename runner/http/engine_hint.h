/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_hint.h - the next step when no container engine answers
 *
 * One text for every place that finds the engine unreachable (the engine
 * client, the pre-push hook): start the engine, or point DOCKER_HOST at
 * one that runs.
 */
#ifndef CRS_RUNNER_HTTP_ENGINE_HINT_H
#define CRS_RUNNER_HTTP_ENGINE_HINT_H

/*
 * "start the engine (...) or set DOCKER_HOST ..." without a leading
 * capital or a final stop, to follow "; " in a message. Static; cannot
 * fail.
 */
const char *engine_start_hint(void);

#endif
