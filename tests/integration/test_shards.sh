#!/usr/bin/env bash
# test_shards.sh - a sharded scan equals the unsharded one: the example
# scanned with two harnesses, then as shards 1/2 and 2/2; `crs-ci merge`
# of the shards proves the same findings (by id) as the single scan, its
# SARIF validates, and the plan and the shards split the harnesses the
# same way.
# Compares crs-ci's containers and networks on the engine before and
# after (engine_snapshot --crs-ci): other scripts may run beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
scan() {	# scan OUT [extra options...]
	local out=$1; shift
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --harness fuzz_text --timeout 60s --fuzz-seconds 20 \
		--work-dir "$tmp/work" --out "$out" "$@"
}
ids() {	# sorted finding ids of a results.json
	python3 -c 'import json,sys
print("\n".join(sorted(f["id"] for f in json.load(open(sys.argv[1]))["findings"])))' "$1"
}
before=$(engine_snapshot --crs-ci)

# the plan: two harnesses, two shards, one each (sorted, round-robin)
plan=$("$CRS_CI" plan --harness fuzz_text --harness fuzz_records --shards 2)
[ "$plan" = '{"include":[{"shard":"1/2","harnesses":"fuzz_records"},{"shard":"2/2","harnesses":"fuzz_text"}]}' ] \
	|| fail "plan: $plan"

set +e
scan "$tmp/whole" >"$tmp/whole.txt" 2>"$tmp/whole.log"; code=$?
set -e
[ "$code" -le 1 ] || { cat "$tmp/whole.log" >&2; fail "unsharded scan: exit $code"; }
for i in 1 2; do
	set +e
	scan "$tmp/shard$i" --shard "$i/2" >"$tmp/shard$i.txt" 2>"$tmp/shard$i.log"; code=$?
	set -e
	[ "$code" -le 1 ] || { cat "$tmp/shard$i.log" >&2; fail "shard $i/2: exit $code"; }
done
grep -q "shard 1/2: 1 of 2 selected harness(es): fuzz_records" "$tmp/shard1.log" \
	|| { cat "$tmp/shard1.log" >&2; fail "shard 1/2 did not keep fuzz_records alone"; }
grep -q "shard 2/2: 1 of 2 selected harness(es): fuzz_text" "$tmp/shard2.log" \
	|| { cat "$tmp/shard2.log" >&2; fail "shard 2/2 did not keep fuzz_text alone"; }
python3 - "$tmp/shard1/results.json" "$tmp/shard2/results.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["summary"]["harnesses"]
b = json.load(open(sys.argv[2]))["summary"]["harnesses"]
assert a == ["fuzz_records"], a
assert b == ["fuzz_text"], b
PY

set +e
"$CRS_CI" merge --out "$tmp/merged" "$tmp/shard1" "$tmp/shard2" >"$tmp/merged.txt" 2>"$tmp/merged.log"
code=$?
set -e
cat "$tmp/merged.txt" >&2
[ "$code" -le 1 ] || { cat "$tmp/merged.log" >&2; fail "merge: exit $code"; }
grep -q "^verdict: " "$tmp/merged.txt" || fail "merge printed no verdict"
whole=$(ids "$tmp/whole/results.json")
merged=$(ids "$tmp/merged/results.json")
[ -n "$whole" ] || fail "the unsharded scan found nothing (the example's bug)"
[ "$whole" = "$merged" ] || fail "merged ids differ: unsharded [$whole] merged [$merged]"
note "merged findings equal the unsharded scan's: $(echo $whole)"
# the exit status follows the merged result like the unsharded one
whole_verdict=$(grep "^verdict: " "$tmp/whole.txt")
[ "$(grep "^verdict: " "$tmp/merged.txt")" = "$whole_verdict" ] || fail "verdicts differ"
python3 - "$tmp/merged" <<'PY'
import json, os, sys
out = sys.argv[1]
res = json.load(open(out + "/results.json"))
assert sorted(res["summary"]["harnesses"]) == ["fuzz_records", "fuzz_text"], res["summary"]
for f in res["findings"]:
    assert os.path.getsize(os.path.join(out, f["pov_path"])) > 0, f["pov_path"]
    if f.get("report_path"):
        assert os.path.isfile(os.path.join(out, f["report_path"])), f["report_path"]
sarif = json.load(open(out + "/results.sarif"))
assert len(sarif["runs"][0]["results"]) == len(res["findings"]), sarif
html = open(out + "/report.html").read()
assert "<script" not in html.lower()
assert "verdict" in html
PY
sarif_validate "$tmp/merged/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt"; fail "merged SARIF does not validate"; }
grep -q "Analysis completed successfully" "$tmp/validate.txt" || fail "validator: $(cat "$tmp/validate.txt")"
[ -s "$tmp/whole/report.html" ] || fail "the report phase wrote no report.html"
engine_unchanged "$before" --crs-ci
note "shards 1/2 and 2/2 merged; SARIF validates; report.html written"
