#!/usr/bin/env bash
# test_saturation.sh - a clean change stops early once fuzzing no longer
# reaches new lines of the touched functions (nor adds inputs that run
# them far more), never before its floor, and --until-deadline fuzzes to
# the deadline (issue 23, part 4; issue 40)
#
# The recparse example's base with a clean change to parse_record (a
# bound check that never fails), the reference libFuzzer CRS, twice in one
# work dir (the second scan reuses the first one's builds):
#  1. --saturation 10s, as a GitHub Actions step, 3-minute deadline: exit
#     0, verdict PASS, nothing incomplete; the verdict, the job summary,
#     report.html's timeline and results.json say the change saturated,
#     with every fuzzed harness stopped so, after less fuzzing than their
#     shares, but one that reaches the touched code not before a third of
#     its share (the change adds a check: no guard weakened);
#  2. the same with --until-deadline (--timeout 80s): PASS, no saturation
#     record, the harnesses fuzzed their whole shares;
#  3. a change that only removes lines (parse_record's type check), with
#     --saturation 10s: PASS, saturated, and the count is of the 2 head
#     lines around the removal, not "0 of 0 changed lines", in the
#     saturation line and in change coverage (issue 42, item 7); the removed
#     check is a weakened guard, so no harness stopped before half of its
#     time.
# No container or network of any scan is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# A branch NAME off the base with recparse.c's one OLD text made NEW
# (Python string escapes), committed as MESSAGE; prints the commit.
branch_edit() {
	git -C "$tmp/repo" checkout -q -b "$1" "$base"
	python3 - "$tmp/repo/src/recparse.c" "$2" "$3" <<'PY'
import codecs, sys
p, old, new = sys.argv[1], *(codecs.decode(a, "unicode_escape") for a in sys.argv[2:])
s = open(p).read()
assert s.count(old) == 1, old
open(p, "w").write(s.replace(old, new))
PY
	commit_all "$tmp/repo" "$4"
}
clean=$(branch_edit clean '\tvlen = buf[p++];\n' \
	'\tvlen = buf[p++];\n\tif (vlen > 255)\t/* a byte: never */\n\t\treturn RP_ERR_TRUNCATED;\n' \
	"bound the value length")
# floor_held D: in the last scan, each harness whose corpus reached the
# touched code fuzzed at least 1/D of its share before it was found
# saturated, and one that never reached it was not held to that
floor_held() {
	python3 - "$tmp/log.txt" "$tmp/verdict.txt" "$1" <<'PY'
import re, sys
log, verdict, d = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
share = {h: float(s) for h, s in re.findall(r"run (\w+): \d+ CRS\(s\) for up to (\d+)s", log)}
fuzzed = dict(re.findall(r"(\w+) ([0-9.]+) s", verdict.split("fuzzing:", 1)[1].split("\n", 1)[0]))
reached = {h for h, n in re.findall(r"run (\w+): its corpus .* reaches (\d+) line", log) if int(n)}
stopped = set(re.findall(r"run (\w+): the change is saturated", log))
assert stopped, log
for h in stopped & reached:
    assert float(fuzzed[h]) >= share[h] / d - 2, (h, fuzzed[h], share[h], d)
PY
}
args=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo"
	--base "$base")

# 1. a short plateau: every harness stops at saturation
t0=$SECONDS
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$tmp/summary.md \
GITHUB_OUTPUT=$tmp/outputs.txt GITHUB_EVENT_NAME=push \
	scan_expect 0 "${args[@]}" --head "$clean" --timeout 3m --saturation 10s
took=$((SECONDS - t0))
note "--saturation 10s: scan took ${took}s of its 180s deadline"
grep -q 'run [a-z_]*: the change is saturated: no new line or branch of the touched code, nor inputs running it far more, for [0-9]*s' \
	"$tmp/log.txt" || { cat "$tmp/log.txt" >&2; fail "no harness stopped at saturation"; }
grep -q "^  change saturated after [0-9]*s of [0-9]*s of fuzzing: [0-9]* of [0-9]* changed lines reached, no new line or branch of the touched code, nor inputs running it far more, for 10s, not before a third of the time of a harness reaching it (--saturation)" \
	"$tmp/verdict.txt" || fail "the verdict does not say the change saturated"
grep -q '\*\*Early stop:\*\* change saturated after' "$tmp/summary.md" ||
	fail "the job summary does not say the change saturated"
grep -q 'class="timeline-totals">[^<]*change saturated after' \
	"$tmp/out/report.html" || fail "report.html's timeline does not say so"
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "PASS", res["verdict"]
assert res["incomplete"] == [], res["incomplete"]
sat = res["saturation"]
assert sat["window_seconds"] == 10, sat
assert sat["harnesses"] >= 1 and sat["harnesses_saturated"] == sat["harnesses"], sat
assert 1 <= sat["lines_reached"] <= sat["lines_total"], sat
# two harnesses at a 10s plateau: less than their shares
assert sat["guard_weakened"] is False, sat
assert sat["fuzzed_seconds"] < sat["share_seconds"], sat
PY
floor_held 3
assert_no_leftovers "$tmp/work"

# 2. --until-deadline: no early stop
rm -rf "$tmp/out"
t0=$SECONDS
scan_expect 0 "${args[@]}" --head "$clean" --timeout 80s --saturation 10s --until-deadline
note "--until-deadline: scan took $((SECONDS - t0))s of its 80s deadline"
grep -q 'the change is saturated' "$tmp/log.txt" &&
	fail "a harness stopped at saturation under --until-deadline"
grep -q '^crs-ci: run [a-z_]*: time share of [0-9]*s used' "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "no harness fuzzed its whole share"; }
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "PASS", res["verdict"]
assert "saturation" not in res, res["saturation"]
assert res["incomplete"] == [], res["incomplete"]
PY
assert_no_leftovers "$tmp/work"

# 3. a change that only removes lines: the lines around the removal count
removal=$(branch_edit removal '\tif (rec->type == 0)\n\t\treturn RP_ERR_TYPE;\n' '' \
	"drop the record type check")
rm -rf "$tmp/out"
scan_expect 0 "${args[@]}" --head "$removal" --timeout 3m --saturation 10s
grep -q "^  change saturated .*: 2 of 2 lines around the removals reached, no new line or branch of the touched code, nor inputs running it far more, for 10s, not before half of the time of a harness reaching it (the change removes or weakens a guard)" \
	"$tmp/verdict.txt" || { cat "$tmp/verdict.txt" >&2; fail "the verdict does not count the lines around the removal"; }
grep -q "^  fuzzing executed 2 of 2 lines around the removals" "$tmp/verdict.txt" ||
	{ cat "$tmp/verdict.txt" >&2; fail "change coverage does not count the lines around the removal"; }
python3 - "$tmp/out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
assert res["verdict"] == "PASS", res["verdict"]
sat = res["saturation"]
assert sat["lines_around_removals"] is True, sat
assert sat["lines_total"] == 2, sat
# change coverage counts the same lines, not "0 of 0 changed lines"
cov = res["change_coverage"]
assert cov["lines_around_removals"] is True, cov
assert cov["lines_total"] == 2 and cov["lines_executed"] == 2, cov
# the removed type check is a weakened guard: half of each share first;
# fuzz_text never reaches parse_record and stops
assert sat["guard_weakened"] is True, sat
assert sat["harnesses_saturated"] >= 1, sat
PY
floor_held 2
assert_no_leftovers "$tmp/work"
echo "ok: test_saturation"
