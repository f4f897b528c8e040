#!/usr/bin/env bash
# test_after_finding.sh - the run ends soon after a proved finding, and
# --until-deadline keeps fuzzing to the deadline (issue 23, part 1)
#
# The recparse example's pull request (fuzz_records finds its bug within
# seconds; fuzz_text reaches no bug) with the reference libFuzzer CRS,
# twice, in one work dir (the second scan reuses the first one's builds):
#  1. the default policy, as a GitHub Actions step: exit 1, verdict FAIL
#     with the finding; results.json's after_finding has the proof and
#     the cut (cut - proof within the default window, 10s to 60s), and
#     fuzz_text, cut, is listed in "incomplete" with that reason; the
#     scan ends well before its 5-minute deadline; the ::error annotation
#     is printed once (at the proof, not again by the report); the
#     terminal and the job summary say when the run ended; report.html's
#     timeline has the markers;
#  2. --until-deadline (--timeout 70s): exit 1, verdict FAIL, the same
#     finding; after_finding has the proof and no cut, and fuzz_text
#     fuzzed its whole share, to the time the run keeps before the
#     deadline for triage (not incomplete).
# No container or network of either scan is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
args=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo"
	--base "$base" --head "$head")

# 1. the default: the run ends after a short search
t0=$SECONDS
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$tmp/summary.md \
GITHUB_OUTPUT=$tmp/outputs.txt GITHUB_EVENT_NAME=push \
	scan_expect 1 "${args[@]}" --timeout 5m
took=$((SECONDS - t0))
note "default policy: scan took ${took}s of its 300s deadline"
[ "$took" -lt 270 ] || fail "the scan ran to its deadline (${took}s)"
n=$(grep -c '^::error ' "$tmp/verdict.txt" || true)
[ "$n" -eq 1 ] || fail "$n ::error annotations, want 1 (at the proof only)"
grep -q '^  run ended [0-9]*s after a finding was proved (--after-finding default: [0-9]*s)' \
	"$tmp/verdict.txt" || fail "the verdict does not say when the run ended"
grep -q 'proved [0-9.]*s into the scan; it fails --fail-on new' "$tmp/log.txt" ||
	fail "the proof was not printed when it was made"
grep -q '\*\*After the finding:\*\* run ended' "$tmp/summary.md" ||
	fail "the job summary does not say when the run ended"
grep -q 'class="timeline-marker"' "$tmp/out/report.html" ||
	fail "report.html's timeline has no marker"
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "FAIL", res["verdict"]
f = [x for x in res["findings"] if x["novelty"] == "new"]
assert len(f) == 1 and f[0]["function"] == "parse_extended", res["findings"]
a = res["after_finding"]
assert a["policy"] == "default", a
assert a["proved_at_seconds"] is not None and a["cut_at_seconds"] is not None, a
assert 10 <= a["window_seconds"] <= 60, a
assert a["cut_at_seconds"] - a["proved_at_seconds"] <= a["window_seconds"] + 2, a
assert a["finding"] == f[0]["id"], (a, f[0]["id"])
assert a["announced"] is True and a["harnesses_cut"] >= 1, a
inc = {x["harness"]: x["reason"] for x in res["incomplete"]}
assert "fuzz_text" in inc and "--after-finding default" in inc["fuzz_text"], inc
assert "fuzz_records" not in inc, inc
PY
assert_no_leftovers "$tmp/work"

# 2. --until-deadline: today's behaviour, fuzzing to the deadline
rm -rf "$tmp/out"
t0=$SECONDS
scan_expect 1 "${args[@]}" --timeout 70s --until-deadline
note "--until-deadline: scan took $((SECONDS - t0))s of its 70s deadline"
grep -q '^crs-ci: run fuzz_text: time share of [0-9]*s used' "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "fuzz_text did not fuzz its whole share"; }
grep -q 'the run went on (--after-finding continue)' "$tmp/verdict.txt" ||
	fail "the verdict does not say the run went on"
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "FAIL", res["verdict"]
assert [x["function"] for x in res["findings"] if x["novelty"] == "new"] == ["parse_extended"], res["findings"]
a = res["after_finding"]
assert a["policy"] == "continue" and a["window_seconds"] is None, a
assert a["proved_at_seconds"] is not None and a["cut_at_seconds"] is None, a
assert a["harnesses_cut"] == 0, a
assert res["incomplete"] == [], res["incomplete"]
PY
assert_no_leftovers "$tmp/work"
echo "ok: test_after_finding"
