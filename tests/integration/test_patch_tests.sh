#!/usr/bin/env bash
# test_patch_tests.sh - the `tests` step of patch validation with a
# project that has tests. The recparse example's project folder plus
# tests/fixtures/recparse-tests (run_tests.sh and its driver, laid at
# /OSS_CRS_PROJ_PATH as every project folder is); crs-libfuzzer finds the
# bug, crs-patcher submits the fix (01) and a patch that stops the crash
# but refuses a valid extended record (06). Asserts: the fix passes every
# step with tests "passed" (not "no tests"), its tests log holds the
# driver's "all tests passed"; 06 passes policy, apply, build and povs
# and fails at tests, with the driver's FAIL line in its log, and is no
# SARIF fix.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
cp -r "$ROOT/examples/projects/recparse" "$tmp/recparse"
cp "$ROOT/tests/fixtures/recparse-tests/run_tests.sh" \
	"$ROOT/tests/fixtures/recparse-tests/test_recparse.c" "$tmp/recparse/"
fixture=$ROOT/tests/fixtures/crs-patcher
scan_expect 1 --compose "$fixture/compose-tests.yaml" \
	--project "$tmp/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 10m --refuzz-seconds 5
sha() { sha256sum "$fixture/patches/$1" | cut -c1-64; }
python3 - "$tmp/out" "$(sha 01-good-bounds-check.patch)" \
	"$(sha 06-bad-breaks-tests.patch)" <<'PY'
import json, os, sys
out, good, breaks = sys.argv[1:]
res = json.load(open(os.path.join(out, "results.json")))
patches = {p["sha256"]: p for p in res["patches"]}
assert set(patches) == {good, breaks}, list(patches)
def step(p, name):
    return [s for s in p["steps"] if s["name"] == name][0]
def log(s):
    return open(os.path.join(out, s["log_path"])).read()
g = patches[good]
assert g["validated"] is True, g
t = step(g, "tests")
assert t["verdict"] == "passed", t
assert "recparse: all tests passed" in log(t), log(t)
b = patches[breaks]
assert b["validated"] is False and b["failed_step"] == "tests", b
for name in ("policy", "apply", "build", "povs"):
    assert step(b, name)["verdict"] == "passed", (name, b["steps"])
t = step(b, "tests")
assert t["verdict"] == "failed" and "exit 1" in t["detail"], t
assert "FAIL /OSS_CRS_PROJ_PATH/test_recparse.c:" in log(t) and "tests failed" in log(t), log(t)
assert step(b, "refuzz")["verdict"] == "skipped", b["steps"]
fixes = json.load(open(os.path.join(out, "results.sarif")))["runs"][0]["results"][0].get("fixes", [])
assert len(fixes) == 1 and good[:12] in fixes[0]["description"]["text"], fixes
PY
note "the fix: tests passed; the test-breaking patch: rejected at tests"
