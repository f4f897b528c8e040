#!/usr/bin/env bash
# test_forged_base.sh - a pull request cannot supply the "base" build
# (issue 21, item 3). The base commit is known in advance, so a work
# folder can hold, before the scan, source/<base>/.src-complete and a
# src/ tree of the pull request's choosing: here the PR's own buggy tree
# placed as the base. crs-ci exports the base itself into a fresh folder
# (the planted marker means nothing), so the demo's bug is still "new",
# not "pre-existing"; and with --cache-dir the cache keeps no forged base
# build: a second scan in a fresh work folder with the same cache restores
# the honest base build and still labels the bug new.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# the work folder lies outside the checkout, seeded as a PR would
forged=$tmp/work/source/$base
mkdir -p "$forged/src"
git -C "$tmp/repo" archive "$head" | tar -x -C "$forged/src"
: >"$forged/.src-complete"
grep -q 'RP' "$forged/src/src/recparse.c" || fail "the forged tree is not the PR's"
# scan N: the demo PR scanned with the cache; the bug must be new
scan() {
	scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m --cache-dir "$tmp/cache"
	cp "$tmp/log.txt" "$tmp/log$1.txt"
	grep -q '\[new\] Heap-buffer-overflow' "$tmp/verdict.txt" ||
		fail "scan $1: the bug is not labelled new"
	python3 - "$tmp/out/results.json" <<'PY' || fail "scan $1: the finding is not new"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
PY
}
scan 1
grep -q 'base build: compiling' "$tmp/log1.txt" || fail "scan 1 did not compile the base"
[ ! -e "$forged/.src-complete" ] || fail "the planted marker is still there"
cmp -s "$forged/src/src/recparse.c" <(git -C "$tmp/repo" show "$base:src/recparse.c") ||
	fail "the base folder does not hold the base's tree"
# a fresh work folder, the same cache
rm -rf "$tmp/work" "$tmp/out"
scan 2
grep -q 'base build: restored from the cache' "$tmp/log2.txt" ||
	fail "scan 2 did not restore the base build kept by scan 1"
note "a planted base tree is never built; the cache keeps the honest base build"
