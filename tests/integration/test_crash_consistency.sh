#!/usr/bin/env bash
# test_crash_consistency.sh - what is left when crs-ci dies (issue 11),
# with the tests/fixtures/crs-sleeper CRS (it submits a PoV that crashes
# nothing and waits, ignoring SIGTERM) and the LLM gateway, so a scan in its run phase has a
# CRS container, a CRS network, the gateway, its egress network and its
# key files.
#
#  1. scan B runs (the live scan); scan A is started, and once its run
#     phase holds all of the above, A and its watchdog are killed with
#     SIGKILL (as the OOM killer or a runner's hard kill would). A's
#     objects are still there. The next engine-using command (crs-ci
#     prepare) removes every container, network and key file of A, and
#     none of B's: B is alive.
#  2. scan A runs again; only crs-ci is killed with SIGKILL: its watchdog
#     removes A's containers, networks and key files within 30 s.
#  3. the engine is restarted under B (stopped, then, once B has ended,
#     started again the way container/setup-host.sh does; only when no
#     other crs-ci scan runs on it): the engine's shutdown waits 10 s for
#     B's CRS, which ignores SIGTERM, so B is still waiting on it when the
#     engine goes; B fails with exit 3 and one error line, leaves no temp
#     file, and once the engine answers again the next crs-ci command
#     removes everything of B (B's watchdog, which would too, is killed
#     first). The test ends with the engine answering.
#
# Objects are told apart by their io.crs-ci.pid label (the pid of the
# crs-ci that made them), never by listing all containers: other scans
# may run on the same engine.
# solo: restarts the engine (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
# a scan still running when the test fails is stopped (it cleans up)
# (and an engine this test stopped is started again)
engine_stopped=
trap 'for p in "$tmp"/*.pid; do kill "$(cat "$p")" 2>/dev/null || true; done; wait
	if [ -n "$engine_stopped" ] && ! docker info >/dev/null 2>&1; then
		bash "$ROOT/container/setup-host.sh" >&2 || echo "FAIL: the engine did not come back" >&2
	fi
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
fixture=$ROOT/tests/fixtures/crs-sleeper
(cd "$ROOT" && make static >/dev/null 2>"$tmp/static.log") ||
	{ cat "$tmp/static.log" >&2; fail "make static"; }
mkdir -p "$tmp/compose"
cp "$fixture/litellm.yaml" "$tmp/compose/"
sed "s|local_path: \".\"|local_path: \"$fixture\"|" "$fixture/compose.yaml" \
	>"$tmp/compose/compose.yaml"
export FAKE_LLM_API_KEY=not-a-real-key-$$

