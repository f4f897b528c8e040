#!/usr/bin/env bash
# test_container_limits.sh - what a CRS container may do (issue 11), with
# the hostile tests/fixtures/crs-limits CRS alone in a scan of the
# recparse example. Inside its run container it records CapEff,
# NoNewPrivs and pids.max, tries mknod and a raw socket, asks
# build-project for a Dockerfile that reaches for the network and one
# that allocates 1.5 GiB (the CRS has 512M), floods stdout with
# $FLOOD_MB MiB and starts a fork bomb.
# Asserts: CapEff holds only the CRS run role's capabilities
# (runner/exec/container_policy.c), NoNewPrivs 1, pids.max 1024; mknod and the
# raw socket fail; both build-project requests fail, the first with only
# the loopback interface in the build; the engine's log of the container
# stays under the cap (2 x 16 MiB) while crs-ci's memory and its saved log
# stay small; the fork bomb stays under the pids limit while this shell
# still forks; the scan ends by its --timeout plus a grace and leaves no
# container or network.
# solo: starts a fork bomb and a 1.5 GiB build (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
fixture=$ROOT/tests/fixtures/crs-limits
timeout_s=75
grace_s=60
# 8 x the log cap; the engine's json-file logger takes ~20 MiB/s here
FLOOD_MB=256
# the CRS run role: CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID
allowed_caps=$(( (1 << 0) | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5) |
	(1 << 6) | (1 << 7) ))
log_cap=$(( 2 * 16 * 1048576 + 1048576 ))	# 2 x 16 MiB, one line over

python3 - "$fixture/compose.yaml" "$tmp/compose.yaml" "$FLOOD_MB" <<'PY'
import os, sys, yaml
src, dst, mb = sys.argv[1:]
c = yaml.safe_load(open(src))
c["crs-limits"]["source"]["local_path"] = os.path.dirname(src)
c["crs-limits"]["additional_env"] = {"LIMITS_FLOOD_MB": mb}
yaml.safe_dump(c, open(dst, "w"))
PY

t0=$SECONDS
"$CRS_CI" scan --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records \
	--timeout "${timeout_s}s" --work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt" &
pid=$!

# While it runs: the run container's engine log size and pids, crs-ci's
# memory, and whether this shell can still fork.
max_log=0 max_pids=0 max_rss=0 forks_failed=0
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
	[ "${rss:-0}" -le "$max_rss" ] || max_rss=$rss
	for id in $(docker ps -q --filter "label=io.crs-ci.pid=$pid" \
			--filter name=-crs-limits-limits-); do
		lp=$(docker inspect -f '{{.LogPath}}' "$id" 2>/dev/null) || continue
		n=$(cat "$lp"* 2>/dev/null | wc -c) || true	# it may be gone
		[ "$n" -le "$max_log" ] || max_log=$n
		p=$(docker stats --no-stream --format '{{.PIDs}}' "$id" 2>/dev/null || echo 0)
		[ "${p:-0}" -le "$max_pids" ] 2>/dev/null || max_pids=$p
	done
	( : ) || forks_failed=$((forks_failed + 1))
	sleep 1
done
set +e
wait "$pid"
code=$?
set -e
took=$((SECONDS - t0))
note "scan took ${took}s (exit $code); engine log max $max_log bytes, pids max $max_pids, crs-ci RSS max ${max_rss} kB"
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 0"; }
[ "$took" -le $((timeout_s + grace_s)) ] ||
	fail "the scan took ${took}s, more than its --timeout ${timeout_s}s + ${grace_s}s"
[ "$forks_failed" -eq 0 ] || fail "this shell could not fork $forks_failed time(s)"

run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
ldir=$tmp/work/runs/$run/crs/crs-limits/LOG_DIR/fuzz_records
llog=$ldir/limits.log
[ -f "$llog" ] || { cat "$tmp/log.txt" >&2; fail "no limits.log"; }
cat "$llog" >&2
field() { sed -n "s/^$1 //p" "$llog"; }

# 1. capabilities, no-new-privileges, pids
capeff=$(field capeff)
[ -n "$capeff" ] || fail "no CapEff recorded"
[ $(( 0x$capeff & ~allowed_caps )) -eq 0 ] ||
	fail "CapEff $capeff holds more than the run role's $(printf %x $allowed_caps)"
[ "$(field nonewprivs)" = 1 ] || fail "NoNewPrivs is not 1"
[ "$(field pids.max)" = 1024 ] || fail "pids.max is $(field pids.max), want 1024"
# 2. mknod and raw sockets
grep -Eq '^mknod exit=[1-9]' "$llog" || fail "mknod succeeded"
grep -Eq '^rawsocket exit=[1-9]' "$llog" || fail "a raw socket was opened"
# 3. build-project: offline, in the CRS's memory
grep -Eq '^build-project-net exit=[1-9]' "$llog" || fail "the networked build-project succeeded"
grep -q 'build network: lo $' "$ldir/resp-net/stderr.log" ||
	grep -q 'build network: lo ' "$ldir/resp-net/stderr.log" || {
	cat "$ldir/resp-net/stderr.log" >&2; fail "the build had a network interface besides lo"; }
! grep -q "^CONNECTED" "$ldir/resp-net/stderr.log" || fail "the build reached the network"
grep -Eq '^build-project-mem exit=[1-9]' "$llog" || {
	cat "$ldir/resp-mem/stderr.log" >&2; fail "a build allocated 1.5 GiB with 512M"; }
! grep -q "^ALLOCATED" "$ldir/resp-mem/stderr.log" || fail "the build allocated beyond the CRS's memory"
# 4. the log flood: the engine's log capped, crs-ci unaffected
grep -q '^flood done' "$llog" || fail "the flood did not finish"
[ "$max_log" -gt 0 ] || fail "never saw the container's engine log"
[ "$max_log" -le "$log_cap" ] || fail "the engine's log reached $max_log bytes (cap $log_cap)"
[ "$max_rss" -le $((256 * 1024)) ] || fail "crs-ci's RSS reached ${max_rss} kB"
for f in "$tmp/work/runs/$run/logs/"*.log; do
	[ "$(stat -c %s "$f")" -le $((16 * 1048576)) ] || fail "$f: $(stat -c %s "$f") bytes"
done
# 5. the fork bomb: held by the pids limit
grep -q '^forkbomb start' "$llog" || fail "the fork bomb did not start"
[ "$max_pids" -le 1024 ] || fail "the container ran $max_pids processes (limit 1024)"
# nothing of the scan is left
left=$(docker ps -aq --filter "label=io.crs-ci.pid=$pid"; docker network ls -q --filter "label=io.crs-ci.pid=$pid")
[ -z "$left" ] || fail "containers or networks of the scan left behind: $left"
# the work folder is the scan's user's only
[ "$(stat -c %a "$tmp/work")" = 700 ] || fail "the work folder is $(stat -c %a "$tmp/work"), want 700"
echo "ok test_container_limits"
