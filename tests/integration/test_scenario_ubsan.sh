#!/usr/bin/env bash
# test_scenario_ubsan.sh - issue 3, scenario 6 (undefined behaviour): the
# change (tests/fixtures/delta/ubsan) hashes record values in a signed int,
# a signed integer overflow and no memory-safety bug.
#   1. --sanitizer undefined: one `new` Integer-overflow finding in
#      value_hash, located on the line the change added, rule
#      crs-ci/integer-overflow (CWE-190), SARIF validates, exit 1;
#   2. the default sanitizer (address) on the same change, fuzzed 20 s
#      (--fuzz-seconds): nothing, exit 0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
base='' head=''
eval "$("$ROOT/tests/fixtures/delta/make-scenario.sh" ubsan "$tmp/repo")"
scan() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --work-dir "$tmp/work" "$@"
}
# the line the change added that overflows, and every added line
line=$(grep -n 'h = 31 \* h + v\[i\];' "$tmp/repo/src/recparse.c" | cut -d: -f1)
[ -n "$line" ] || fail "fixture: no hash line in src/recparse.c"
git -C "$tmp/repo" diff -U0 "$base" "$head" -- src/recparse.c >"$tmp/change.diff"

set +e
scan --sanitizer undefined --timeout 90s --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Integer-overflow in value_hash at src/recparse.c:$line " \
	"$tmp/verdict.txt" || fail "no new Integer-overflow at line $line"
grep -q "sanitizer undefined" "$tmp/log.txt" || fail "not an undefined build"
python3 - "$tmp/out" "$line" "$tmp/change.diff" <<'PY'
import json, re, sys
out, line = sys.argv[1], int(sys.argv[2])
added = set()
for l in open(sys.argv[3]):
    m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
    if m:
        start, n = int(m.group(1)), int(m.group(2) or 1)
        added.update(range(start, start + n))
assert line in added, (line, sorted(added))
sarif = json.load(open(out + "/results.sarif"))
run = sarif["runs"][0]
assert len(run["results"]) == 1, run["results"]
r = run["results"][0]
assert r["ruleId"] == "crs-ci/integer-overflow", r["ruleId"]
rule = run["tool"]["driver"]["rules"][r["ruleIndex"]]
assert rule["id"] == r["ruleId"], rule
assert "external/cwe/cwe-190" in rule["properties"]["tags"], rule
assert r["level"] == "error", r
assert r["baselineState"] == "new", r
p = r["properties"]
assert p["novelty"] == "new", p
assert p["crashType"] == "Integer-overflow", p
assert p["sanitizer"] == "undefined", p
assert p["inChange"] is True, p
assert p["reproduceRate"] == "5/5", p
assert p["isSecurity"] is False, p
loc = r["locations"][0]
assert loc["physicalLocation"]["artifactLocation"]["uri"] == "src/recparse.c", loc
assert loc["physicalLocation"]["region"]["startLine"] == line, loc
assert loc["logicalLocations"][0]["name"] == "value_hash", loc
rel = [x for x in r.get("relatedLocations", [])
       if x["physicalLocation"]["region"]["startLine"] == line]
assert rel, r.get("relatedLocations")
res = json.load(open(out + "/results.json"))
assert len(res["findings"]) == 1, res["findings"]
f = res["findings"][0]
assert f["kind"] == "undefined-behavior", f
assert f["crash_type"] == "Integer-overflow", f
assert f["sanitizer"] == "undefined", f
assert (f["file"], f["line"], f["function"]) == ("src/recparse.c", line, "value_hash"), f
assert "signed integer overflow" in f["description"], f["description"]
assert f["novelty"] == "new" and f["in_change"] is True, f
rep = open(out + "/" + f["report_path"]).read()
assert "runtime error: signed integer overflow" in rep, rep[:2000]
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt"; fail "SARIF does not validate"; }
grep -q "Analysis completed successfully" "$tmp/validate.txt" ||
	fail "validator: $(cat "$tmp/validate.txt")"
note "undefined: new Integer-overflow at src/recparse.c:$line, exit 1"

# the same change under ASan: no memory-safety bug to find
set +e
scan --timeout 75s --fuzz-seconds 20 --out "$tmp/out-asan" >"$tmp/verdict-asan.txt" \
	2>"$tmp/log-asan.txt"
code=$?
set -e
cat "$tmp/verdict-asan.txt" >&2
[ "$code" -eq 0 ] || { cat "$tmp/log-asan.txt" >&2; fail "address scan: exit $code, want 0"; }
grep -q "sanitizer address" "$tmp/log-asan.txt" || fail "not an address build"
grep -q "run fuzz_records: time share of [0-9]*s used" "$tmp/log-asan.txt" ||
	{ cat "$tmp/log-asan.txt" >&2; fail "address scan did not fuzz its share"; }
python3 - "$tmp/out-asan/results.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
assert res["findings"] == [], res["findings"]
assert res["summary"]["povs_submitted"] == 0, res["summary"]
PY
for run in "$tmp/work/runs"/*; do
	owner="crs-ci-${run##*-}"
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner";
	       docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind"
done
note "address: no finding, exit 0 (the bug is undefined behaviour only)"
