#!/usr/bin/env bash
# run-all.sh - run the integration tests (test_*.sh, and the engine test
# program) and print one closing line: "N passed, N failed". Before it, a
# table of each script's seconds, slowest first, also kept in
# build/integration-times.txt (CRS_CI_TIMES overrides the path).
#
# Usage: run-all.sh [-j N] [test_x[.sh] ...]
#   -j N   run up to N scripts at once (default $CRS_CI_TEST_JOBS, else 1;
#          `make test` passes 2). A script with a line "# solo: WHY" runs
#          alone: it is CPU-bound or timing-sensitive, or it looks at or
#          changes what is on the whole engine. With N > 1 each script's
#          output goes to a file and is printed, whole, when it ends.
#   NAMES  only these scripts (default: every test_*.sh)
# Scripts that need the static build (`make static`, release.sh) run
# last; its dependencies are built once, in the background from the start
# at the lowest priority (CRS_CI_STATIC_PREBUILD=0: not), while the other
# scripts run; the scripts wait on container/static/build.sh's lock.
# Ctrl-C (or TERM) stops every running script as Ctrl-C would stop it.
set -u
cd "$(dirname "$0")"
times=${CRS_CI_TIMES:-../../build/integration-times.txt}
jobs=${CRS_CI_TEST_JOBS:-1}
while getopts j: opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	*) echo "usage: $0 [-j N] [test_x[.sh] ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $jobs in
'' | *[!0-9]* | 0) echo "run-all.sh: -j wants a number of 1 or more, not '$jobs'" >&2; exit 2 ;;
esac

if [ $# -gt 0 ]; then
	all=()
	for n in "$@"; do
		n=${n##*/}; n=${n%.sh}
		[ -f "./$n.sh" ] || { echo "run-all.sh: no tests/integration/$n.sh" >&2; exit 2; }
		all+=("./$n.sh")
	done
else
	all=(./test_*.sh)
fi

is_solo() { grep -q '^# solo:' "$1"; }
needs_static() { grep -Eq 'make static|build_static_fake_llm|release/release\.sh' "$1"; }
# last run's seconds of script $1 (0 if unknown): the longest start first
last_secs() {
	awk -v t="${1#./}" '$3 == t { print $1; f = 1 } END { if (!f) print 0 }' \
		"$times" 2>/dev/null || echo 0
}

# The order: scripts that can share the machine, the longest first, then
# the solo ones, then those that need the static build (same order).
queue=(); static_wanted=0
for group in shared solo static-shared static-solo; do
	for t in "${all[@]}"; do
		kind=shared
		is_solo "$t" && kind=solo
		needs_static "$t" && { kind=static-$kind; static_wanted=1; }
		[ "$kind" = "$group" ] && echo "$(last_secs "$t") $t"
	done | sort -rn -k1,1 -s | while read -r _ t; do echo "$t"; done >"${TMPDIR:-/tmp}/crs-ci-runall-$$"
	mapfile -t part <"${TMPDIR:-/tmp}/crs-ci-runall-$$"
	queue+=("${part[@]}")
done
rm -f "${TMPDIR:-/tmp}/crs-ci-runall-$$"

logs=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-runall.XXXXXX")
set -m	# each script in its own process group, which Ctrl-C stops whole
prebuild_pid=""
if [ "$static_wanted" = 1 ] && [ "${CRS_CI_STATIC_PREBUILD:-1}" != 0 ]; then
	echo "== static dependencies: building in the background (log in $logs/static.log)"
	(cd ../.. && exec nice -n 19 make static) >"$logs/static.log" 2>&1 &
	prebuild_pid=$!
fi

declare -A pid_of=() start_of=()	# running script -> pid, start time
passed=0; failed=0; failures=(); rows=()
suite_start=$(date +%s)

stop_all() {
	trap - INT TERM
	echo "run-all.sh: stopping ${!pid_of[*]} ${prebuild_pid:+static build}" >&2
	for t in "${!pid_of[@]}"; do kill -INT -- "-${pid_of[$t]}" 2>/dev/null; done
	[ -z "$prebuild_pid" ] || kill -INT -- "-$prebuild_pid" 2>/dev/null
	wait
	rm -rf "$logs"
	exit 130
}
trap stop_all INT TERM

start() {	# script $1, in the background
	local t=$1
	if [ "$jobs" -eq 1 ]; then
		echo "== integration: $t"
		bash "$t" &
	else
		bash "$t" >"$logs/${t#./}.log" 2>&1 </dev/null &
	fi
	pid_of[$t]=$!
	start_of[$t]=$(date +%s)
}

finish() {	# script $1 has ended: its result and output
	local t=$1 rc=0 result=ok secs
	wait "${pid_of[$t]}" || rc=$?
	unset "pid_of[$t]"
	secs=$(( $(date +%s) - start_of[$t] ))
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); failures+=("$t"); result="not ok"
	fi
	if [ "$jobs" -gt 1 ]; then
		echo "== integration: $t"
		cat "$logs/${t#./}.log"
	fi
	echo "$result: $t (${secs}s)"
	rows+=("$secs ${t#./} $result")
}

wait_for_one() {	# until one running script has ended
	local t
	while :; do
		for t in "${!pid_of[@]}"; do
			kill -0 "${pid_of[$t]}" 2>/dev/null || { finish "$t"; return; }
		done
		sleep 1
	done
}

for t in "${queue[@]}"; do
	if is_solo "$t"; then
		while [ ${#pid_of[@]} -gt 0 ]; do wait_for_one; done
	fi
	while [ ${#pid_of[@]} -ge "$jobs" ]; do wait_for_one; done
	start "$t"
	if is_solo "$t"; then wait_for_one; fi
done
while [ ${#pid_of[@]} -gt 0 ]; do wait_for_one; done
if [ -n "$prebuild_pid" ]; then
	wait "$prebuild_pid" ||
		{ echo "== static prebuild failed (the scripts that need it say more):"; tail -n 30 "$logs/static.log"; }
fi
rm -rf "$logs"

mkdir -p "$(dirname "$times")"
{
	echo "integration seconds per script (total $(( $(date +%s) - suite_start ))s, -j $jobs):"
	printf '%s\n' "${rows[@]}" | sort -rn | awk '{ printf "%6d s  %s%s\n", $1, $2, ($3 == "ok" ? "" : "  (failed)") }'
} | tee "$times"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
