#!/usr/bin/env bash
# run.sh - run the libFuzzer targets of tests/fuzz/ for a while each
#
#   tests/fuzz/run.sh BUILD SECONDS [TARGET...]    (make fuzz, fuzz-smoke)
#
# Each target BUILD/fuzzers/fuzz_T runs for SECONDS (-max_total_time) on
# a working corpus BUILD/corpus/T (new inputs land there) seeded from the
# committed tests/fuzz/corpus/T/, with tests/fuzz/T.dict when present and
# the input size cap below. Crashes, leaks and sanitizer reports are
# written to BUILD/crashes/T/ (libFuzzer then exits non-zero); the run
# fails when any target found one.
# libFuzzer's final statistics are kept in BUILD/logs/T.log.
# FUZZ_JOBS targets run at once (default: the number of cores), each on
# one core, each still for SECONDS; a target's summary is printed when it
# ends.
set -uo pipefail

build=${1:?usage: run.sh BUILD SECONDS [TARGET...]}
seconds=${2:?usage: run.sh BUILD SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$here"/fuzz_*.c; do
		t=${f##*/fuzz_}
		targets+=("${t%.c}")
	done
fi

# The largest input worth trying: about what the parser accepts from a
# container or a pull request, small enough to keep executions fast.
max_len() {
	case $1 in
	mailbox) echo 4096 ;;		# SIDECAR_REQUEST_MAX
	config) echo 16384 ;;
	gw_request|gw_response) echo 16384 ;;
	registry|dockerfile|literals) echo 16384 ;;
	*) echo 65536 ;;		# diff, sarif, crash, elf, lcov,
					# build_cache
	esac
}

# fuzz_one T: run target T for SECONDS; its summary goes to BUILD/logs/T.sum
# (printed by the caller when it ends); exit status: libFuzzer's.
fuzz_one() {
	local t=$1 bin=$build/fuzzers/fuzz_$1 work=$build/corpus/$1
	local crashes=$build/crashes/$1 log=$build/logs/$1.log rc args
	mkdir -p "$work" "$crashes" "${log%/*}"
	args=(-max_total_time="$seconds" -max_len="$(max_len "$t")"
	      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$crashes/")
	[ -f "$here/$t.dict" ] && args+=(-dict="$here/$t.dict")
	"$bin" "${args[@]}" "$work" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	{
		echo "== fuzz $t: ${seconds}s"
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done ' "$log"
		if [ $rc -ne 0 ]; then
			echo "run.sh: $t failed (exit $rc); see $log and $crashes/"
			grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5
		fi
	} >"$build/logs/$t.sum"
	return $rc
}

for t in "${targets[@]}"; do
	[ -x "$build/fuzzers/fuzz_$t" ] ||
		{ echo "run.sh: no target $build/fuzzers/fuzz_$t" >&2; exit 2; }
done
jobs=${FUZZ_JOBS:-$(nproc)}
case $jobs in
'' | *[!0-9]* | 0) echo "run.sh: FUZZ_JOBS wants a number of 1 or more, not '$jobs'" >&2; exit 2 ;;
esac
mkdir -p "$build/logs"
failed=()
declare -A target_of=()	# running pid -> target
reap() {	# wait for one running target; print its summary
	local pid rc=0
	wait -n -p pid || rc=$?
	cat "$build/logs/${target_of[$pid]}.sum" >&2
	[ $rc -eq 0 ] || failed+=("${target_of[$pid]}")
	unset "target_of[$pid]"
}
for t in "${targets[@]}"; do
	while [ ${#target_of[@]} -ge "$jobs" ]; do reap; done
	fuzz_one "$t" &
	target_of[$!]=$t
done
while [ ${#target_of[@]} -gt 0 ]; do reap; done
if [ ${#failed[@]} -ne 0 ]; then
	echo "run.sh: crashes in: ${failed[*]}" >&2
	exit 1
fi
