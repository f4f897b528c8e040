#!/usr/bin/env bash
# test_sarif_candidates.sh - --sarif on the real engine: a malformed log
# is refused (exit 2, file and JSON path named) before anything is built;
# a good one reaches the CRSs as bug-candidates/ (build steps and run),
# and after triage the result at the bug's line (src/recparse.c:39) is
# confirmed with the PoV that proved it, the one at line 5 is not; both
# in results.json, the verdict and the SARIF.
# Compares crs-ci's containers and networks on the engine before and
# after (engine_snapshot --crs-ci): other scripts may run beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
scan() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m \
		--work-dir "$tmp/work" --out "$tmp/out" "$@"
}
# a bad log: the scan stops at once, naming the field
cat >"$tmp/bad.sarif" <<'JSON'
{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}},
 "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation":
 {"artifactLocation": {"uri": "src/recparse.c"},
  "region": {"startLine": "39"}}}]}]}]}
JSON
set +e
scan --sarif "$tmp/bad.sarif" >/dev/null 2>"$tmp/bad.txt"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/bad.txt" >&2; fail "bad SARIF: exit $code, want 2"; }
grep -q "bad.sarif: runs\[0\].results\[0\].locations\[0\].physicalLocation.region.startLine: not an integer" "$tmp/bad.txt" ||
	{ cat "$tmp/bad.txt" >&2; fail "bad SARIF: field not named"; }
[ ! -e "$tmp/work/builds" ] || fail "bad SARIF: something was built"
note "a malformed SARIF log is refused before anything is built"
# two candidates: the bug's line, and a line no crash passes
mkdir -p "$tmp/sarif"
cat >"$tmp/sarif/codeql.sarif" <<'JSON'
{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {"name": "CodeQL", "rules": [
      {"id": "cpp/overflow"}, {"id": "cpp/comment"}]}},
    "results": [{
      "ruleId": "cpp/overflow", "level": "error",
      "message": {"text": "memcpy may write past the end of rec->value"},
      "locations": [{"physicalLocation": {
        "artifactLocation": {"uri": "src/recparse.c", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 39, "startColumn": 3}}}]
    }, {
      "ruleId": "cpp/comment",
      "message": {"text": "a claim about the file's comment"},
      "locations": [{"physicalLocation": {
        "artifactLocation": {"uri": "src/recparse.c", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5}}}]
    }]
  }]
}
JSON
before=$(engine_snapshot --crs-ci)
set +e
scan --sarif "$tmp/sarif/codeql.sarif" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
engine_unchanged "$before" --crs-ci
# the CRSs were given the file, under its own name
ls "$tmp"/work/builds/*/FETCH_DIR/bug-candidates/codeql.sarif >/dev/null 2>&1 ||
	fail "codeql.sarif not staged in the build steps' FETCH_DIR"
ls "$tmp"/work/runs/*/EXCHANGE_DIR/fuzz_records/bug-candidates/codeql.sarif >/dev/null 2>&1 ||
	fail "codeql.sarif not staged in the run's EXCHANGE_DIR"
cmp -s "$tmp/sarif/codeql.sarif" "$(ls "$tmp"/work/runs/*/EXCHANGE_DIR/fuzz_records/bug-candidates/codeql.sarif | head -n1)" ||
	fail "staged bug candidate differs from the input"
python3 - "$tmp/out/results.json" "$tmp/out/results.sarif" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
f = res["findings"][0]
assert f["file"] == "src/recparse.c" and f["line"] == 39, f
c = res["candidates"]
assert len(c) == 2, c
a, b = c
assert a["source"] == "codeql.sarif" and a["index"] == 0, a
assert a["rule_id"] == "cpp/overflow" and a["level"] == "error", a
assert a["file"] == "src/recparse.c", a
assert a["start_line"] == 39 and a["end_line"] == 39, a
assert a["status"] == "confirmed", a
assert a["finding_id"] == f["id"], (a, f["id"])
assert a["pov_path"] == f["pov_path"] and a["pov_path"], a
assert b["index"] == 1 and b["start_line"] == 5, b
assert b["status"] == "unconfirmed", b
assert b["finding_id"] is None and b["pov_path"] is None, b
sarif = json.load(open(sys.argv[2]))
r = sarif["runs"][0]["results"][0]
assert r["properties"]["confirmsCandidates"] == ["codeql.sarif#0: cpp/overflow"], r["properties"]
PY
pov=$(python3 -c "import json;print(json.load(open('$tmp/out/results.json'))['candidates'][0]['pov_path'])")
[ -s "$tmp/out/$pov" ] || fail "the confirming PoV $pov is missing"
grep -q "^  \[confirmed\] codeql.sarif#0 cpp/overflow at src/recparse.c:39 by finding .*, PoV $tmp/out/$pov" "$tmp/verdict.txt" ||
	fail "verdict lacks the confirmed candidate"
grep -q "SARIF candidates: 1 confirmed, 1 unconfirmed" "$tmp/verdict.txt" ||
	fail "verdict lacks the unconfirmed count"
if grep -q "codeql.sarif#1" "$tmp/verdict.txt"; then
	fail "the unconfirmed candidate is listed as confirmed"
fi
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt"; fail "SARIF does not validate"; }
note "candidate at src/recparse.c:39 confirmed by PoV $pov; the one at line 5 unconfirmed"
# the report phase alone reads them back from results.json
set +e
"$CRS_CI" report --out "$tmp/out" >"$tmp/verdict2.txt" 2>/dev/null
code=$?
set -e
[ "$code" -eq 1 ] || fail "report: exit $code, want 1"
grep -q "SARIF candidates: 1 confirmed, 1 unconfirmed" "$tmp/verdict2.txt" ||
	fail "report phase lost the candidates"
