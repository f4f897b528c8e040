#!/usr/bin/env bash
# test_select.sh - harness selection on the real engine (issue 3, scenario
# 5; issue 13, item 8): the recparse pull request, scanned WITHOUT
# --harness. The select phase names the changed lines fuzz_records's seed
# corpus executes; fuzz_text's seeds execute none, but its binary links
# recparse.o and so holds the touched rp_parse (its ELF symbols say so):
# it is kept with that reason and a smaller weight, not skipped. The run
# fuzzes the heavier fuzz_records first and the heap-buffer-overflow is
# found (exit 1).
#
# --timeout: fuzz_records finds the bug from its seeds within seconds and
# its CRS stops at the first PoV; the time it leaves unused goes to
# fuzz_text, so the scan runs to about its deadline: 75s leaves
# fuzz_records its share after the builds (about 25 s here).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" --timeout 75s \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
grep "select:" "$tmp/log.txt" >&2 || true
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
# (that line 39, the bug's, is among them: select.json, below)
grep -Eq '^crs-ci: select: fuzz_records: selected: executes [0-9]+ changed line\(s\) in src/recparse\.c \([0-9, -]+\)' "$tmp/log.txt" ||
	fail "fuzz_records not selected with the changed lines it executes"
grep -Eq '^crs-ci: select: fuzz_text: selected: its seed corpus \([0-9]+ input\(s\)\) executes none of the [0-9]+ changed line\(s\), but its binary holds the changed function\(s\) [a-z_, ]*rp_parse' "$tmp/log.txt" ||
	fail "fuzz_text not kept for the changed functions its binary holds"
grep -q '^crs-ci: select: 2 of 2 harness(es) to fuzz' "$tmp/log.txt" ||
	fail "no selection summary"
grep -Eq '^crs-ci: run: harnesses by weight: fuzz_records 60, fuzz_text [0-9.]+$' "$tmp/log.txt" ||
	fail "harnesses not ordered by weight"
grep -q '^crs-ci: run fuzz_records:' "$tmp/log.txt" || fail "fuzz_records was not run"
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "finding not found"
python3 - "$tmp/work" "$tmp/out/results.json" <<'PY'
import glob, json, os, sys
work, results = sys.argv[1], sys.argv[2]
sel = json.load(open(os.path.join(work, "select.json")))
assert sel["mode"] == "coverage", sel["mode"]
assert sel["candidates"] == ["fuzz_records", "fuzz_text"], sel["candidates"]
assert sel["selected"] == ["fuzz_records", "fuzz_text"], sel["selected"]
h = {x["name"]: x for x in sel["harnesses"]}
rec, txt = h["fuzz_records"], h["fuzz_text"]
assert rec["selected"] and rec["why"] == "coverage", rec
hit = rec["changed_lines_executed"]["src/recparse.c"]
assert 39 in hit, hit          # the line the bug is on
assert txt["selected"] and txt["why"] == "binary", txt
assert "rp_parse" in txt["functions_in_binary"], txt
assert txt["changed_lines_executed"] == {}, txt
assert txt["inputs"] == 2, txt  # examples/recparse/fuzz/corpus/fuzz_text
# weights: the lines its corpus executes; a quarter of those its build
# holds; each times 1 + 1/3, for the 1 of the 3 touched functions
# (rp_parse; parse_record and parse_extended are inlined) it defines
assert rec["functions_in_binary"] == ["rp_parse"], rec
lines = len(hit) + len(rec["changed_lines_executed"].get("src/recparse.h", []))
assert abs(rec["weight"] - lines * 4 / 3) < 1e-9, rec
assert 0 < txt["weight"] < rec["weight"], (txt, rec)
assert 0 < sel["changed_lines"]["instrumented"] <= sel["changed_lines"]["total"]
state = json.load(open(os.path.join(work, "scan.json")))
assert state["harnesses"] == ["fuzz_records", "fuzz_text"], state["harnesses"]
assert glob.glob(os.path.join(work, "runs/*/EXCHANGE_DIR/fuzz_records"))
runs = json.load(open(glob.glob(os.path.join(work, "runs/*/harness_runs.json"))[0]))
assert [r["harness"] for r in runs] == ["fuzz_records", "fuzz_text"], runs
f = json.load(open(results))["findings"]
assert len(f) == 1 and f[0]["harness"] == "fuzz_records", f
assert f[0]["file"] == "src/recparse.c" and f[0]["line"] == 39, f[0]
PY
# the engine is shared: look only for what this scan labelled as its own
owner=crs-ci-$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"].split("-",1)[1])' "$tmp/work/scan.json")
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
note "$(grep -o 'select: [0-9]* of [0-9]* harness(es) to fuzz ([0-9.]*s)' "$tmp/log.txt")"
note "$(grep -o 'select: fuzz_text: selected: .*' "$tmp/log.txt")"
note "$(grep -o 'run: harnesses by weight: .*' "$tmp/log.txt")"
while read -r l; do note "$l"; done < <(grep -oE 'run (fuzz_records|fuzz_text): .*' "$tmp/log.txt")
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "results.sarif validates"
