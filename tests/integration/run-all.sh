#!/usr/bin/env bash
# run-all.sh - run the integration tests (test_*.sh, and the engine test
# program) and print one closing line: "N passed, N failed". Before it, a
# table of each script's seconds, slowest first, also kept in
# build/integration-times.txt (CRS_CI_TIMES overrides the path).
#
# Usage: run-all.sh [-j N] [-J M] [-s I/N | -S] [test_x[.sh] ...]
#   -j N   run up to N scripts at once (default $CRS_CI_TEST_JOBS, else 1;
#          `make test` passes 2). A script with a line "# solo: WHY" runs
#          alone: it is CPU-bound or timing-sensitive, or it looks at or
#          changes what is on the whole engine. With N > 1 each script's
#          output goes to a file and is printed, whole, when it ends.
#   -J M   up to M at once (M > N) while the machine has CPU to spare:
#          with N or more running, one more starts when the cores were
#          less than 80% busy over the last 10 s (the scripts were waiting:
#          on a CRS that sleeps, a timeout, the engine) and no such extra
#          start came in the last 20 s, so its load is seen first (default
#          $CRS_CI_TEST_JOBS_MAX, else N; `make test` passes 3). A machine
#          the N scripts keep busy runs N, as -j N would.
#   -s I/N only shard I of N of the scripts that do not need the static
#          build (dealt round-robin, longest first, by the last run's
#          seconds in the times file): CI's integration jobs
#   -S     only the scripts that need the static build: CI's static job
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
jobs_max=${CRS_CI_TEST_JOBS_MAX:-}
shard=""; static_only=0
while getopts j:J:s:S opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	J) jobs_max=$OPTARG ;;
	s) shard=$OPTARG ;;
	S) static_only=1 ;;
	*) echo "usage: $0 [-j N] [-J M] [-s I/N | -S] [test_x[.sh] ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
count_ok() {	# OPTION VALUE: VALUE is a number of 1 or more, or exit 2
	case $2 in
	'' | *[!0-9]* | 0) echo "run-all.sh: $1 wants a number of 1 or more, not '$2'" >&2; exit 2 ;;
	esac
}
count_ok -j "$jobs"
jobs_max=${jobs_max:-$jobs}
count_ok -J "$jobs_max"
[ "$jobs_max" -ge "$jobs" ] || jobs_max=$jobs
shard_i=0; shard_n=0
if [ -n "$shard" ]; then
	shard_i=${shard%/*}; shard_n=${shard#*/}
	case $shard_i/$shard_n in
	*[!0-9/]* | */*/* | /* | */ | 0/* | */0) shard_n=0 ;;
	esac
	[ "$shard_n" -gt 0 ] 2>/dev/null && [ "$shard_i" -le "$shard_n" ] ||
		{ echo "run-all.sh: -s wants I/N with 1 <= I <= N, not '$shard'" >&2; exit 2; }
	[ "$static_only" = 0 ] || { echo "run-all.sh: -s and -S exclude each other" >&2; exit 2; }
fi

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

# kind_of[script]: shared, solo, static-shared or static-solo (a "# solo:"
# line; `make static`, the static fake provider or release.sh's assets);
# secs_of[script]: its seconds in the last run's times file (0: unknown)
declare -A kind_of=() secs_of=()
for t in "${all[@]}"; do
	kind=shared
	grep -q '^# solo:' "$t" && kind=solo
	grep -Eq 'make static|build_static_fake_llm|RELEASE_OUT=' "$t" && kind=static-$kind
	kind_of[$t]=$kind; secs_of[$t]=0
done
# the last run's seconds; on a fresh checkout, those committed beside this
# script (seconds.txt, a times file of `make test` on a 2-core machine)
order_from=$times
[ -f "$order_from" ] || order_from=./seconds.txt
if [ -f "$order_from" ]; then
	while read -r secs _ name _; do
		case $secs in '' | *[!0-9]*) continue ;; esac	# the heading
		[ -n "${kind_of[./$name]:-}" ] && secs_of[./$name]=$secs
	done <"$order_from"
