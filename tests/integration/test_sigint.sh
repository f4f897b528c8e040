#!/usr/bin/env bash
# test_sigint.sh - Ctrl-C during the run phase stops the scan, exits 130
# and leaves the engine's containers and networks as they were before;
# so does Ctrl-C while the first PoV is reproduced as the run ends.
# Compares crs-ci's containers and networks on the engine before and
# after (engine_snapshot --crs-ci): other scripts may run beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# scan_bg HARNESS NAME: a scan in the background (pid in $pid), its
# work folder $tmp/work-NAME, its log $tmp/log-NAME.txt
scan_bg() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness "$1" --timeout 10m --work-dir "$tmp/work-$2" \
		--out "$tmp/out-$2" >/dev/null 2>"$tmp/log-$2.txt" &
	pid=$!
}

# stop_scan NAME: Ctrl-C, then the scan must exit 130
stop_scan() {
	kill -INT "$pid"
	set +e
	wait "$pid"
	code=$?
	set -e
	[ "$code" -eq 130 ] || { cat "$tmp/log-$1.txt" >&2; fail "exit $code, want 130"; }
}

# wait_log NAME TEXT: until the scan's log says TEXT (300 s at most)
wait_log() {
	for _ in $(seq 1 6000); do
		grep -q "$2" "$tmp/log-$1.txt" && return 0
		kill -0 "$pid" 2>/dev/null ||
			{ cat "$tmp/log-$1.txt" >&2; fail "scan ended before: $2"; }
		sleep 0.05
	done
	fail "the scan's log never said: $2"
}

before=$(engine_snapshot --crs-ci)
scan_bg fuzz_text fuzzing
wait_log fuzzing "run fuzz_text: 1 CRS"
sleep 3
during=$(docker ps -q --filter "label=io.crs-ci.pid=$pid" | wc -l)
[ "$during" -ge 1 ] || fail "no CRS container was running"
stop_scan fuzzing
[ "$(engine_snapshot --crs-ci)" = "$before" ] || { docker ps -a >&2; docker network ls >&2; fail "containers or networks left behind"; }
note "SIGINT with $during container(s) running: exit 130, engine as before"

# Ctrl-C while the first PoV is reproduced as the run ends (early_jobs.h):
# its reproductions stop with the scan, and nothing of it is left.
scan_bg fuzz_records triage
wait_log triage "reproduced now, as the run goes on"
stop_scan triage
assert_no_leftovers "$tmp/work-triage"
note "SIGINT while the first PoV was reproduced: exit 130, nothing of the scan left"
