#!/usr/bin/env bash
# test_report_only.sh - `crs-ci report` alone on a results.json with one
# finding in the demo repository (examples/make-repo.sh), and on a work
# folder whose timings record a scan that ended an hour ago; no engine.
#  1. results.sarif carries no absolute host path: run.originalUriBaseIds
#     describes %SRCROOT% (the repository's root) without the checkout's
#     path, as CodeQL's logs do; every location in the repository is a
#     relative uri with uriBaseId %SRCROOT%; Microsoft's validator with
#     GitHub's rules (Gh;Sarif) accepts the log.
#  2. the totals are the scan's own (100 s and the report's seconds),
#     not the hour since: results.json's timings.total_s and the printed
#     "timings:" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
mkdir -p "$tmp/out" "$tmp/work"
# the scan's record: prepare 0-40 s, run 40-100 s, report 100-101 s, an hour ago
python3 - "$tmp/work/timings.json" <<'PY'
import json, sys, time
span = lambda n, a, z: {"kind": "phase", "name": n, "start_s": a, "end_s": z, "lane": 0}
json.dump({"format": "crs-ci-timings", "version": 1, "origin": time.time() - 3600,
           "deadline_s": 600, "spans": [span("prepare", 0, 40), span("run", 40, 100),
                                        span("report", 100, 101)]},
          open(sys.argv[1], "w"))
PY
python3 - "$tmp/out/results.json" "$tmp/repo" "$base" "$head" <<'PY'
import json, sys
out, root, base, head = sys.argv[1:5]
frame = lambda f, file, line: {"function": f, "file": file, "line": line,
    "column": 3, "in_project": file is not None, "in_change": False}
finding = {
    "id": "5fb06a3a1fda5ee1",
    "signature": "Heap-buffer-overflow WRITE\nparse_extended\nparse_record",
    "crash_type": "Heap-buffer-overflow WRITE 4",
    "kind": "heap-buffer-overflow", "sanitizer": "address",
    "description": "ERROR: AddressSanitizer: heap-buffer-overflow",
    "harness": "fuzz_records", "is_security": True,
    "file": "src/recparse.c", "line": 39, "column": 3,
    "function": "parse_extended", "in_change": True,
    "stack": [frame("__asan_memcpy", None, 0),
              frame("parse_extended", "src/recparse.c", 39),
              frame("parse_record", "src/recparse.c", 80),
              frame("LLVMFuzzerTestOneInput", "fuzz/fuzz_records.c", 16)],
    "reproduced": 5, "attempts": 5, "novelty": "new",
    "found_by": "crs-libfuzzer", "harnesses": ["fuzz_records"],
}
json.dump({"format": "crs-ci-results", "version": 1,
           "summary": {"tool_version": "0.1.0", "project": "recparse",
                       "source_root": root, "base": base, "head": head,
                       "mode": "delta", "harnesses": ["fuzz_records"],
                       "crs": ["crs-libfuzzer"], "fail_on": "new",
                       "sanitizer": "address"},
           "findings": [finding]}, open(out, "w"))
PY
set +e
"$CRS_CI" report --out "$tmp/out" --work-dir "$tmp/work" --source "$tmp/repo" \
	>"$tmp/report.log" 2>&1
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/report.log" >&2; fail "report: exit $code, want 1 (a new finding)"; }
python3 - "$tmp/out/results.sarif" "$tmp/repo" "$(cd "$tmp/repo" && pwd -P)" <<'PY' ||
import json, sys
path, root, real = sys.argv[1:4]
text = open(path).read()
log = json.loads(text)
run = log["runs"][0]
base = run["originalUriBaseIds"]["%SRCROOT%"]
assert "uri" not in base, base
assert base["description"]["text"], base
for p in {root, real}:
    assert p not in text, "absolute checkout path %s in the SARIF" % p
locs = []
def walk(o):
    if isinstance(o, dict):
        if "artifactLocation" in o:
            locs.append(o["artifactLocation"])
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(run["results"])
repo = [a for a in locs if not a["uri"].startswith("file:")]
assert repo, locs
for a in repo:
    assert a.get("uriBaseId") == "%SRCROOT%" and not a["uri"].startswith("/"), a
print(len(repo))
PY
	fail "results.sarif: originalUriBaseIds or locations hold host paths"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timings"]["total_s"])' "$tmp/out/results.json")
python3 -c 'import sys; t = float(sys.argv[1]); sys.exit(not 100 <= t < 160)' "$total" ||
	fail "report an hour later: timings.total_s $total, want the scan's 100 s and the report's"
grep -q "timings: 10[0-9]\.[0-9] s" "$tmp/report.log" ||
	{ cat "$tmp/report.log" >&2; fail "the printed timings line is not the scan's total"; }
note "report an hour later: total_s $total"
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt" >&2; fail "SARIF does not validate (Gh;Sarif)"; }
note "originalUriBaseIds: $(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["runs"][0]["originalUriBaseIds"]))' "$tmp/out/results.sarif")"
note "validator (Gh;Sarif): $(grep -E "Analysis completed|error" "$tmp/validate.txt" | tail -1)"
echo "ok: test_report_only"