fi
is_solo() { case ${kind_of[$1]} in *solo) return 0 ;; esac; return 1; }

# The order: scripts that can share the machine, the longest first, then
# the solo ones, then those that need the static build (same order); but
# once the static build is ready, the next free slot goes to the first
# shared script that needs it (next_script). -s deals the scripts without
# the static build out round-robin in that order; -S keeps only those
# with it.
groups=(shared solo static-shared static-solo)
[ -n "$shard" ] && groups=(shared solo)
[ "$static_only" = 1 ] && groups=(static-shared static-solo)
queue=(); static_wanted=0; dealt=0
logs=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-runall.XXXXXX")
for group in "${groups[@]}"; do
	for t in "${all[@]}"; do
		[ "${kind_of[$t]}" = "$group" ] && echo "${secs_of[$t]} $t"
	done | sort -rn -k1,1 -s | cut -d' ' -f2 >"$logs/order"
	mapfile -t part <"$logs/order"
	for t in "${part[@]}"; do
		if [ -n "$shard" ]; then
			dealt=$((dealt + 1))
			[ $(( (dealt - 1) % shard_n + 1 )) -eq "$shard_i" ] || continue
		fi
		queue+=("$t")
		case $group in static-*) static_wanted=1 ;; esac
	done
done
rm -f "$logs/order"
[ ${#queue[@]} -gt 0 ] || { rm -rf "$logs"; echo "run-all.sh: no script selected" >&2; exit 2; }

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

# Ctrl-C to each running script's process group (and the static build's);
# whatever still runs 15 s later (or ignores SIGINT, as a job started in
# the background does) gets SIGTERM.
stop_all() {
	local groups=() g i alive
	trap - INT TERM
	echo "run-all.sh: stopping ${!pid_of[*]} ${prebuild_pid:+static build}" >&2
	for t in "${!pid_of[@]}"; do groups+=("${pid_of[$t]}"); done
	[ -z "$prebuild_pid" ] || groups+=("$prebuild_pid")
	for g in "${groups[@]}"; do kill -INT -- "-$g" 2>/dev/null; done
	for i in $(seq 15); do
		alive=0
		for g in "${groups[@]}"; do kill -0 -- "-$g" 2>/dev/null && alive=1; done
		[ "$alive" = 1 ] || break
		sleep 1
	done
	for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
	wait
	rm -rf "$logs"
	exit 130
}
trap stop_all INT TERM

start() {	# script $1, in the background
	local t=$1
	if [ "$jobs_max" -eq 1 ]; then
		echo "== integration: $t"
		bash "$t" &
	else
		bash "$t" >"$logs/${t#./}.log" 2>&1 </dev/null &
	fi
	pid_of[$t]=$!
	start_of[$t]=$(date +%s)
}

finish() {	# script $1 has ended with exit status $2: its result and output
	local t=$1 rc=$2 result=ok secs
	unset "pid_of[$t]"
	secs=$(( $(date +%s) - start_of[$t] ))
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); failures+=("$t"); result="not ok"
	fi
	if [ "$jobs_max" -gt 1 ]; then
		echo "== integration: $t"
		cat "$logs/${t#./}.log"
	fi
	echo "$result: $t (${secs}s)"
	rows+=("$secs ${t#./} $result")
}

# wait_for_one [tick]: until one running script has ended (wait -n -p:
# bash 5.1); with "tick", at most 5 s (returns 1 if none has ended)
wait_for_one() {
	local t pid rc=0 tick=""
	if [ "${1:-}" = tick ]; then sleep 5 & tick=$!; fi
	wait -n -p pid "${pid_of[@]}" $tick || rc=$?
	if [ -n "$tick" ]; then
		[ "$pid" != "$tick" ] || return 1
		kill "$tick" 2>/dev/null; wait "$tick" 2>/dev/null
	fi
	for t in "${!pid_of[@]}"; do
		[ "${pid_of[$t]}" = "$pid" ] && { finish "$t" "$rc"; return; }
	done
}

# next_script: the index in queue of the script to start next, into
# $next: the first one left, or the first static-shared one left when the
# static build has ended (it waits on nothing then).
next_script() {
	local i
	next=
	if [ -n "$prebuild_pid" ] && ! kill -0 "$prebuild_pid" 2>/dev/null; then
		for i in "${!queue[@]}"; do
			[ "${kind_of[${queue[$i]}]}" = static-shared ] && { next=$i; return; }
		done
	fi
	for i in "${!queue[@]}"; do next=$i; return; done
}

# -J: /proc/stat samples (time, busy jiffies, all jiffies) of the last
# 30 s; when the last script beyond -j started
cpu_at=(); cpu_busy=(); cpu_all=(); last_extra=0
cpu_sample() {
	local now u n s idle io irq sirq steal i at=() busy=() all=()
	read -r _ u n s idle io irq sirq steal _ </proc/stat
	now=$(date +%s)
	for i in "${!cpu_at[@]}"; do
		[ $((now - cpu_at[i])) -le 30 ] || continue
		at+=("${cpu_at[i]}"); busy+=("${cpu_busy[i]}"); all+=("${cpu_all[i]}")
	done
	cpu_at=("${at[@]}" "$now")
	cpu_busy=("${busy[@]}" "$((u + n + s + irq + sirq + steal))")
	cpu_all=("${all[@]}" "$((u + n + s + idle + io + irq + sirq + steal))")
}

# room_to_spare: 0 when one more script may start beyond -j: fewer than
# -J run, none of them solo, the next is not solo, no such start in the
# last 20 s, and the cores were under 80% busy over the last 10 s or more
# (the newest sample at least 10 s old against the one just taken)
room_to_spare() {
	local t i last now busy
	[ ${#pid_of[@]} -lt "$jobs_max" ] || return 1
	for t in "${!pid_of[@]}"; do is_solo "$t" && return 1; done
	next_script
	is_solo "${queue[$next]}" && return 1
	cpu_sample
	now=${cpu_at[-1]}; last=$((${#cpu_at[@]} - 1))
	[ $((now - last_extra)) -ge 20 ] || return 1
	for ((i = last - 1; i >= 0; i--)); do
		[ $((now - cpu_at[i])) -ge 10 ] || continue
		[ $((cpu_all[last] - cpu_all[i])) -gt 0 ] || return 1
		busy=$((100 * (cpu_busy[last] - cpu_busy[i]) / (cpu_all[last] - cpu_all[i])))
		[ "$busy" -lt 80 ] || return 1
		last_extra=$now
		echo "== -J: the cores were ${busy}% busy over $((now - cpu_at[i])) s: script $(( ${#pid_of[@]} + 1 )) of $jobs_max starts"
		return 0
	done
	return 1
}

while [ ${#queue[@]} -gt 0 ]; do
	while [ ${#pid_of[@]} -ge "$jobs" ]; do
		if [ "$jobs_max" -gt "$jobs" ]; then
			room_to_spare && break
			wait_for_one tick || :
		else
			wait_for_one
		fi
	done
	next_script
	t=${queue[$next]}
	unset "queue[$next]"
	if is_solo "$t"; then
		while [ ${#pid_of[@]} -gt 0 ]; do wait_for_one; done
	fi
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
	echo "integration seconds per script (total $(( $(date +%s) - suite_start ))s, -j $jobs -J $jobs_max):"
	printf '%s\n' "${rows[@]}" | sort -rn | awk '{ printf "%6d s  %s%s\n", $1, $2, ($3 == "ok" ? "" : "  (failed)") }'
} | tee "$times"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
