#!/usr/bin/env bash
# test_change_coverage.sh - the coverage of a change, reported (issue 13,
# item 6): the recparse pull request plus a commit that adds a function
# nothing calls. After fuzzing, the final corpus is replayed on the head's
# coverage build: the report says how many changed lines fuzzing executed
# and lists the new function's lines, and only those (every other line
# of the pull request is reachable), as not reached, in the terminal,
# results.json, SARIF run properties and report.html (test_demo_scan.sh
# validates such a SARIF log); `crs-ci merge` keeps it; no container is
# left behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# a function the change adds and no input can reach
fn=$(( $(wc -l <"$tmp/repo/src/recparse.c") + 3 ))
cat >>"$tmp/repo/src/recparse.c" <<'C'

/* Added by the pull request, called by nothing: no input reaches it. */
int rp_checksum(const uint8_t *buf, size_t len)
{
	int sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += buf[i];
	return sum;
}
C
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
	git -C "$tmp/repo" -c commit.gpgsign=false commit -qam "add a checksum"
head=$(git -C "$tmp/repo" rev-parse HEAD)
scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 5m
assert_no_leftovers "$tmp/work"
line=$(grep -E '^  fuzzing executed [0-9]+ of [0-9]+ changed lines; not reached: ' "$tmp/verdict.txt") ||
	fail "no coverage-of-the-change line in the verdict"
line=${line#  }
python3 - "$tmp/out" "$fn" "$line" <<'PY'
import json, re, sys
out, fn, line = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cc = json.load(open(out + "/results.json"))["change_coverage"]
assert cc["status"] == "measured", cc
assert 0 < cc["lines_executed"] < cc["lines_total"], cc
assert cc["by_harness"]["fuzz_records"] == cc["lines_executed"], cc
# the new function, as one range within its lines
rng = [r for r in cc["not_reached"]
       if r["file"] == "src/recparse.c" and fn <= r["start"] <= r["end"] <= fn + 7]
assert len(rng) == 1, (fn, cc["not_reached"])
r = rng[0]
assert cc["not_reached"] == [r], cc["not_reached"]  # nothing of the PR's own
assert r["end"] - r["start"] >= 4, r  # signature or body to its closing brace
want = "src/recparse.c:%d-%d" % (r["start"], r["end"])
assert line.endswith("; not reached: " + want), (want, line)
m = re.match(r"fuzzing executed (\d+) of (\d+) changed lines", line)
assert (int(m.group(1)), int(m.group(2))) == (cc["lines_executed"], cc["lines_total"]), line
# the comment line above it is changed but no code: not counted, not listed
f = [x for x in cc["files"] if x["path"] == "src/recparse.c"][0]
inside = lambda l, rs: any(a <= l <= b for a, b in rs)
assert inside(fn - 1, f["changed"]) and not inside(fn - 1, f["executable"]), f
assert not inside(fn, f["executed"]), f
# the bug's line ran
assert inside(39, f["executed"]), f
sarif = json.load(open(out + "/results.sarif"))
p = sarif["runs"][0]["properties"]["changeCoverage"]
assert p["summary"] == line, (p["summary"], line)
assert p["linesTotal"] == cc["lines_total"] and p["notReached"], p
html = open(out + "/report.html").read()
assert "Coverage of the change" in html and want in html, "report.html"
assert 'class="crash"' in html, "no changed-lines excerpt in report.html"
print(line)
PY
# merging the shard keeps the measurement
"$CRS_CI" merge --out "$tmp/merged" "$tmp/out" >"$tmp/merged.txt" 2>"$tmp/merge.log" || true
python3 - "$tmp/out/results.json" "$tmp/merged/results.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["change_coverage"]
b = json.load(open(sys.argv[2]))["change_coverage"]
assert a == b, (a, b)
PY
grep -qF "$line" "$tmp/merged.txt" || fail "merge: no coverage line in its verdict"
note "$line"
