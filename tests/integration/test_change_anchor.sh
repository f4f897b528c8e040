#!/usr/bin/env bash
# test_change_anchor.sh - a finding lands on the changed line that led to
# its crash (issue 22, items 1 and 2; docs/decisions.md, decision 12). Two
# regressions injected into real code, cJSON 1.7.15 as Debian ships it
# (tests/bench/real/make-cjson-repo.sh), where the crash line is not the
# changed line:
#   cjson-anchor-minify-escape.patch: a guard changed (minify copies any
#     escape as a pair): the overread is on the loop's next test, 8 lines
#     above, in the same function;
#   cjson-anchor-exact-size.patch: an off-by-one in the size of a string's
#     output (the terminator forgotten): the write overflows 65 lines
#     below, at the terminator.
# Each pull request also adds a fuzzing input that reaches its bug (the
# harness's own inputs do not fit its format), so libFuzzer proves it at
# its first execution and the scan stays short. For each scan:
# results.json's change_anchor is a changed line the PoV executed in the
# crashing function; SARIF's locations[0] is that one line, inside the
# diff's added lines (parsed from `git diff base head`), with the crash
# site in relatedLocations and the fingerprint on the crash line;
# Microsoft's validator with GitHub's rules passes; the GitHub `::error`
# annotation, the job summary's excerpt and GitLab's Code Quality entry
# are on the anchor (the summary shows the crash line too); change
# coverage reports every changed line the PoV executed as reached; the
# HTML shows the changed lines and the crash line. The two scans share a
# cache folder: the second reuses the base build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
command -v npm >/dev/null || fail "npm is needed for the SARIF validator"

