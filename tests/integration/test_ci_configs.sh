#!/usr/bin/env bash
# test_ci_configs.sh - the GitHub Action, its example workflows and
# crs-ci's own workflows (.github/workflows/: ci, release) pass
# @action-validator/cli (GitHub's action.yml and workflow schemas), and
# the action's scan step turns its inputs into crs-ci scan options.
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

# The scan step turns the inputs into crs-ci options: run it with a fake
# crs-ci that records its arguments.
mktemp_dir; tmp=$TMP
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "$ARGS_LOG"\n' > "$tmp/bin/crs-ci"
chmod +x "$tmp/bin/crs-ci"
action_step scan > "$tmp/scan.sh"
scan_step() {	# NAME VAR=VALUE...: the scan step with these inputs
	local name=$1
	shift
	: > "$tmp/$name.out"
	env PATH="$tmp/bin:$PATH" ARGS_LOG="$tmp/$name.args" \
		COMPOSE=c.yaml PROJECT="" SOURCE=. TIMEOUT=15m FAIL_ON=new \
		HARNESSES="" ALLOW_ENV="" BASE="" HEAD=h CACHE_DIR=cache \
		WORK_DIR=/runner/crs-ci-work OUT_DIR=/runner/crs-ci-out \
		FORK=false GITHUB_OUTPUT="$tmp/$name.out" "$@" \
		bash "$tmp/scan.sh" >"$tmp/$name.log" 2>&1 || true
}
scan_step defaults SANITIZER="" CATEGORY="" FUZZ_SECONDS="" \
	REPORT_TIMEOUTS=true REPORT_OOMS=true
for o in --sanitizer --sarif-category --fuzz-seconds --report-timeouts --report-ooms; do
	! grep -qx -- "$o" "$tmp/defaults.args" || fail "defaults: $o passed"
done
grep -qx "artifact=crs-ci-results" "$tmp/defaults.out" || fail "defaults: artifact name"
tr '\n' ' ' < "$tmp/defaults.args" > "$tmp/defaults.line"
for want in "--out /runner/crs-ci-out" "--work-dir /runner/crs-ci-work"; do
	grep -q -- "$want " "$tmp/defaults.line" || fail "defaults: no '$want' in: $(cat "$tmp/defaults.line")"
done
scan_step matrix SANITIZER=undefined CATEGORY=crs-ci-ubsan FUZZ_SECONDS=600 \
	REPORT_TIMEOUTS=false REPORT_OOMS=false
tr '\n' ' ' < "$tmp/matrix.args" > "$tmp/matrix.line"
for want in "--report-timeouts no" "--report-ooms no" "--sanitizer undefined" \
	"--sarif-category crs-ci-ubsan" "--fuzz-seconds 600"; do
	grep -q -- "$want " "$tmp/matrix.line" || fail "inputs: no '$want' in: $(cat "$tmp/matrix.line")"
done
grep -qx "artifact=crs-ci-crs-ci-ubsan" "$tmp/matrix.out" || fail "inputs: artifact name"
scan_step bad REPORT_OOMS=maybe
grep -qx "exit-code=2" "$tmp/bad.out" || fail "report-ooms: maybe was not refused"
grep -q "report-ooms must be true or false" "$tmp/bad.log" || fail "report-ooms: no message"
note "the scan step passes sanitizer, category, fuzz-seconds and report-* as crs-ci options"
