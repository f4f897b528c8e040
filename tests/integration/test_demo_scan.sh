#!/usr/bin/env bash
# test_demo_scan.sh - the demo scan end to end on the real engine:
# the pull request's heap-buffer-overflow is found, proved and blamed on
# the line the change added; the report says fuzzing executed every
# changed line (the PR's seeds take its truncation paths, and every
# changed line is reachable); the SARIF validates (GitHub's rules too); a
# second scan rebuilds no image and takes no planted marker or another
# head's record for a build (the CRS build step runs again, and is reused
# by its record in the build-target phase after it); the CRS gets the
# change file and the libFuzzer CRS aims at it (dictionary, value
# profile, focus function, hedged by a dictionary-only first run).
# solo: compares every container and network on the engine before and after (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# scan [PHASE]: the demo scan, or one phase of it
scan() {
	"$CRS_CI" "${1:-scan}" --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m \
		--work-dir "$tmp/work" --out "$tmp/out"
}
before=$(engine_snapshot)
set +e
scan >"$tmp/verdict.txt" 2>"$tmp/log1.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/log1.txt" >&2; fail "exit $code, want 1"; }
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "finding not labelled new"
python3 - "$tmp/out/results.sarif" "$tmp/out/results.json" <<'PY'
import json, sys
sarif = json.load(open(sys.argv[1]))
res = sarif["runs"][0]["results"]
assert len(res) == 1, res
r = res[0]
loc = r["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"] == "src/recparse.c", loc
assert loc["region"]["startLine"] == 39, loc
assert r["ruleId"].startswith("crs-ci/heap-buffer-overflow"), r["ruleId"]
assert r["properties"]["reproduceRate"] == "5/5", r["properties"]
assert r["properties"]["inChange"] is True
assert r["properties"]["novelty"] == "new", r["properties"]
assert r["baselineState"] == "new", r
assert "primaryLocationLineHash" in r["partialFingerprints"]
res_json = json.load(open(sys.argv[2]))
f = res_json["findings"][0]
assert f["function"] == "parse_extended", f
assert f["novelty"] == "new", f
cc = res_json["change_coverage"]
assert cc["status"] == "measured" and cc["lines_total"] == 45, cc
assert cc["lines_executed"] == 45 and cc["not_reached"] == [], cc
rec = [x for x in cc["files"] if x["path"] == "src/recparse.c"][0]
assert any(a <= 39 <= b for a, b in rec["executed"]), rec
p = sarif["runs"][0]["properties"]["changeCoverage"]
assert p["linesExecuted"] == cc["lines_executed"], (p, cc)
assert p["summary"] == "fuzzing executed 45 of 45 changed lines", p
PY
# where the seconds went: results.json's "timings" (docs/results.md)
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timings"]
spans = t["spans"]
phases = [s["name"] for s in spans if s["kind"] == "phase"]
assert phases == ["prepare", "build-target", "select", "run", "triage",
                  "coverage", "validate", "report"], phases
starts = [s["start_s"] for s in spans]
assert starts == sorted(starts), starts
for s in spans:
    assert 0 <= s["start_s"] <= s["end_s"] <= t["total_s"] + 1e-6, s
    assert isinstance(s["lane"], int) and s["lane"] >= 0, s
names = {(s["kind"], s["name"]) for s in spans}
assert ("compile", "head address") in names, names
assert ("compile", "base address") in names, names
fuzz = [s for s in spans if s["kind"] == "fuzz"]
assert [s["harness"] for s in fuzz] == ["fuzz_records"], fuzz
assert abs(t["fuzz_s"] - sum(s["end_s"] - s["start_s"] for s in fuzz)) < 1e-6
run = next(s for s in spans if s["kind"] == "phase" and s["name"] == "run")
assert 0 <= t["first_pov_s"] <= run["end_s"] - run["start_s"], t
assert t["cores"] >= 1 and t["deadline_s"] == 600, t
# the first PoV was reproduced as soon as the exchange had it, while the
# run stopped its CRS (early_jobs.h), once
tri = [s for s in spans if s["kind"] == "triage"]
assert tri and tri[0]["start_s"] < run["end_s"], (tri, run)
assert len({s["name"] for s in tri}) == len(tri), tri
# the corpus's coverage replay ran once the CRS had stopped (as the run
# tore down, beside triage), before the coverage phase that writes it
# down; the PoVs' replay (the change anchor) inside that phase
cov = next(s for s in spans if s["kind"] == "phase" and s["name"] == "coverage")
rep = [s for s in spans if s["kind"] == "replay" and not s["name"].endswith(" PoVs")]
assert rep, spans
for s in rep:
    assert fuzz[0]["end_s"] <= s["start_s"] and s["end_s"] <= cov["start_s"], (s, fuzz, cov)
