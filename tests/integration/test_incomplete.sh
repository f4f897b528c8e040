#!/usr/bin/env bash
# test_incomplete.sh - a scan whose deadline cannot give a selected harness
# the fuzzing it is due ends INCOMPLETE, never PASS (issue 14, item 4).
# One CRS (tests/fixtures/crs-sleeper, without its LLM gateway) that finds
# nothing and never exits by itself.
#  1. Two harnesses under the shortest deadline (30 s, of which triage
#     keeps 20 s): neither gets its 10 s minimum ("no time left for
#     harness X", which used to end in PASS with exit 0). Asserts exit 4,
#     INCOMPLETE and both harnesses' reasons in the terminal output and
#     results.json.
#  2. --min-harness-seconds 600 under a 45 s deadline: the up-front warning;
#     exit 4; "verdict: INCOMPLETE" and the harness's reason in the
#     terminal output; results.json's "verdict" and "incomplete" entry
#     (fuzzed < wanted = 600); the SARIF run's properties.verdict and
#     properties.incomplete.
# Both: no container or network of the scan left (by its owner label);
# 2: the SARIF log validates (GitHub and SARIF rules).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
compose_without_llm "$tmp/compose.yaml"
common=(--compose "$tmp/compose.yaml" --project "$ROOT/examples/projects/recparse"
	--source "$tmp/repo" --base "$base" --head "$head" --reproduce 1)

# 1. no time left for either harness
t0=$SECONDS
scan_expect 4 "${common[@]}" --harness fuzz_records --harness fuzz_text \
	--timeout 30s
note "scan 1 took $((SECONDS - t0))s"
grep -q '^verdict: INCOMPLETE$' "$tmp/verdict.txt" || fail "1: no INCOMPLETE verdict"
for h in fuzz_records fuzz_text; do
	grep -q "^  \[incomplete\] harness $h fuzzed 0s of [0-9]*s: no time left before the deadline$" \
		"$tmp/verdict.txt" || fail "1: no reason for $h"
done
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "INCOMPLETE", res["verdict"]
assert sorted(e["harness"] for e in res["incomplete"]) == ["fuzz_records", "fuzz_text"], res["incomplete"]
assert all(e["fuzzed_seconds"] == 0 for e in res["incomplete"]), res["incomplete"]
PY
assert_no_leftovers "$tmp/work"
rm -rf "$tmp/work" "$tmp/out"

# 2. --min-harness-seconds more than the deadline can give
t0=$SECONDS
scan_expect 4 "${common[@]}" --harness fuzz_records --timeout 45s \
	--min-harness-seconds 600
note "scan 2 took $((SECONDS - t0))s"
grep -q '^verdict: INCOMPLETE$' "$tmp/verdict.txt" || fail "no INCOMPLETE verdict"
grep -q 'verdict: PASS' "$tmp/verdict.txt" && fail "PASS printed"
grep -Eq '^  \[incomplete\] harness fuzz_records fuzzed [0-9]+s of 600s: .+' \
	"$tmp/verdict.txt" || fail "no per-harness reason in the terminal output"
grep -q -- '--min-harness-seconds 600 for 1 harness(es) needs 600s and the deadline leaves' "$tmp/log.txt" ||
	fail "no up-front warning that the deadline cannot give 600s"
python3 - "$tmp/out" <<'PY'
import json, sys
out = sys.argv[1]
res = json.load(open(out + "/results.json"))
assert res["verdict"] == "INCOMPLETE", res["verdict"]
assert res["findings"] == [], res["findings"]
inc = res["incomplete"]
assert len(inc) == 1, inc
e = inc[0]
assert e["harness"] == "fuzz_records", e
assert e["wanted_seconds"] == 600, e
assert 0 <= e["fuzzed_seconds"] < 600, e
assert e["reason"], e
sarif = json.load(open(out + "/results.sarif"))
p = sarif["runs"][0]["properties"]
assert p["verdict"] == "INCOMPLETE", p
assert [x["harness"] for x in p["incomplete"]] == ["fuzz_records"], p
assert p["incomplete"][0]["reason"] == e["reason"], p
assert p["incomplete"][0]["wantedSeconds"] == 600, p
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
assert_no_leftovers "$tmp/work"
echo "ok: test_incomplete"
