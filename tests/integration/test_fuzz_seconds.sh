#!/usr/bin/env bash
# test_fuzz_seconds.sh - --fuzz-seconds is the total fuzzing time of all
# selected harnesses together, as ClusterFuzzLite's fuzz-seconds (issue
# 22, part 5); the per-harness minimum is --min-harness-seconds.
# One CRS (tests/fixtures/crs-sleeper, without its LLM gateway) that finds
# nothing and never exits by itself, so every harness holds its whole
# share.
#  1. Two harnesses, --fuzz-seconds 40 under a 10-minute deadline: the run
#     phase says it fuzzes 40 s in total; the harnesses' shares
#     (harness_runs.json) add up to 40 s, half each, and their CRSs ran
#     no longer (not the minutes the deadline leaves after the builds);
#     the verdict is PASS (exit 0). (The deadline is long so that builds
#     slowed by a loaded machine, or by run-all.sh -j's other script,
#     leave the 40 s whole; it costs no time, the 40 s end the run.)
#  2. The same with --fuzz-seconds 15: the second harness's part is under
#     the 10 s minimum, so the up-front warning names --fuzz-seconds, the
#     verdict is INCOMPLETE (exit 4), never PASS, and the harness's reason
#     says --fuzz-seconds was used up (not the deadline).
# Both: no container or network of the scan left (by its owner label).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
compose_without_llm "$tmp/compose.yaml"
common=(--compose "$tmp/compose.yaml" --project "$ROOT/examples/projects/recparse"
	--source "$tmp/repo" --base "$base" --head "$head" --reproduce 1
	--harness fuzz_records --harness fuzz_text --timeout 10m
	--cache-dir "$tmp/cache")

# fuzzed WORK: "harness wanted fuzzed" per line, from harness_runs.json
fuzzed() {
	python3 - "$1" <<'PY'
import glob, json, sys
runs = glob.glob(sys.argv[1] + "/runs/*/harness_runs.json")
assert len(runs) == 1, runs
for e in json.load(open(runs[0])):
    print(e["harness"], round(e["wanted_seconds"], 1),
          round(e["fuzzed_seconds"], 1), e["reason"] or "-")
PY
}

# 1. 40 s in total
t0=$SECONDS
scan_expect 0 "${common[@]}" --fuzz-seconds 40
note "scan 1 took $((SECONDS - t0))s"
grep -q '^verdict: PASS$' "$tmp/verdict.txt" || fail "1: no PASS verdict"
grep -q "run: fuzzing 40s in total (--fuzz-seconds), split among 2 harness(es)" \
	"$tmp/log.txt" || fail "1: no line saying the total"
fuzzed "$tmp/work" | tee "$tmp/runs.txt" >&2
python3 - "$tmp/runs.txt" <<'PY'
import sys
rows = [l.split(None, 3) for l in open(sys.argv[1])]
assert sorted(r[0] for r in rows) == ["fuzz_records", "fuzz_text"], rows
# the harnesses' shares (from their CRSs' start to their stop) add up
# to 40 s, half each; their CRSs ran that less their start-up
shares = sum(float(r[1]) for r in rows)
assert 38 <= shares <= 40.5, shares
total = sum(float(r[2]) for r in rows)
assert 20 <= total <= shares, total
for h, wanted, got, reason in rows:
    assert 18 <= float(wanted) <= 20.5, (h, wanted)
    assert reason.strip() == "-", (h, reason)
PY
assert_no_leftovers "$tmp/work"
note "1: $(tr '\n' ';' <"$tmp/runs.txt")"
rm -rf "$tmp/work" "$tmp/out"

# 2. 15 s in total cannot give the second harness its 10 s
scan_expect 4 "${common[@]}" --fuzz-seconds 15
grep -q '^verdict: INCOMPLETE$' "$tmp/verdict.txt" || fail "2: no INCOMPLETE verdict"
grep -q 'run: 2 harness(es) and --fuzz-seconds gives 15s: some get no fuzzing' \
	"$tmp/log.txt" || fail "2: no up-front warning naming --fuzz-seconds"
fuzzed "$tmp/work" | tee "$tmp/runs.txt" >&2
grep -q "^fuzz_text 10.0 0.0 the harnesses before it used up --fuzz-seconds$" \
	"$tmp/runs.txt" || fail "2: fuzz_text's reason"
grep -q "^  \[incomplete\] harness fuzz_text fuzzed 0s of 10s: the harnesses before it used up --fuzz-seconds$" \
	"$tmp/verdict.txt" || fail "2: no reason in the terminal output"
assert_no_leftovers "$tmp/work"
echo "ok: test_fuzz_seconds"
