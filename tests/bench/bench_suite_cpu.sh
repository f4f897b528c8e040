#!/usr/bin/env bash
# bench_suite_cpu.sh - where the integration suite's CPU goes: run some
# integration scripts (default: every one) under BSD process accounting
# and print the wall time, the host's CPU seconds, and the CPU seconds by
# command name (every process that ended, in containers too) plus the
# Docker daemons' own. The suite is CPU-bound on 2 cores, so these
# seconds, not the scripts' wall times, say what shortens it.
#
# Usage: make bench-suite-cpu [BENCH_SUITE_ARGS="-j 2 test_a test_b"]
#        tests/bench/bench_suite_cpu.sh [run-all.sh arguments]
# Needs root (accton) and Debian's acct package (installed when missing).
# Accounting is machine-wide: run it on an otherwise quiet machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench_suite_cpu: accton needs root" >&2; exit 2; }
command -v accton >/dev/null || apt-get install -y -qq acct >/dev/null
[ $# -gt 0 ] || set -- -j 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-suite-cpu.XXXXXX")
trap 'accton off >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
host_cpu() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
daemons() {	# "name ticks" of the live Docker daemons
	local p f
	for p in $(pgrep -x dockerd) $(pgrep -x containerd); do
		read -r -a f <"/proc/$p/stat" || continue
		echo "${f[1]} $((f[13] + f[14]))"
	done
}

touch "$tmp/pacct"
daemons >"$tmp/d0"
h0=$(host_cpu); s0=$(date +%s)
accton "$tmp/pacct" >/dev/null
set +e
CRS_CI_TIMES="$tmp/times.txt" "$root/tests/integration/run-all.sh" "$@" >"$tmp/run.log" 2>&1
rc=$?
set -e
accton off >/dev/null
h1=$(host_cpu); s1=$(date +%s)
daemons >"$tmp/d1"

tail -n 1 "$tmp/run.log"
echo "wall $((s1 - s0)) s, host CPU $(((h1 - h0) / hz)) s (of $(((s1 - s0) * $(nproc))) s on $(nproc) cores)"
echo "CPU seconds by command (processes that ended, then the daemons):"
# sa -a: every command, its CPU in minutes ("cp"); the total line first
sa -a "$tmp/pacct" | awk '
	NR == 1 { next }
	{ cpu[$NF] += $3 * 60 }
	END { for (c in cpu) if (cpu[c] >= 1) printf "%8.0f  %s\n", cpu[c], c }' |
	sort -rn | head -n 25
paste "$tmp/d0" "$tmp/d1" | awk -v hz="$hz" '{ printf "%8.0f  %s (live)\n", ($4 - $2) / hz, $1 }'
exit "$rc"