povs = [s for s in spans if s["kind"] == "replay" and s["name"].endswith(" PoVs")]
assert [s["harness"] for s in povs] == ["fuzz_records"], spans
for s in povs:
    assert cov["start_s"] <= s["start_s"] and s["end_s"] <= cov["end_s"] + 1e-6, (s, cov)
PY
grep -q "triage: PoV [0-9a-f]* on fuzz_records reproduced now, as the run goes on" "$tmp/log1.txt" ||
	fail "the first PoV was not reproduced while the run ended"
[ "$(grep -c "triage: PoV [0-9a-f]* on base [0-9a-f]*: new" "$tmp/log1.txt")" -eq 1 ] ||
	fail "the PoV's label on the base is logged more than once"
grep -q "^  timings: .*fuzzed .* of the 600 s deadline" "$tmp/verdict.txt" || fail "the verdict lists no timings"
grep -q "^  phases: prepare .*, report " "$tmp/verdict.txt" || fail "the verdict lists no phase times"
grep -q "^  builds: .*compile head address" "$tmp/verdict.txt" || fail "the verdict lists no compile"
note "timings: $(grep '^  timings:' "$tmp/verdict.txt")"
grep -qx '  fuzzing executed 45 of 45 changed lines' "$tmp/verdict.txt" ||
	fail "the verdict does not say every changed line was executed"
! grep -q 'not reached' "$tmp/verdict.txt" "$tmp/out/report.html" ||
	fail "a changed line is listed as not reached"
