#!/usr/bin/env bash
# test_pre_push_no_base.sh - git's own pre-push hook (crs-ci hook install)
# on the first push to an empty remote, where no remote-tracking ref tells
# where the new branch starts: the push is refused, never passed
# unscanned, with what to configure (git fetch, git config crs-ci.base)
# and how to skip once. A crs-ci.base that is no commit is named; with a
# good one the scan starts from it (here the engine is down, so the push
# stops there, saying so); a branch already in its base has nothing to
# scan and goes. Needs no engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git init -q --bare "$tmp/remote.git"
cd "$tmp/repo"
git remote add origin "$tmp/remote.git"
"$CRS_CI" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" >/dev/null
export DOCKER_HOST=unix:///nonexistent/docker.sock
# push_refused WANT...: pushing pr fails, naming each WANT; nothing goes out
push_refused() {
	local msg code want
	set +e
	msg=$(git push origin pr 2>&1)
	code=$?
	set -e
	[ "$code" -ne 0 ] || fail "the push went out: $msg"
	[ -z "$(git ls-remote "$tmp/remote.git")" ] || fail "the remote got refs: $msg"
	for want in "$@"; do
		grep -qF -- "$want" <<<"$msg" || fail "the refusal lacks '$want': $msg"
	done
	note "$(grep -m1 'error' <<<"$msg" | cut -c1-150)..."
}
push_refused "there is no base to scan it from" "git fetch origin" \
	"git config crs-ci.base REV" "git push --no-verify"
git config crs-ci.base no-such-branch
push_refused "crs-ci.base: 'no-such-branch' is not a commit"
git config crs-ci.base main
push_refused "pre-push: scanning ${base:0:12}..${head:0:12}" \
	"engine unreachable" "sudo systemctl start docker"
msg=$(git push origin main 2>&1) || fail "main, already in its base, was refused: $msg"
grep -q "nothing new to scan" <<<"$msg" || fail "no word that main has nothing new: $msg"
git ls-remote --exit-code "$tmp/remote.git" refs/heads/main >/dev/null ||
	fail "main not on the remote"
note "main (already in crs-ci.base) pushed: $(grep -m1 'nothing new' <<<"$msg")"
