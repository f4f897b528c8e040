#!/usr/bin/env bash
# test_sidecar_parallel.sh - the builder sidecar answers each CRS from its
# own worker. Two copies of tests/fixtures/crs-rebuilders, on two cores,
# meet through the exchange and then ask for the same rebuild at once.
# Asserts: crs-ci took both requests before it answered either (the two
# rebuilds ran side by side, not one after the other); both were built
# (the same patch from another CRS is never answered from the first
# CRS's rebuild), each as its CRS's rebuild 1 with the harness in its own
# REBUILD_OUT_DIR; the scan finds nothing (exit 0).
# solo: asserts two rebuilds overlap on two pinned cores (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
scan_expect 0 --compose "$ROOT/tests/fixtures/crs-rebuilders/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 5m
grep "sidecar:" "$tmp/log.txt" >&2 || true
python3 - "$tmp/log.txt" "$tmp/work" <<'PY'
import glob, json, os, sys
logf, work = sys.argv[1:]
lines = [l.rstrip("\n") for l in open(logf) if "sidecar:" in l]
def first(text):
    for i, l in enumerate(lines):
        if text in l:
            return i
    raise AssertionError("no line with %r in %s" % (text, lines))
asks = [first("sidecar: crs-rebuild-%s asks apply-patch-build" % c) for c in "ab"]
answers = [first("sidecar: crs-rebuild-%s's apply-patch-build answered: retcode 0" % c)
           for c in "ab"]
assert max(asks) < min(answers), ("asks", asks, "answers", answers, lines)
run = json.load(open(os.path.join(work, "scan.json")))["run_id"]
for c in "ab":
    crs = "crs-rebuild-" + c
    log = open(glob.glob("%s/runs/%s/crs/%s/LOG_DIR/*/rebuild.log"
                         % (work, run, crs))[0]).read()
    assert "rc=0 peer=seen rebuild_id=1" in log, (crs, log)
    slot = "%s/runs/%s/REBUILD_OUT_DIR/%s/1" % (work, run, crs)
    assert os.access(os.path.join(slot, "build", "fuzz_records"), os.X_OK), slot
    err = open(os.path.join(slot, "stderr.log")).read()
    assert "rebuilt from crs-ci-snapshot/recparse:" in err, (crs, err)
PY
note "both rebuilds asked before either was answered; each CRS got its own"
