#!/usr/bin/env bash
# test_diff_scan.sh - `crs-ci scan --diff FILE` (the change as a unified
# diff, no base revision): the PR's bug is proved and the change reaches
# the CRS as diffs/ref.diff, change.json and change.dict, at build time
# and in the run's fetch folder, as in a --base/--head scan.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git -C "$tmp/repo" diff "$base" "$head" >"$tmp/change.diff"
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--diff "$tmp/change.diff" --harness fuzz_records --timeout 3m \
	--work-dir "$tmp/work" --out "$tmp/out" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { tail -n 30 "$tmp/log.txt" >&2; fail "exit $code, want 1 (the PR's bug)"; }
grep -q "Heap-buffer-overflow WRITE .* in parse_extended" "$tmp/verdict.txt" ||
	fail "the verdict lacks the PR's bug: $(cat "$tmp/verdict.txt")"
assert_change_files "$tmp/work" fuzz_records
run_dir=$(ls -d "$tmp"/work/runs/*/ | head -n 1)
for d in "$run_dir/EXCHANGE_DIR/fuzz_records/diffs" "$tmp/work/builds/address/FETCH_DIR/diffs"; do
	cmp -s "$d/ref.diff" "$tmp/change.diff" || fail "$d/ref.diff is not the --diff file"
done
assert_no_leftovers "$tmp/work"
note "--diff scan: $(grep -o 'Heap-buffer-overflow.*' "$tmp/verdict.txt" | head -n 1); change.json names parse_extended"
