#!/usr/bin/env bash
# test_ci_configs.sh - the GitHub Action, its example workflows and
# crs-ci's own workflows (.github/workflows/: ci, release) pass
# @action-validator/cli (GitHub's action.yml and workflow schemas).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
shopt -s nullglob
files=(actions/action.yml actions/examples/*.yml .github/workflows/*.yml)
for want in .github/workflows/ci.yml .github/workflows/release.yml; do
	[ -f "$want" ] || fail "$want is missing"
done
for f in "${files[@]}"; do
	out=$(npx --yes @action-validator/cli "$f" 2>&1) || fail "$f: $out"
	note "$f: valid"
done
