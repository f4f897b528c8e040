#!/usr/bin/env bash
# test_sigint.sh - Ctrl-C during the run phase stops the scan, exits 130
# and leaves the engine's containers and networks as they were before.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
before=$(engine_snapshot)
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_text --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" >/dev/null 2>"$tmp/log.txt" &
pid=$!
for _ in $(seq 1 600); do
	grep -q "run fuzz_text: 1 CRS" "$tmp/log.txt" && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/log.txt" >&2; fail "scan ended early"; }
	sleep 0.5
done
grep -q "run fuzz_text: 1 CRS" "$tmp/log.txt" || fail "run phase never started"
sleep 3
during=$(docker ps -q --filter "label=io.crs-ci.owner" | wc -l)
[ "$during" -ge 1 ] || fail "no CRS container was running"
kill -INT "$pid"
set +e
wait "$pid"
code=$?
set -e
[ "$code" -eq 130 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 130"; }
[ "$(engine_snapshot)" = "$before" ] || { docker ps -a >&2; docker network ls >&2; fail "containers or networks left behind"; }
note "SIGINT with $during container(s) running: exit 130, engine as before"
