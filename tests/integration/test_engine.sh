#!/usr/bin/env bash
# test_engine.sh - the Docker Engine client against the real engine
# (tests/integration/test_engine.c, built by `make integration`).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$ROOT/build/itests/test_engine"
