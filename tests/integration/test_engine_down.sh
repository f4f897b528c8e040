#!/usr/bin/env bash
# test_engine_down.sh - with no engine answering, scan exits 3 and says so;
# the pre-push hook refuses the push and says how to start the engine
# (or point DOCKER_HOST at one) and how to push once without the check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
down=unix:///nonexistent/docker.sock
cd "$ROOT"
set +e
msg=$(DOCKER_HOST=$down "$CRS_CI" scan \
	--compose container/crs/libfuzzer/compose.yaml \
	--project examples/projects/recparse --source . 2>&1)
code=$?
set -e
[ "$code" -eq 3 ] || fail "exit $code, want 3: $msg"
grep -q "engine unreachable at $down" <<<"$msg" \
	|| fail "message does not say the engine is unreachable: $msg"
# and the next step: start it, or point DOCKER_HOST at one that runs
grep -q "start the engine (sudo systemctl start docker, or run dockerd) or set DOCKER_HOST" <<<"$msg" \
	|| fail "message does not say how to start the engine: $msg"
note "$msg"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git init -q --bare "$tmp/remote.git"
cd "$tmp/repo"
git remote add origin "$tmp/remote.git"
git push -q origin main
"$CRS_CI" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" >/dev/null
set +e
msg=$(DOCKER_HOST=$down git push origin pr 2>&1)
code=$?
set -e
[ "$code" -ne 0 ] || fail "the push went out with no engine: $msg"
! git ls-remote --exit-code "$tmp/remote.git" refs/heads/pr >/dev/null ||
	fail "the branch reached the remote"
for want in "engine unreachable at $down" "sudo systemctl start docker" \
	"dockerd" "DOCKER_HOST" "git push --no-verify"; do
	grep -qF "$want" <<<"$msg" || fail "the hook's message lacks '$want': $msg"
done
note "$(grep -m1 'no scan without' <<<"$msg")"