# scan NAME: start a scan in the background in work dir $tmp/NAME, with
# its own TMPDIR $tmp/NAME.tmp; its pid goes to $tmp/NAME.pid.
scan() {
	local name=$1
	mkdir -p "$tmp/$name.tmp"
	TMPDIR=$tmp/$name.tmp "$CRS_CI" scan --compose "$tmp/compose/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
		--base "$base" --head "$head" --harness fuzz_records \
		--timeout 5m --work-dir "$tmp/$name" --out "$tmp/$name-out" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	echo $! >"$tmp/$name.pid"
}
# objects PID: the containers and networks crs-ci PID made
objects() {
	docker ps -aq --filter "label=io.crs-ci.pid=$1"
	docker network ls -q --filter "label=io.crs-ci.pid=$1"
}
# keys NAME: the gateway key files of scan NAME
keys() { find "$tmp/$1/runs" -path '*/llm/keys/*' -type f 2>/dev/null || true; }
# running NAME: wait (up to 240 s) until scan NAME's CRS and gateway
# containers run and its key files are there
running() {
	local name=$1 pid
	pid=$(cat "$tmp/$name.pid")
	for _ in $(seq 1200); do
		kill -0 "$pid" 2>/dev/null ||
			{ cat "$tmp/$name.err" >&2; fail "scan $name ended early"; }
		if [ -n "$(docker ps -q --filter "label=io.crs-ci.pid=$pid" --filter name=-crs-sleeper-sleeper-)" ] &&
		   [ -n "$(docker ps -q --filter "label=io.crs-ci.pid=$pid" --filter name=-llm-gateway)" ] &&
		   [ -n "$(keys "$name")" ] &&
		   [ -n "$(find "$tmp/$name/runs" -name sleeper.log 2>/dev/null)" ]; then
			return 0
		fi
		sleep 0.2
	done
	cat "$tmp/$name.err" >&2
	fail "scan $name did not reach its run phase"
}
# watchdog NAME: the pid of scan NAME's watchdog (its log's first line)
watchdog() { sed -n 's/.*watchdog \([0-9][0-9]*\) for .*/\1/p' "$tmp/$1/logs/watchdog.log" | tail -n 1; }
# counts PID: "<containers> <networks>" of the run phase's standing
# objects: the CRS and gateway containers and the networks. The sleeper's
# PoV is reproduced as soon as it arrives (early_jobs.h), so a scan also
# has short-lived reproduction containers that come and go by
# themselves; `objects` still lists them, and they must be reaped too.
counts() {
	local c
	c=$( (docker ps -aq --filter "label=io.crs-ci.pid=$1" --filter name=-crs-sleeper-sleeper-
	      docker ps -aq --filter "label=io.crs-ci.pid=$1" --filter name=-llm-gateway) | wc -l)
	echo "$c $(docker network ls -q --filter "label=io.crs-ci.pid=$1" | wc -l)"
}

# --- 1. SIGKILL of crs-ci and its watchdog: the next command reaps -----
scan B
running B
pid_b=$(cat "$tmp/B.pid")
b_before=$(counts "$pid_b")
note "live scan B (pid $pid_b): containers and networks $b_before"
# A starts from B's builds (the same images): it reaches its run phase sooner
mkdir -p "$tmp/A"
cp -a "$tmp/B/builds" "$tmp/B/source" "$tmp/A/"
scan A
running A
pid_a=$(cat "$tmp/A.pid")
wd_a=$(watchdog A)
[ -n "$wd_a" ] || fail "scan A has no watchdog (no $tmp/A/logs/watchdog.log line)"
a_before=$(counts "$pid_a")
kill -9 "$pid_a" "$wd_a"
while kill -0 "$pid_a" 2>/dev/null || kill -0 "$wd_a" 2>/dev/null; do sleep 0.1; done
a_left=$(counts "$pid_a")
note "killed scan A (pid $pid_a) and its watchdog ($wd_a): left $a_left, key files $(keys A | wc -l)"
[ "$a_left" = "$a_before" ] || fail "scan A had $a_before containers and networks, left $a_left"
case $a_left in 0\ *|*\ 0) fail "scan A had no container or no network: $a_left" ;; esac
[ -n "$(keys A)" ] || fail "scan A left no key files to reap"
"$CRS_CI" prepare --compose "$tmp/compose/compose.yaml" --work-dir "$tmp/C" \
	>"$tmp/C.out" 2>"$tmp/C.err" || { cat "$tmp/C.err" >&2; fail "crs-ci prepare failed"; }
grep -q "cleanup: removed" "$tmp/C.err" || { cat "$tmp/C.err" >&2; fail "prepare reaped nothing"; }
[ -z "$(objects "$pid_a")" ] || fail "stale objects of scan A left: $(objects "$pid_a" | tr '\n' ' ')"
[ -z "$(keys A)" ] || fail "stale key files of scan A left: $(keys A)"
kill -0 "$pid_b" || fail "the live scan B died"
[ "$(counts "$pid_b")" = "$b_before" ] || fail "scan B's objects changed: $b_before -> $(counts "$pid_b")"
[ -n "$(keys B)" ] || fail "scan B's key files were removed"
note "crs-ci prepare removed scan A's objects and key files; scan B untouched"

# --- 2. SIGKILL of crs-ci alone: its watchdog cleans up ----------------
rm -f "$tmp/A/logs/watchdog.log"
scan A
running A
pid_a=$(cat "$tmp/A.pid")
kill -9 "$pid_a"
for _ in $(seq 300); do
	[ -n "$(objects "$pid_a")$(keys A)" ] || break
	sleep 0.1
