#!/usr/bin/env bash
# test_ensemble.sh - two CRSs in one scan (tests/fixtures/ensemble/compose.yaml:
# crs-libfuzzer, which stops at its first PoV, and crs-aflpp, which fuzzes
# for 40 s) on the demo's pull request:
#   (a) every seed either CRS submits reaches the exchange, which each CRS
#       sees read-only as its fetch dir, within 1 s (latency printed:
#       mtime of the exchange copy minus that of the submitter's file), and
#       the seeds of one CRS reach the other through its libCRS fetch daemon;
#   (b) their PoVs for the same bug collapse into one finding with
#       duplicates >= 1, credited to the CRS whose PoV came first;
#   (c) crs-libfuzzer's early exit does not end crs-aflpp's run;
#   (d) crs-aflpp fuzzes with the change's dictionary and CmpLog.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp_dir)
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
start=$(date +%s)
set +e
"$CRS_CI" scan --compose "$ROOT/tests/fixtures/ensemble/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --keep-going --timeout 6m \
	--work-dir "$tmp/work" --out "$tmp/out" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
note "scan took $(( $(date +%s) - start )) s"
grep -q "every CRS module finished" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the run did not end with both CRSs done"; }

run_id=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['run_id'])" \
	"$tmp/work/scan.json")
run=$tmp/work/runs/$run_id
[ -d "$run" ] || fail "no run folder $run"
# crs-aflpp aimed at the change: the change's dictionary and CmpLog from
# the build step's second, CmpLog build
afl_log=$run/logs/crs-aflpp-fuzzer-fuzz_records.log
grep -q "direction: -x change.dict (.* entries) CmpLog (-c cmplog/fuzz_records)" \
	"$afl_log" || { cat "$afl_log" >&2; fail "run_afl.sh did not use change.dict and CmpLog"; }
[ -x "$tmp/work/builds/address/crs/crs-aflpp/BUILD_OUT_DIR/build/cmplog/fuzz_records" ] ||
	fail "no CmpLog build of fuzz_records"
note "crs-aflpp: $(grep -o 'direction: .*' "$afl_log")"
# Nothing of the scan is left on the engine.
owner=crs-ci-${run_id#*-}
[ -z "$(docker ps -aq --filter "name=$owner")" ] || fail "containers of $owner left behind"

python3 - "$run" "$tmp/out/results.json" <<'PY' || { cat "$tmp/log.txt" >&2; exit 1; }
import hashlib, json, os, re, statistics, sys

run, results = sys.argv[1], sys.argv[2]
h = "fuzz_records"
crss = ["crs-libfuzzer", "crs-aflpp"]

def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)

def note(msg):
    print("  - " + msg, file=sys.stderr)

def files(d):
    return sorted(n for n in os.listdir(d) if not n.startswith(".")) \
        if os.path.isdir(d) else []

def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()

def submit(c, kind):
    return os.path.join(run, "crs", c, "SUBMIT_DIR", h, kind)

def log(c):
    return open(os.path.join(run, "logs", f"{c}-fuzzer-{h}.log")).read()

# (a) seeds: submitted -> exchange, and the latency of each copy
exch = os.path.join(run, "EXCHANGE_DIR", h, "seeds")
exch_sha = {sha(os.path.join(exch, n)) for n in files(exch)}
subs = {}                       # name -> [(mtime_ns, crs)]
for c in crss:
    names = files(submit(c, "seeds"))
    if not names:
        fail(f"{c} submitted no seed")
    for n in names:
        p = os.path.join(submit(c, "seeds"), n)
        if sha(p) not in exch_sha:
            fail(f"seed {n} of {c} never reached the exchange")
        subs.setdefault(n, []).append((os.stat(p).st_mtime_ns, c))
lat = {c: [] for c in crss}
for n in files(exch):
    if n not in subs:
        continue
    m, c = min(subs[n])
    lat[c].append((os.stat(os.path.join(exch, n)).st_mtime_ns - m) / 1e9)
worst = 0.0
for c in crss:
    v = lat[c]
    if not v:
        fail(f"no seed of {c} in the exchange under its own name")
    worst = max(worst, max(v))
    note(f"exchange latency, seeds of {c}: {len(v)} seed(s), "
         f"median {statistics.median(v) * 1000:.1f} ms, "
         f"max {max(v) * 1000:.1f} ms")
if worst >= 1.0:
    fail(f"a seed took {worst:.3f} s to reach the exchange (limit 1 s)")
# ... and into the other CRS's own folder, through its fetch daemon
delivered = 0
for c in crss:
    for other in crss:
        if other == c:
            continue
        got = set(re.findall(r"fetched seed '([^']+)'", open(os.path.join(
            run, "crs", other, "LOG_DIR", h, "fetch-seeds.log")).read()))
        mine = {n for n, s in subs.items() if {x for _, x in s} == {c}}
        k = len(got & mine)
        delivered += k
        note(f"{k} seed(s) only {c} found were fetched by {other}")
if not delivered:
    fail("no seed went from one CRS to the other")

# (b) one finding, credited to the first finder
started = int(open(os.path.join(run, "started_at")).read())
first = {}
for c in crss:
    povs = files(submit(c, "povs"))
    if not povs:
        fail(f"{c} submitted no PoV: the bug must be found by both")
    first[c] = min(os.stat(os.path.join(submit(c, "povs"), p)).st_mtime
                   for p in povs)
    note(f"time to first PoV, {c}: {first[c] - started:.1f} s after the "
         f"run started ({len(povs)} PoV(s))")
res = json.load(open(results))
fs = [f for f in res["findings"] if f["harness"] == h]
if len(fs) != 1:
    fail(f"{len(fs)} findings, want 1: {[f['crash_type'] for f in fs]}")
f = fs[0]
if f["kind"] != "heap-buffer-overflow" or f["function"] != "parse_extended":
    fail(f"unexpected finding {f['kind']} in {f['function']}")
if f.get("duplicates", 0) < 1:
    fail(f"duplicates = {f.get('duplicates')}, want >= 1")
earliest = min(int(t) for t in first.values())  # triage reads whole seconds
want = {c for c, t in first.items() if int(t) == earliest}
if f["found_by"] not in want:
    fail(f"found_by {f['found_by']}, want {' or '.join(sorted(want))}")
note(f"one finding, {f['duplicates']} duplicate(s), found by "
     f"{f['found_by']} after {f['found_after_s']:.0f} s")

# (c) crs-libfuzzer stopped early; crs-aflpp kept going to its own end
m = re.search(r"stopping after the first crash \((\d+) s\)", log("crs-libfuzzer"))
if not m:
    fail("crs-libfuzzer did not stop at its first PoV:\n" + log("crs-libfuzzer"))
lf = int(m.group(1))
m = re.search(r"stopping: time up after (\d+) s", log("crs-aflpp"))
if not m:
    fail("crs-aflpp did not run to its time limit:\n" + log("crs-aflpp"))
af = int(m.group(1))
if af < 35 or af < lf + 20:
    fail(f"crs-aflpp ran {af} s, crs-libfuzzer {lf} s")
note(f"crs-libfuzzer exited after {lf} s; crs-aflpp fuzzed on to {af} s")
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "results.sarif validates"
