#!/usr/bin/env bash
# run.sh - run the unit test programs, up to N at a time, and print each
# program's output whole when it ends ("== PROGRAM (SECONDS s)" first).
# Most of a unit run's time is spent waiting (a gateway's timeout, a
# mailbox's poll), not computing, so programs side by side finish in a
# fraction of the time one after another takes. Exit 1 when any program
# failed (named on the last line), 0 otherwise; 2 for a usage error.
#
# Usage: run.sh [-j N] PROGRAM...   (N: default $UNIT_JOBS, else 4)
set -u
jobs=${UNIT_JOBS:-4}
if [ "${1:-}" = -j ]; then
	jobs=${2:-}
	shift 2 || true
fi
case $jobs in
'' | *[!0-9]* | 0) echo "run.sh: -j wants a number of 1 or more, not '$jobs'" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "usage: $0 [-j N] PROGRAM..." >&2; exit 2; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-unit.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$logs"' EXIT
trap 'exit 130' INT TERM
declare -A prog_of=() start_of=() log_of=()	# running pid -> program, start, log
i=0
failed=()

# finish PID CODE: print the program's output and note a failure
finish() {
	local pid=$1 code=$2 p=${prog_of[$1]}
	echo "== $p ($(($(date +%s) - start_of[$1])) s)"
	cat "${log_of[$pid]}"
	[ "$code" -eq 0 ] || { echo "== $p: exit $code"; failed+=("$p"); }
	rm -f "${log_of[$pid]}"
	unset "prog_of[$pid]" "start_of[$pid]" "log_of[$pid]"
}

# wait_one: until one running program ends, then finish it
wait_one() {
	local pid code
	wait -n -p pid "${!prog_of[@]}"
	code=$?
	finish "$pid" "$code"
}

for p in "$@"; do
	while [ ${#prog_of[@]} -ge "$jobs" ]; do wait_one; done
	i=$((i + 1))
	"$p" >"$logs/$i.log" 2>&1 </dev/null &
	prog_of[$!]=$p
	log_of[$!]=$logs/$i.log
	start_of[$!]=$(date +%s)
done
while [ ${#prog_of[@]} -gt 0 ]; do wait_one; done

if [ ${#failed[@]} -gt 0 ]; then
	echo "unit: ${#failed[@]} program(s) failed: ${failed[*]}"
	exit 1
fi
echo "unit: $# program(s) passed"
