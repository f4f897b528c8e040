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

failed=()
for t in "${targets[@]}"; do
	bin=$build/fuzzers/fuzz_$t
	work=$build/corpus/$t
	crashes=$build/crashes/$t
	log=$build/logs/$t.log
	[ -x "$bin" ] || { echo "run.sh: no target $bin" >&2; exit 2; }
	mkdir -p "$work" "$crashes" "${log%/*}"
	args=(-max_total_time="$seconds" -max_len="$(max_len "$t")"
	      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$crashes/")
	[ -f "$here/$t.dict" ] && args+=(-dict="$here/$t.dict")
	echo "== fuzz $t: ${seconds}s" >&2
	"$bin" "${args[@]}" "$work" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done ' \
		"$log" >&2
	if [ $rc -ne 0 ]; then
		echo "run.sh: $t failed (exit $rc); see $log and $crashes/" >&2
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 >&2
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "run.sh: crashes in: ${failed[*]}" >&2
	exit 1
fi
