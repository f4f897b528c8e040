#!/usr/bin/env bash
# test_work_dir_reuse.sh - a work folder kept across scans of different
# projects (what the pre-push hook and any local loop do) hands no scan
# another project's build (issue 21, item 5). Project A is the recparse
# demo; project B is the same library built by another project folder
# ("otherlib") whose build.sh names its harnesses other_*. Scanning A,
# then B, then A again in one work folder: the third scan compiles A
# again (out/ holds B's build, and its record says so), fuzzes A's
# fuzz_records and finds A's own bug, labelled new.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
projb=$tmp/projects/otherlib
mkdir -p "$projb"
cp "$ROOT/examples/projects/recparse/"* "$projb/"
sed -i 's|-o "\$OUT/\$name"|-o "$OUT/other_$name"|; s|"\$OUT/\${name}_seed_corpus.zip"|"$OUT/other_${name}_seed_corpus.zip"|g' \
	"$projb/build.sh"
grep -q 'other_\$name' "$projb/build.sh" || fail "B's build.sh was not renamed"
# scan N PROJECT HARNESS: a scan of the demo PR in $tmp/work that fails
# (a new finding); its log kept as $tmp/logN.txt, its results as outN/
scan() {
	scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$2" --source "$tmp/repo" --base "$base" --head "$head" \
		--harness "$3" --timeout 10m
	cp "$tmp/log.txt" "$tmp/log$1.txt"
	cp "$tmp/verdict.txt" "$tmp/verdict$1.txt"
	rm -rf "$tmp/out$1" && cp -r "$tmp/out" "$tmp/out$1"
}
# finding N HARNESS: scan N's one finding is the demo's, new, in HARNESS
finding() {
	python3 - "$tmp/out$1/results.json" "$2" <<'PY' || fail "scan $1: not its own finding"
import json, sys
r = json.load(open(sys.argv[1]))
f = r["findings"]
assert len(f) == 1, f
assert f[0]["harness"] == sys.argv[2], f[0]
assert f[0]["function"] == "parse_extended" and f[0]["novelty"] == "new", f[0]
PY
}
scan 1 "$ROOT/examples/projects/recparse" fuzz_records
finding 1 fuzz_records
scan 2 "$projb" other_fuzz_records
finding 2 other_fuzz_records
grep -q 'harnesses in the build: other_fuzz_records' "$tmp/log2.txt" ||
	fail "scan 2 did not build B's harnesses"
scan 3 "$ROOT/examples/projects/recparse" fuzz_records
grep -q '\[new\] Heap-buffer-overflow' "$tmp/verdict3.txt" || fail "scan 3: finding not labelled new"
finding 3 fuzz_records
if grep -q 'head build: reusing .*/builds/address/head/out' "$tmp/log3.txt"; then
	grep 'reusing' "$tmp/log3.txt" >&2
	fail "scan 3 reused B's head build"
fi
grep -q 'head build: compiling recparse' "$tmp/log3.txt" || fail "scan 3 did not compile A's head"
grep -q 'harnesses in the build: fuzz_records' "$tmp/log3.txt" ||
	fail "scan 3 did not find A's harnesses"
if grep -q 'other_' "$tmp/log3.txt"; then
	grep 'other_' "$tmp/log3.txt" >&2
	fail "scan 3 saw B's harnesses"
fi
python3 - "$tmp/work/builds/address/head/build.json" <<'PY' || fail "no record of A's head build"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["project"] == "recparse" and r["sanitizer"] == "address", r
assert len(r["source"]) == 64 and r["image"].startswith("sha256:"), r
PY
note "A, then B, then A in one work folder: the third scan compiled and fuzzed A"