# check_scan BUG FUNCTION: scan the pull request of BUG, check it.
check_scan() {
	local bug=$1 func=$2 repo="$tmp/$1/repo" gh="$tmp/$1/gh"
	mkdir -p "$tmp/$bug" "$gh"
	eval "$("$ROOT/tests/bench/real/make-cjson-repo.sh" "$repo" \
		"$ROOT/tests/bench/real/cjson-$bug.patch")"
	git -C "$repo" diff -U0 "$base" "$head" >"$tmp/$bug/pr.diff"
	local t0=$SECONDS
	(tmp="$tmp/$bug"; scan_expect 1 \
		--compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/tests/bench/real/projects/cjson" \
		--source "$repo" --base "$base" --head "$head" \
		--harness cjson_read_fuzzer --timeout 5m --cache-dir "$tmp/cache")
	note "$bug: scanned in $((SECONDS - t0))s"
	assert_no_leftovers "$tmp/$bug/work"
	set +e
	GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
		GITHUB_EVENT_PATH="$ROOT/tests/fixtures/github/pull_request.json" \
		GITHUB_STEP_SUMMARY="$gh/summary.md" GITHUB_OUTPUT="$gh/output" \
		GITHUB_REPOSITORY=octo/cjson GITHUB_SHA="$head" \
		"$CRS_CI" report --out "$tmp/$bug/out" >"$gh/stdout" 2>"$gh/stderr"
	local code=$?
	set -e
	[ "$code" -eq 1 ] || { cat "$gh/stderr" >&2; fail "$bug: GitHub report: exit $code, want 1"; }
	GITLAB_CI=true "$CRS_CI" report --out "$tmp/$bug/out" >/dev/null 2>&1 || true
	[ -f "$tmp/$bug/out/gl-code-quality-report.json" ] || fail "$bug: no GitLab report"
	python3 - "$tmp/$bug" "$func" <<'PY'
import html, json, re, sys
d, func = sys.argv[1], sys.argv[2]
out = d + "/out"
# the pull request's added head lines, from `git diff -U0 base head`
added, path = {}, None
for l in open(d + "/pr.diff"):
    if l.startswith("+++ "):
        path = l[6:].rstrip("\n") if l.startswith("+++ b/") else None
    m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
    if m and path:
        start, n = int(m.group(1)), int(m.group(2) or 1)
        added.setdefault(path, set()).update(range(start, start + n))
in_diff = lambda f, n: n in added.get(f, ())
res = json.load(open(out + "/results.json"))
fs = [f for f in res["findings"] if not f.get("suppressed")]
assert len(fs) == 1, [f["crash_type"] for f in fs]
f = fs[0]
assert f["novelty"] == "new", f["novelty"]
assert f["file"] == "cJSON.c" and f["function"] == func, (f["file"], f["function"])
assert not in_diff(f["file"], f["line"]) and not f["in_change"], \
    ("the crash line is a changed line: nothing to anchor", f["line"])
a = f["change_anchor"]
assert a["how"] == "crash-function", a
assert a["file"] == "cJSON.c" and in_diff(a["file"], a["line"]), (a, added)
assert a["function"] == func and a["frame"] == 0, a
ex = {e["file"]: set(e["lines"]) for e in a["executed"]}
assert a["line"] in ex["cJSON.c"], a
assert all(in_diff(p, n) for p, ls in ex.items() for n in ls), ex
# change coverage: every changed line the PoV ran is reached
cc = res["change_coverage"]
assert cc["status"] == "measured", cc
inside = lambda n, rs: any(s <= n <= e for s, e in rs)
for p, ls in ex.items():
    cf = [x for x in cc["files"] if x["path"] == p][0]
    for n in ls:
        assert inside(n, cf["executed"]), (p, n, cf)
        assert not any(r["file"] == p and r["start"] <= n <= r["end"]
                       for r in cc["not_reached"]), (p, n, cc["not_reached"])
assert cc["lines_executed"] >= len(ex["cJSON.c"]), cc
# SARIF: the primary location is the anchor, one changed line
s = json.load(open(out + "/results.sarif"))
r = [x for x in s["runs"][0]["results"]][0]
pl = r["locations"][0]["physicalLocation"]
reg = pl["region"]
assert pl["artifactLocation"]["uri"] == "cJSON.c", pl
assert reg["startLine"] == reg.get("endLine", reg["startLine"]) == a["line"], reg
assert in_diff("cJSON.c", reg["startLine"]), reg
assert r["message"]["text"].startswith("This change leads to a heap-buffer-overflow "), r["message"]
assert "at cJSON.c:%d in %s" % (f["line"], func) in r["message"]["text"], r["message"]
crash = [x for x in r["relatedLocations"]
         if x["physicalLocation"]["region"]["startLine"] == f["line"]]
assert crash and crash[0]["message"]["text"] == "Crash site", r["relatedLocations"]
assert "[crash site](%d)" % crash[0]["id"] in r["message"]["text"], r["message"]
flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
assert flow[-1]["location"]["physicalLocation"]["region"]["startLine"] == f["line"], flow
assert r["partialFingerprints"]["crsCiSignature/v1"] == f["id"], r["partialFingerprints"]
# GitHub: the annotation on the anchor line
ann = [l for l in open(d + "/gh/stdout") if l.startswith("::error ")]
assert len(ann) == 1, ann
m = re.match(r"::error file=([^,]+),line=(\d+),", ann[0])
assert m and m.group(1) == "cJSON.c" and int(m.group(2)) == a["line"], ann[0]
assert "This change leads to a heap-buffer-overflow" in ann[0], ann[0]
summary = open(d + "/gh/summary.md").read()
assert "cJSON\\.c\\:%d (changed line the PoV ran), crash at cJSON\\.c\\:%d" % (
    a["line"], f["line"]) in summary, summary
# the failing finding's proof leads the summary, with its changed lines
assert summary.index("### [new] ") < summary.index("| novelty"), summary
assert re.search(r"\n\* +%d  " % a["line"], summary), "anchor not in the summary's lines"
assert re.search(r"\n> +%d  " % f["line"], summary), "crash line not in the summary's lines"
# GitLab Code Quality on the anchor too
cq = json.load(open(out + "/gl-code-quality-report.json"))
assert cq[0]["location"]["path"] == "cJSON.c", cq
assert cq[0]["location"]["lines"]["begin"] == a["line"], cq
# the HTML: the changed lines with the crash line
page = html.unescape(open(out + "/report.html").read())
assert "cJSON.c:%d: the changed line the PoV executed nearest the crash" % a["line"] in page, "no anchor excerpt"
assert re.search(r'<span class="anchor">\* +%d ' % a["line"], page), "anchor line not marked"
assert re.search(r'<span class="crash">> +%d ' % f["line"], page), "crash line not shown"
print("%s: crash %s:%d, anchor %s:%d (%s); %d of %d changed lines reached" % (
    f["crash_type"], f["file"], f["line"], a["file"], a["line"], a["how"],
    cc["lines_executed"], cc["lines_total"]))
PY
	sarif_validate "$tmp/$bug/out/results.sarif" >"$tmp/$bug/validate.txt" 2>&1 ||
		{ cat "$tmp/$bug/validate.txt" >&2; fail "$bug: SARIF validation (Gh;Sarif)"; }
	note "$bug: SARIF validates with GitHub's rules"
}

check_scan anchor-minify-escape minify_string
check_scan anchor-exact-size parse_string
