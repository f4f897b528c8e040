#!/usr/bin/env bash
# test_scenario_refactor.sh - issue 3, scenario 2: a refactor of code that
# fuzz_records runs (tests/fixtures/delta/refactor) introduces no bug.
# The scan fuzzes it for its whole time share (20 s, --fuzz-seconds) and
# passes: exit 0, verdict PASS, no PoV, no finding, a results.sarif with
# zero results that validates, and no container or network left behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
base='' head=''
eval "$("$ROOT/tests/fixtures/delta/make-scenario.sh" refactor "$tmp/repo")"
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 90s --fuzz-seconds 20 \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 0"; }
grep -q "^verdict: PASS" "$tmp/verdict.txt" || fail "no PASS verdict"
grep -q " 0 finding(s), 0 failing" "$tmp/verdict.txt" || fail "findings reported"
# the harness was really fuzzed, until its time share ran out
grep -q "run fuzz_records: time share of [0-9]*s used" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "fuzz_records was not fuzzed for its time share"; }
python3 - "$tmp/out/results.sarif" "$tmp/out/results.json" "$base" "$head" <<'PY'
import json, sys
sarif = json.load(open(sys.argv[1]))
run = sarif["runs"][0]
assert run["results"] == [], run["results"]
assert run["invocations"][0]["executionSuccessful"] is True, run["invocations"]
res = json.load(open(sys.argv[2]))
s = res["summary"]
assert res["findings"] == [], res["findings"]
assert s["mode"] == "delta", s
assert s["base"] == sys.argv[3] and s["head"] == sys.argv[4], s
assert s["harnesses"] == ["fuzz_records"], s
assert s["povs_submitted"] == 0 and s["povs_not_reproduced"] == 0, s
assert s["timed_out"] is False, s
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt"; fail "SARIF does not validate"; }
grep -q "Analysis completed successfully" "$tmp/validate.txt" ||
	fail "validator: $(cat "$tmp/validate.txt")"
# nothing of this scan is left on the (shared) engine: its owner label is
# crs-ci-<the run id's second part>
for run in "$tmp/work/runs"/*; do
	owner="crs-ci-${run##*-}"
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner";
	       docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind"
done
note "refactor: fuzzed for its share, no finding, exit 0, empty SARIF validates"
