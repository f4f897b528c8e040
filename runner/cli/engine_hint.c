/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_hint.c - what to tell a user whose container engine does not answer
 *
 * The engine is Docker's API at DOCKER_HOST (default the local socket,
 * runner/engine/docker.h); container/setup-host.sh starts one the same
 * two ways this names.
 */
#include "runner/cli/engine_hint.h"

const char *engine_hint_start(void)
{
	return "start the Docker engine (sudo systemctl start docker, or run "
	       "dockerd), or set DOCKER_HOST to an engine that runs";
}
