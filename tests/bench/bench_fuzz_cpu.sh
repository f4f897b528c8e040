#!/usr/bin/env bash
# bench_fuzz_cpu.sh - fuzzing CPU-seconds per wall-second during the run
# phase, with and without lending oss_crs_infra's cores to the CRSs
# (issue 23, part 2: target >= 1.8 on 2 cores):
#
#   tests/bench/bench_fuzz_cpu.sh [TIMEOUT]   (default 3m; needs build/crs-ci,
#                                              the base images, a Docker CLI)
#   make bench-fuzz-cpu                       (the same, 3m)
#
# Two scans of a clean change to the recparse example (a comment added to
# src/recparse.c: nothing to find, so both harnesses, named with
# --harness, fuzz to the deadline) with the reference libFuzzer CRS and its 2-core compose:
# `--lend-cores no` (the CRS keeps to its core 1) and `--lend-cores yes`
# (the default: it may use core 0 too, where crs-ci's own containers
# outweigh it 8 to 1), back to back. While each scan runs, the CPU
# time of every CRS container (its cgroup's cpuacct.usage, or cpu.stat's
# usage_usec on cgroup v2) is sampled twice a second; the last sample of
# each container is its CPU time. Printed per scan: CRS CPU seconds, the
# run phase's and the fuzzing spans' wall seconds (results.json timings),
# CPU per wall-second of each, and the load average before and after (the
# machine may be shared: read the numbers with it). BENCH_KEEP=DIR keeps
# the logs and work dirs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
timeout=${1:-3m}
if [ -n "${BENCH_KEEP:-}" ]; then
	tmp=$BENCH_KEEP
	mkdir -p "$tmp"
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
command -v docker >/dev/null || { echo "bench: needs a Docker CLI" >&2; exit 2; }

# the clean change: main plus a comment
rm -rf "$tmp/repo"
"$ROOT/examples/make-repo.sh" "$tmp/repo" >/dev/null
g() { git -C "$tmp/repo" -c commit.gpgsign=false "$@"; }
g checkout -q main
base=$(g rev-parse HEAD)
printf '/* a comment, nothing else */\n' >> "$tmp/repo/src/recparse.c"
GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid \
GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid \
	g commit -q -am "a comment"
head=$(g rev-parse HEAD)

# usage_ns ID: the container's CPU time so far, in nanoseconds
usage_ns() {
	local f
	for f in /sys/fs/cgroup/cpuacct/docker/"$1"/cpuacct.usage \
	    /sys/fs/cgroup/cpu,cpuacct/docker/"$1"/cpuacct.usage; do
		[ -r "$f" ] && { cat "$f"; return; }
	done
	for f in /sys/fs/cgroup/system.slice/docker-"$1".scope/cpu.stat \
	    /sys/fs/cgroup/docker/"$1"/cpu.stat; do
		[ -r "$f" ] && { awk '$1 == "usage_usec" { print $2 * 1000 }' "$f"; return; }
	done
}

# sample OUT PID: the CPU time of each libFuzzer CRS container on the
# engine ("id name usage_ns" lines; the engine may be shared: the scan's
# own are picked out by name afterwards), twice a second, until the
# scan's process is gone
sample() {
	local out=$1 pid=$2 id name
	: > "$out"
	while kill -0 "$pid" 2>/dev/null; do
		docker ps --no-trunc --format '{{.ID}} {{.Names}}' \
		    --filter "name=-crs-libfuzzer-fuzzer-" 2>/dev/null |
		while read -r id name; do
			echo "$id $name $(usage_ns "$id")"
		done >> "$out"
		sleep 0.5
	done
}

one_scan() {
	local lend=$1 dir=$tmp/lend-$1 pid code
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "bench: --lend-cores $lend, --timeout $timeout; before: $(uptime)" >&2
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --harness fuzz_text \
		--timeout "$timeout" --lend-cores "$lend" \
		--work-dir "$tmp/work" --out "$dir/out" \
		>"$dir/verdict.txt" 2>"$dir/scan.log" &
	pid=$!
	sample "$dir/usage.txt" "$pid"
	set +e
	wait "$pid"
	code=$?
	set -e
	if [ "$code" -ne 0 ]; then
		cat "$dir/scan.log" "$dir/verdict.txt" >&2
		echo "bench: the scan exited $code, want 0 (clean)" >&2
		exit 1
	fi
	python3 - "$dir" "$lend" "$(cut -d' ' -f1-3 /proc/loadavg)" \
		"$tmp/work/scan.json" <<'PY'
import json, sys
d, lend, load, state = sys.argv[1:5]
# this scan's containers: "<owner>-<crs>-<module>-<harness>", the owner
# from its run id "<time>-<owner hash>"
owner = "crs-ci-" + json.load(open(state))["run_id"].split("-", 1)[1] + "-"
last = {}
for l in open(f"{d}/usage.txt"):
    p = l.split()
    if len(p) == 3 and p[1].startswith(owner) and p[2].isdigit():
        last[p[0]] = max(last.get(p[0], 0), int(p[2]))
cpu = sum(last.values()) / 1e9
t = json.load(open(f"{d}/out/results.json"))["timings"]
run = sum(s["end_s"] - s["start_s"] for s in t["spans"]
          if s["kind"] == "phase" and s["name"] == "run")
fuzz = sum(s["end_s"] - s["start_s"] for s in t["spans"] if s["kind"] == "fuzz")
print(f"lend-cores {lend}: {len(last)} CRS container(s), {cpu:.1f} CPU s; "
      f"run phase {run:.1f} s -> {cpu / run if run else 0:.2f} CPU s per "
      f"wall s; fuzzing {fuzz:.1f} s -> {cpu / fuzz if fuzz else 0:.2f}; "
      f"load after: {load}")
PY
}

one_scan no
one_scan yes
