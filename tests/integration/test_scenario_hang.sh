#!/usr/bin/env bash
# test_scenario_hang.sh - issue 3, scenario 6 (infinite loop): the change
# (tests/fixtures/delta/hang) counts list items with a loop that never
# advances on a 0 length byte. The reference CRS submits libFuzzer's
# timeout- artifact; triage reproduces it at most 3 times (-timeout=10) and
# the base, which has no such loop, does not hang. So: one `new` Timeout
# finding, rule crs-ci/timeout (CWE-835), signature state = the harness (a
# timeout's stack is not its identity), located in count_items on a line
# the change added (the top in-project frame the alarm interrupted), 3/3,
# exit 1 (a new hang fails the change under --fail-on new).
# The deadline is 4 minutes so that builds slowed by run-all.sh -j's other
# script leave the search its time; its CRS exits at the first PoV.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
base='' head=''
eval "$("$ROOT/tests/fixtures/delta/make-scenario.sh" hang "$tmp/repo")"
git -C "$tmp/repo" diff -U0 "$base" "$head" -- src/recparse.c >"$tmp/change.diff"
scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 4m
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Timeout in count_items at src/recparse.c:[0-9]* (a line this change added)" \
	"$tmp/verdict.txt" || fail "no new Timeout in count_items on an added line"
python3 - "$tmp/out" "$tmp/change.diff" <<'PY'
import json, re, sys
out = sys.argv[1]
added = set()
for l in open(sys.argv[2]):
    m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
    if m:
        start, n = int(m.group(1)), int(m.group(2) or 1)
        added.update(range(start, start + n))
sarif = json.load(open(out + "/results.sarif"))
run = sarif["runs"][0]
assert len(run["results"]) == 1, run["results"]
r = run["results"][0]
assert r["ruleId"] == "crs-ci/timeout", r["ruleId"]
rule = run["tool"]["driver"]["rules"][r["ruleIndex"]]
assert "external/cwe/cwe-835" in rule["properties"]["tags"], rule
assert r["level"] == "error", r
assert r["baselineState"] == "new", r
p = r["properties"]
assert p["novelty"] == "new", p
assert p["crashType"] == "Timeout" and p["kind"] == "timeout", p
assert p["crashSignature"] == "Timeout\nfuzz_records", p
assert p["reproduceRate"] == "3/3", p
assert p["inChange"] is True, p
assert p["isSecurity"] is False, p
phys = r["locations"][0]["physicalLocation"]
line = phys["region"]["startLine"]
assert phys["artifactLocation"]["uri"] == "src/recparse.c", phys
assert line in added, (line, sorted(added))
assert r["locations"][0]["logicalLocations"][0]["name"] == "count_items", r
res = json.load(open(out + "/results.json"))
assert len(res["findings"]) == 1, res["findings"]
f = res["findings"][0]
assert (f["reproduced"], f["attempts"]) == (3, 3), f
assert f["function"] == "count_items" and f["line"] == line, f
assert f["novelty"] == "new" and f["in_change"] is True, f
rep = open(out + "/" + f["report_path"]).read()
assert "ERROR: libFuzzer: timeout after" in rep, rep[:2000]
assert "and the timeout value is 10" in rep, rep[:2000]
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt"; fail "SARIF does not validate"; }
grep -q "Analysis completed successfully" "$tmp/validate.txt" ||
	fail "validator: $(cat "$tmp/validate.txt")"
for run in "$tmp/work/runs"/*; do
	owner="crs-ci-${run##*-}"
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner";
	       docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind"
done
note "hang: new Timeout in count_items on an added line, 3/3, exit 1"
