#!/usr/bin/env bash
# test_fixed_by_change.sh - a change that fixes a known bug: the PoV given
# with --pov crashes the base but not the head, so the scan reports a
# fixed-by-change notice (SARIF level note, baselineState absent) and the
# change passes (exit 0).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
scan() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
		--harness fuzz_records --work-dir "$tmp/work" "$@"
}
# 1. find a PoV of the pull request's bug
set +e
scan --base "$base" --head "$head" --timeout 10m --out "$tmp/out1" >/dev/null 2>&1
code=$?
set -e
[ "$code" -eq 1 ] || fail "finding scan: exit $code, want 1"
pov=$(ls "$tmp/out1/povs/" | head -n1)
[ -n "$pov" ] || fail "no PoV found"
cp "$tmp/out1/povs/$pov" "$tmp/known.pov"
# 2. a fix: revert the pull request's commit on top of it
git -C "$tmp/repo" -c user.name=t -c user.email=t@example.invalid \
	revert --no-edit "$head" >/dev/null
set +e
scan --base "$head" --head HEAD --pov "$tmp/known.pov" --timeout 90s --fuzz-seconds 10 \
	--out "$tmp/out2" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "fix scan: exit $code, want 0"; }
grep -q "\[fixed-by-change\]" "$tmp/verdict.txt" || fail "no fixed-by-change notice"
python3 - "$tmp/out2/results.sarif" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
fixed = [r for r in res if r["properties"].get("novelty") == "fixed-by-change"]
assert len(fixed) == 1, res
assert fixed[0]["level"] == "note", fixed[0]
assert fixed[0]["baselineState"] == "absent", fixed[0]
PY
sarif_validate "$tmp/out2/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "the known PoV crashes base only: fixed-by-change notice, exit 0"