grep -q 'Coverage of the change' "$tmp/out/report.html" || fail "report.html lacks the coverage of the change"
note "$(grep -o 'fuzzing executed.*' "$tmp/verdict.txt")"
pov=$(python3 -c "import json,sys;print(json.load(open('$tmp/out/results.json'))['findings'][0]['pov_path'])")
[ -s "$tmp/out/$pov" ] || fail "PoV $pov missing"
# report.html leads with the proof (issue 43, part 3): the banner names
# the crash, then the changed line, the PoV's bytes and the command, all
# before the scan's metadata
python3 - "$tmp/out" "$pov" <<'PY'
import html, sys
out, pov = sys.argv[1:]
page = html.unescape(open(out + "/report.html").read())
data = open(out + "/" + pov, "rb").read()
ban = page.index("FAIL: Heap-buffer-overflow WRITE ")
assert " in parse_extended at src/recparse.c:39 (a line this change added)" in page[ban:ban + 200], page[ban:ban + 200]
proof = page.index('class="proof"')
hexline = "00000000  " + " ".join("%02x" % b for b in data[:8])
dump = page.index(hexline)
cmd = page.index("reproduce fuzz_records", proof)
scan = page.index("<h2>Scan</h2>")
assert ban < proof < dump < cmd < scan, (ban, proof, dump, cmd, scan)
assert "incomplete: harness" not in page[:scan], "a cut harness is a banner"
PY
grep -q "^      PoV's first bytes ([0-9]* in all):" "$tmp/verdict.txt" ||
	fail "the verdict does not show the PoV's bytes"
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt"; fail "SARIF does not validate"; }
grep -q "Analysis completed successfully" "$tmp/validate.txt" || fail "validator: $(cat "$tmp/validate.txt")"
engine_unchanged "$before"
note "first scan: $(grep -c 'building image' "$tmp/log1.txt" || true) image(s) built"
# the change reached the CRS as change.json/change.dict (its fetch folder
# and the build steps'), and run_fuzzer.sh aimed at it
assert_change_files "$tmp/work" fuzz_records
run_dir=$(ls -d "$tmp"/work/runs/*/ | head -n 1)
crs_log=$run_dir/logs/crs-libfuzzer-fuzzer-fuzz_records.log
grep -q "direction: dict=change.dict.*use_value_profile=1.*focus_function" \
	"$crs_log" || { cat "$crs_log" >&2; fail "run_fuzzer.sh did not aim at the change"; }
# direction is hedged: with one CPU a dictionary-only first run, the
# directed runs after it when the bug was not found first; with two (the
# CRS's core and infra's lent one) worker 1 fuzzes with the dictionary
# only beside the directed worker
grep -qE "hedge: (the first [0-9]* s with the dictionary only, then directed|worker 1 fuzzes with the dictionary only)" \
	"$crs_log" || { cat "$crs_log" >&2; fail "run_fuzzer.sh did not hedge its direction"; }
# the dictionary-only first run starts at once (not after llvm-nm)
grep -qE "run 1: .*(\(1 process\)|worker 1 for at most [0-9]+ s) with the dictionary only \(the hedge\)" \
	"$crs_log" || fail "the hedge's first run did not fuzz with the dictionary only"
if grep -q "run 2: " "$crs_log"; then
	grep -q "run 2: .* with focus_function=" "$crs_log" || fail "no -focus_function run after the hedge"
fi
grep -q "first execution" "$crs_log" || fail "no first-execution mark"
# libFuzzer's new corpus files went out in one `libCRS submit seed` call
# each round: every one of them reached the exchange
said=$(sed -n 's/.*submitted \([0-9]*\) new seeds.*/\1/p' "$crs_log" |
	awk '{ n += $1 } END { print n + 0 }')
got=$(find "$run_dir/EXCHANGE_DIR/fuzz_records/seeds" -type f | wc -l)
[ "$said" -gt 0 ] && [ "$got" -ge "$said" ] ||
	fail "CRS said it submitted $said seeds, the exchange holds $got"
note "CRS got change.json (parse_extended) and used $(grep -o 'direction: .*' "$crs_log" | cut -c1-60)..."
# the CRS build step's record names what it was made from (issue 21);
# before the second scan, the step's record is made another head's, and
# markers of the old kind (an empty file with the right name: the step's
# builder image and inputs, the coverage build's failure) are planted
# beside a failure record of another head's coverage build: none of them
# is taken for a build (docs/work-folder.md)
built=$tmp/work/builds/address/crs/crs-libfuzzer/built
cov=$tmp/work/builds/coverage/head
python3 - "$built" "$cov" "$tmp/real.json" <<'PY' || fail "the build records are not as expected"
import json, sys
built, cov, real = sys.argv[1:]
r = json.load(open(built + "/build.json"))
assert r["step"] == "crs-libfuzzer/build" and r["sanitizer"] == "address", r
assert r["project"] == "recparse" and r["image"].startswith("sha256:"), r
for k in ("source", "fetch", "project_tree"):
    assert len(r[k]) == 64, (k, r)
open("%s/build.%.19s.%.12s" % (built, r["image"], r["fetch"]), "w").close()
json.dump(r, open(real, "w"))
r["source"] = "0" * 64
json.dump(r, open(built + "/build.json", "w"))
c = json.load(open(cov + "/build.json"))
open("%s/.failed-%.19s" % (cov, c["image"]), "w").close()
c["source"] = "0" * 64
json.dump(c, open(cov + "/build-failed.json", "w"))
PY
# second scan: every image is reused, the step runs again
set +e
scan >/dev/null 2>"$tmp/log2.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log2.txt" >&2; fail "second scan exit $code"; }
if grep -q "building image" "$tmp/log2.txt"; then
	grep "building image" "$tmp/log2.txt" >&2
	fail "second scan rebuilt images"
