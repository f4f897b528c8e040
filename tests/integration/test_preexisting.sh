#!/usr/bin/env bash
# test_preexisting.sh - a change that does not touch an existing bug:
# the bug is still found and proved, labelled pre-existing (SARIF
# baselineState "unchanged"), and the change passes (exit 0) under the
# default --fail-on new; with --fail-on any the same scan fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# a follow-up change on top of the buggy commit that only edits a comment
git -C "$tmp/repo" -c user.name=t -c user.email=t@example.invalid \
	checkout -q -b follow-up "$head"
sed -i '1s|^|/* follow-up: comment only */\n|' "$tmp/repo/src/recparse.h"
git -C "$tmp/repo" -c user.name=t -c user.email=t@example.invalid \
	commit -qam "docs: comment only"
scan() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$head" --head follow-up \
		--harness fuzz_records --timeout 10m \
		--work-dir "$tmp/work" --out "$tmp/out" "$@"
}
set +e
scan >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 0"; }
grep -q "\[pre-existing\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "not labelled pre-existing"
python3 - "$tmp/out/results.sarif" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
assert r["properties"]["novelty"] == "pre-existing", r["properties"]
assert r["baselineState"] == "unchanged", r
assert r["properties"]["inChange"] is False, r["properties"]
PY
set +e
"$CRS_CI" report --out "$tmp/out" --fail-on any >/dev/null 2>&1
code=$?
set -e
[ "$code" -eq 1 ] || fail "report --fail-on any: exit $code, want 1"
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "pre-existing bug reported, change passes; --fail-on any fails it"