done
[ -z "$(objects "$pid_a")" ] || fail "the watchdog left scan A's objects: $(objects "$pid_a" | tr '\n' ' ')"
[ -z "$(keys A)" ] || fail "the watchdog left scan A's key files: $(keys A)"
kill -0 "$pid_b" || fail "the live scan B died"
[ "$(counts "$pid_b")" = "$b_before" ] || fail "scan B's objects changed: $b_before -> $(counts "$pid_b")"
note "the watchdog removed scan A's objects and key files"

# --- 3. the engine restarts under scan B ------------------------------
# Only when no other crs-ci scan uses the engine (it would lose its
# containers): wait for that.
for i in $(seq 900); do
	others=$(docker ps -q --filter label=io.crs-ci.owner | while read -r id; do
		[ "$(docker inspect -f '{{index .Config.Labels "io.crs-ci.pid"}}' "$id")" = "$pid_b" ] || echo "$id"
	done)
	[ -n "$others" ] || break
	[ "$i" -lt 900 ] || fail "other crs-ci scans kept running for 15 minutes: not restarting the engine"
	[ $((i % 30)) -ne 1 ] || note "waiting for other crs-ci scans to end before restarting the engine"
	sleep 1
done
dpid=$(cat /var/run/docker.pid)
note "stopping dockerd (pid $dpid)"
engine_stopped=1
kill "$dpid"
while kill -0 "$dpid" 2>/dev/null; do sleep 0.2; done
# the engine stays away until B has ended
for _ in $(seq 900); do kill -0 "$pid_b" 2>/dev/null || break; sleep 0.2; done
kill -0 "$pid_b" 2>/dev/null && note "scan B still runs 180 s after the engine went away"
set +e
wait "$pid_b"
code=$?
set -e
# B's watchdog would remove B's objects once the engine is back; kill it
# so that the next command's reaper has to
wd_b=$(watchdog B)
[ -n "$wd_b" ] || fail "scan B has no watchdog"
kill -9 "$wd_b" 2>/dev/null || true
note "restarting dockerd"
bash "$ROOT/container/setup-host.sh" >"$tmp/setup-host.log" 2>&1 ||
	{ cat "$tmp/setup-host.log" >&2; fail "the engine did not come back"; }
docker info >/dev/null 2>&1 || fail "the engine does not answer"
cat "$tmp/B.err" >&2
[ "$code" -eq 3 ] || fail "scan B exited $code when the engine went away, want 3"
[ "$(grep -c 'error:' "$tmp/B.err")" -eq 1 ] || fail "want one error line from scan B"
# no temp files of B: beside the work dir's files, and in its TMPDIR
[ -z "$(find "$tmp/B" "$tmp/B-out" -name '*.tmp*' -o -name '*.part' 2>/dev/null)" ] ||
	fail "temp files left: $(find "$tmp/B" "$tmp/B-out" -name '*.tmp*' -o -name '*.part')"
[ -z "$(ls -A "$tmp/B.tmp")" ] || fail "temp files left in scan B's TMPDIR: $(ls -A "$tmp/B.tmp")"
"$CRS_CI" prepare --compose "$tmp/compose/compose.yaml" --work-dir "$tmp/C" \
	>"$tmp/C.out" 2>"$tmp/C2.err" || { cat "$tmp/C2.err" >&2; fail "crs-ci prepare failed after the restart"; }
grep -q "cleanup: removed" "$tmp/C2.err" || { cat "$tmp/C2.err" >&2; fail "prepare reaped nothing after the restart"; }
[ -z "$(objects "$pid_b")" ] || fail "scan B's objects left after the restart: $(objects "$pid_b" | tr '\n' ' ')"
[ -z "$(keys B)" ] || fail "scan B's key files left after the restart: $(keys B)"
note "after the restart: scan B exited 3, nothing of it is left"
echo "ok test_crash_consistency"
