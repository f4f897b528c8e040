#!/usr/bin/env bash
# test_parallel_builds.sh - build-target runs its builds side by side and
# the first failure stops the others (issue 13). The project's build.sh
# sleeps 600 s (head, base and coverage builds alike) while the CRS
# crs-failing-build's build step fails at once (exit 7). Asserts: the scan
# ends with exit 3 and that build step's error (its exit code and log
# tail), not the sleeping builds'; the head build was started before the
# step failed (so they ran side by side) and was stopped; no container
# of the scan's builds is left (by crs-ci's owner label and the images
# only this test uses). Then Ctrl-C while the head and base builds run:
# exit 130, and none of their containers left. Run one after another, the builds would wait out
# the 600 s sleep first, and the outer `timeout` fails the test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
proj=$tmp/projects/parbuild-slow
mkdir -p "$proj"
cp "$ROOT/examples/projects/recparse/Dockerfile" \
	"$ROOT/examples/projects/recparse/project.yaml" "$proj/"
printf '#!/bin/bash -eu\necho "slow build: sleeping"\nsleep 600\n' >"$proj/build.sh"
chmod 0755 "$proj/build.sh"
python3 - "$ROOT/tests/fixtures/crs-failing-build/compose.yaml" "$tmp/compose.yaml" <<'PY'
import os, sys, yaml
src, dst = sys.argv[1:]
c = yaml.safe_load(open(src))
s = c["crs-failing-build"]["source"]
s["local_path"] = os.path.normpath(os.path.join(os.path.dirname(src), s["local_path"]))
yaml.safe_dump(c, open(dst, "w"))
PY
# the containers of this test's builds, by crs-ci's label and image
ours() {
	docker ps -a --filter "label=io.crs-ci.owner" --format '{{.ID}} {{.Image}}' |
		grep -E ' (crs-ci-target/parbuild-slow:|crs-ci-builder/crs-failing-build-)' || true
}
set +e
timeout 150 "$CRS_CI" scan --compose "$tmp/compose.yaml" --project "$proj" \
	--source "$tmp/repo" --base "$base" --head "$head" --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" >/dev/null 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/log.txt" >&2
[ "$code" -ne 124 ] || fail "the scan waited for the sleeping builds"
[ "$code" -eq 3 ] || fail "exit $code, want 3"
grep -q 'build(s) side by side' "$tmp/log.txt" || fail "no parallel builds line"
grep -q 'error: CRS crs-failing-build build step build failed (exit 7' "$tmp/log.txt" ||
	fail "the error is not the failing step's"
grep -q 'planted build step failure' "$tmp/log.txt" || fail "no log tail in the error"
grep -q 'stopping the builds beside it' "$tmp/log.txt" || fail "no stop line"
# the head build ran beside the failing step, and was stopped
grep -q 'slow build: sleeping' "$tmp/work/logs/head-address-build.log" ||
	fail "the head build did not start before the step failed"
if grep -q 'does not build' "$tmp/log.txt"; then
	fail "a stopped build was reported as failing"
fi
left=$(ours)
[ -z "$left" ] || fail "containers of the builds left behind: $left"
note "the failing step stopped the builds beside it"
# Ctrl-C while the builds run side by side: every one is stopped, exit
# 130, none of their containers left
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$proj" --source "$tmp/repo" --base "$base" --head "$head" \
	--timeout 10m --work-dir "$tmp/work2" --out "$tmp/out2" \
	>/dev/null 2>"$tmp/log2.txt" &
pid=$!
running=0
for _ in $(seq 1 120); do
	running=$(ours | wc -l)
	[ "$running" -ge 2 ] && break
	sleep 0.5
done
[ "$running" -ge 2 ] || { kill -INT "$pid"; cat "$tmp/log2.txt" >&2; fail "the builds did not start side by side"; }
kill -INT "$pid"
set +e
wait "$pid"
code=$?
set -e
[ "$code" -eq 130 ] || { cat "$tmp/log2.txt" >&2; fail "Ctrl-C: exit $code, want 130"; }
left=$(ours)
[ -z "$left" ] || fail "containers of the builds left after Ctrl-C: $left"
note "Ctrl-C with $running build container(s) running: exit 130, none left"