fi
grep -q "CRS crs-libfuzzer build step build: running" "$tmp/log2.txt" &&
	! grep -q "build step build: reusing its outputs" "$tmp/log2.txt" ||
	fail "a planted marker or another head's record passed for the CRS build step"
! grep -q "did not build with SANITIZER=coverage before" "$tmp/log2.txt" ||
	fail "a planted marker or another head's record passed for a failed coverage build"
python3 - "$built" "$tmp/real.json" "$tmp/out/results.json" <<'PY' || fail "second scan: the step's record or coverage is wrong"
import json, sys
built, real, res = sys.argv[1:]
assert json.load(open(built + "/build.json")) == json.load(open(real))
assert json.load(open(res))["change_coverage"]["status"] == "measured"
PY
note "second scan: planted markers and another head's records ignored, the CRS build step ran again"
# and the record it wrote is taken: build-target again reuses the step
scan build-target >/dev/null 2>"$tmp/log3.txt" || { cat "$tmp/log3.txt" >&2; fail "build-target failed"; }
grep -q "CRS crs-libfuzzer build step build: reusing its outputs" "$tmp/log3.txt" &&
	! grep -q "build step build: running" "$tmp/log3.txt" ||
	{ cat "$tmp/log3.txt" >&2; fail "build-target did not reuse the CRS build step by its record"; }
note "second scan: $(grep -c 'reusing' "$tmp/log2.txt") image(s)/builds reused, none rebuilt"
# in a GitLab job the report phase also writes the merge request's reports
set +e
GITLAB_CI=true "$CRS_CI" report --out "$tmp/out" >/dev/null 2>&1
code=$?
set -e
[ "$code" -eq 1 ] || fail "GitLab report: exit $code, want 1"
python3 - "$tmp/out" <<'PY'
import json, sys, xml.dom.minidom
out = sys.argv[1]
cq = json.load(open(out + "/gl-code-quality-report.json"))
assert len(cq) == 1 and cq[0]["location"]["path"] == "src/recparse.c", cq
assert cq[0]["location"]["lines"]["begin"] == 39, cq
sast = json.load(open(out + "/gl-sast-report.json"))
v = sast["vulnerabilities"]
assert len(v) == 1 and v[0]["location"]["file"] == "src/recparse.c", v
assert any(i["type"] == "cwe" for i in v[0]["identifiers"]), v
junit = xml.dom.minidom.parse(out + "/junit.xml")
assert junit.getElementsByTagName("failure"), "no failing test case"
PY
note "GitLab Code Quality, SAST and JUnit reports written"
# in a GitHub Actions job: annotations on stdout, the job summary, outputs
gh="$tmp/gh"; mkdir -p "$gh"
set +e
GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
	GITHUB_EVENT_PATH="$ROOT/tests/fixtures/github/pull_request.json" \
	GITHUB_STEP_SUMMARY="$gh/summary.md" GITHUB_OUTPUT="$gh/output" \
	GITHUB_REPOSITORY=octo/recparse GITHUB_SHA="$head" \
	"$CRS_CI" report --out "$tmp/out" >"$gh/stdout" 2>"$gh/stderr"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$gh/stderr" >&2; fail "GitHub report: exit $code, want 1"; }
grep -q "^::error file=src/recparse.c,line=39" "$gh/stdout" || { cat "$gh/stdout" >&2; fail "no error annotation at src/recparse.c:39"; }
grep -q "overflow WRITE" "$gh/summary.md" || fail "job summary lacks the finding"
grep -q "^- timings: .*fuzzed .* of the 600 s deadline .*first PoV" "$gh/summary.md" || fail "job summary lacks the timings"
grep -qF -e "- fuzzing: fuzz\\_records " "$gh/summary.md" || { cat "$gh/summary.md" >&2; fail "job summary lacks the fuzzing seconds"; }
grep -qx '\*\*Coverage of the change:\*\* fuzzing executed 45 of 45 changed lines' "$gh/summary.md" ||
	fail "job summary lacks the coverage of the change"
grep -q "^verdict<<" "$gh/output" || fail "no verdict output"
note "GitHub annotations, job summary and step outputs written"
