#!/usr/bin/env bash
# test_pre_commit.sh - the pre-commit framework runs crs-ci's hook: in the
# example repository with .clusterfuzzlite/ and the compose where
# `crs-ci init` puts it, `pre-commit try-repo <crs-ci repo> crs-ci` at the
# push stage, with the range given as pre-commit gives it on a push
# (--from-ref/--to-ref, which it passes on as PRE_COMMIT_FROM_REF and
# PRE_COMMIT_TO_REF), scans the change and fails on the planted
# heap-buffer-overflow. Needs the engine and pre-commit 3.2 or later
# (lib.sh pre_commit_install). crs-ci is found on PATH (language: system).
# The manifest's stage names are current: no deprecation warning.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pre_commit_install
[ -f "$ROOT/.pre-commit-hooks.yaml" ] || fail "no .pre-commit-hooks.yaml"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/repo")"
cd "$tmp/repo"
mkdir .crs-ci
sed "s|local_path: \"\\.\"|local_path: \"$ROOT/container/crs/libfuzzer\"|" \
	"$ROOT/container/crs/libfuzzer/compose.yaml" >.crs-ci/crs-compose.yaml
grep -q "local_path: \"$ROOT" .crs-ci/crs-compose.yaml || fail "compose not made"
git config crs-ci.timeout 180	# the deadline: room for cold builds on a busy host
export PATH="$ROOT/build:$PATH" PRE_COMMIT_HOME="$tmp/pre-commit-home"
set +e
pre-commit try-repo --verbose "$ROOT" crs-ci --hook-stage pre-push \
	--from-ref "$base" --to-ref "$head" >"$tmp/log" 2>&1
code=$?
[ -z "${CLI_DEBUG:-}" ] || cat "$tmp/log" >&2
set -e
[ "$code" -ne 0 ] || { cat "$tmp/log" >&2; fail "the hook passed the buggy change"; }
grep -q "\[new\] Heap-buffer-overflow" "$tmp/log" ||
	{ cat "$tmp/log" >&2; fail "the hook did not report the planted bug"; }
! grep -qi "deprecated" "$tmp/log" ||
	{ cat "$tmp/log" >&2; fail "pre-commit warned about something deprecated"; }
grep -q "project: ClusterFuzzLite folder 'recparse'" "$tmp/log" ||
	{ cat "$tmp/log" >&2; fail ".clusterfuzzlite/ not used"; }
note "pre-commit ($(pre-commit --version)) blocked the change: $(grep -m1 '\[new\]' "$tmp/log" | sed 's/^ *//')"
