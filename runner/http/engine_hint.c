/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_hint.c - the next step when no container engine answers
 *
 * The engine is a daemon the user starts (systemd on most hosts), or one
 * elsewhere that DOCKER_HOST names (rootless Docker's socket lives in
 * $XDG_RUNTIME_DIR; a remote engine is tcp://HOST:2376 with TLS).
 */
#include "runner/http/engine_hint.h"

const char *engine_start_hint(void)
{
	return "start the engine (sudo systemctl start docker, or run "
	       "dockerd) or set DOCKER_HOST to one that runs (rootless "
	       "Docker: unix://$XDG_RUNTIME_DIR/docker.sock)";
}
