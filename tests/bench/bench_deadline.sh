#!/usr/bin/env bash
# bench_deadline.sh - how much of its deadline a clean scan of a real
# library fuzzes (issue 13: at least 85 %), on the real engine:
#
#   tests/bench/bench_deadline.sh [TIMEOUT]    (default 15m; needs build/crs-ci)
#
# One scan of cJSON 1.7.15 (tests/bench/real/make-cjson-repo.sh) with a
# harmless pull request (clean-reject-nan.patch: parse_number, which
# cjson_read_fuzzer reaches, rejects NaN), in a fresh work dir, so the
# builds are paid as in a first CI run; CRS and target images are the
# engine's (warm when another scan built them). Prints the scan's wall
# time, when fuzzing began and ended (time-stamped log lines), each
# harness's fuzzing seconds (runs/<id>/harness_runs.json), the reserve
# the run phase kept, and fuzzing as a part of the deadline. The scan
# must end clean (exit 0). BENCH_KEEP=DIR keeps the logs and work dir.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
timeout=${1:-15m}
if [ -n "${BENCH_KEEP:-}" ]; then
	tmp=$BENCH_KEEP
	mkdir -p "$tmp"
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
eval "$("$ROOT/tests/bench/real/make-cjson-repo.sh" "$tmp/repo" \
	"$ROOT/tests/bench/real/clean-reject-nan.patch")"

echo "bench: cJSON, clean PR, --timeout $timeout (one scan)" >&2
t0=$(date +%s.%N)
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/tests/bench/real/projects/cjson" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--timeout "$timeout" --work-dir "$tmp/work" --out "$tmp/out" \
	2>&1 >"$tmp/verdict.txt" |
	while IFS= read -r line; do
		printf '%s %s\n' "$(date +%s.%N)" "$line"
	done >"$tmp/scan.log"
code=${PIPESTATUS[0]}
set -e
t1=$(date +%s.%N)
if [ "$code" -ne 0 ]; then
	cat "$tmp/scan.log" "$tmp/verdict.txt" >&2
	echo "bench: the scan exited $code, want 0 (clean)" >&2
	exit 1
fi

python3 - "$tmp" "$timeout" "$t0" "$t1" <<'PY'
import glob, json, re, sys
tmp, timeout, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
m = re.fullmatch(r"(\d+)([smh]?)", timeout)
deadline = int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
log = []
for l in open(f"{tmp}/scan.log"):
    t, _, msg = l.rstrip("\n").partition(" ")
    log.append((float(t) - t0, msg))
def first(pat):
    return next(((t, msg) for t, msg in log if re.search(pat, msg)), (None, ""))
run_at, run_msg = first(r"crs-ci: run: \d+s left; \d+s kept")
fuzz_at, _ = first(r"crs-ci: run \S+: \d+ CRS\(s\) for up to")
stop_at, _ = first(r"crs-ci: run \S+: (time share of|every CRS module finished)")
runs = json.load(open(glob.glob(f"{tmp}/work/runs/*/harness_runs.json")[0]))
fuzzed = sum(r["fuzzed_seconds"] for r in runs)
wall = t1 - t0
print(f"bench_deadline: cJSON 1.7.15, clean PR (clean-reject-nan.patch), --timeout {timeout}")
print(f"  {run_msg.replace('crs-ci: ', '')}")
print(f"  builds and selection: {fuzz_at:.1f}s (first CRS started)")
for r in runs:
    print(f"  harness {r['harness']}: fuzzed {r['fuzzed_seconds']:.1f}s of "
          f"{r['wanted_seconds']:.1f}s due"
          + (f" ({r['reason']})" if r["reason"] else ""))
print(f"  fuzzing stopped at {stop_at:.1f}s; the scan ended at {wall:.1f}s "
      f"({deadline - wall:.1f}s of the deadline unused)")
print(f"  fuzzed {fuzzed:.1f}s of the {deadline}s deadline: "
      f"{100 * fuzzed / deadline:.1f} % (target >= 85 %)")
PY
