#!/usr/bin/env bash
# test_engine_down.sh - with no engine answering, scan exits 3 and says so,
# and what to do: start the engine or set DOCKER_HOST.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
set +e
msg=$(DOCKER_HOST=unix:///nonexistent/docker.sock "$CRS_CI" scan \
	--compose container/crs/libfuzzer/compose.yaml \
	--project examples/projects/recparse --source . 2>&1)
code=$?
set -e
[ "$code" -eq 3 ] || fail "exit $code, want 3: $msg"
grep -q "engine unreachable at unix:///nonexistent/docker.sock" <<<"$msg" \
	|| fail "message does not say the engine is unreachable: $msg"
# and the next step: start it, or point DOCKER_HOST at one that runs
grep -q "start the engine (sudo systemctl start docker, or run dockerd) or set DOCKER_HOST" <<<"$msg" \
	|| fail "message does not say how to start the engine: $msg"
note "$msg"
