#!/usr/bin/env bash
# test_ci_configs.sh - the GitHub Action and every example workflow pass
# @action-validator/cli (GitHub's action.yml and workflow schemas).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
for f in actions/action.yml actions/examples/*.yml; do
	out=$(npx --yes @action-validator/cli "$f" 2>&1) || fail "$f: $out"
	note "$f: valid"
done
