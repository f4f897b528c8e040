#!/usr/bin/env bash
# test_pre_commit_first_push.sh - the pre-commit framework's hook, installed
# as a user installs it (`pre-commit install --hook-type pre-push`, the hook
# from a repository holding crs-ci's .pre-commit-hooks.yaml), on the first
# push of the buggy branch to an empty remote: the pushed commits reach no
# remote-tracking ref, so pre-commit gives no range. The push is refused,
# never passed unscanned: first because nothing says where to scan from
# (the message names git config crs-ci.base and how to skip), then, with
# crs-ci.base set, by the planted heap-buffer-overflow. pre-commit warns
# about no deprecated stage name. Needs the engine and pre-commit 3.2 or
# later (lib.sh pre_commit_install).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pre_commit_install
mktemp_dir; tmp=$TMP
g() { git -c user.name=t -c user.email=t@example.invalid "$@"; }
# the hook's repository, as pre-commit clones it: the manifest at a commit
mkdir "$tmp/hooks"
cp "$ROOT/.pre-commit-hooks.yaml" "$tmp/hooks/"
git -C "$tmp/hooks" init -q
git -C "$tmp/hooks" add .pre-commit-hooks.yaml
g -C "$tmp/hooks" commit -qm "crs-ci hooks"
rev=$(git -C "$tmp/hooks" rev-parse HEAD)
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/repo")"
cd "$tmp/repo"
mkdir .crs-ci
sed "s|local_path: \"\\.\"|local_path: \"$ROOT/container/crs/libfuzzer\"|" \
	"$ROOT/container/crs/libfuzzer/compose.yaml" >.crs-ci/crs-compose.yaml
# verbose: the scan's log shows on a pass too (the failure's evidence)
# as docs/cmd/pre-push.md writes it: an older pre-commit than the
# manifest's stage names need stops with the version to install
printf 'minimum_pre_commit_version: "3.2.0"\nrepos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: crs-ci\n        verbose: true\n' \
	"$tmp/hooks" "$rev" >.pre-commit-config.yaml
git add .pre-commit-config.yaml	# pre-commit refuses an unstaged config
git config crs-ci.timeout 180	# the deadline: room for cold builds on a busy host
export PATH="$ROOT/build:$PATH" PRE_COMMIT_HOME="$tmp/pre-commit-home"
pre-commit install --hook-type pre-push >/dev/null
git init -q --bare "$tmp/remote.git"
g remote add origin "$tmp/remote.git"
[ -z "$(git for-each-ref refs/remotes)" ] || fail "remote-tracking refs before the first push"
# push_refused LOG: pushing pr is refused and nothing reaches the remote
push_refused() {
	local log=$1 code
	set +e
	g push origin pr >"$log" 2>&1
	code=$?
	set -e
	[ -z "${CLI_DEBUG:-}" ] || cat "$log" >&2
	[ "$code" -ne 0 ] || { cat "$log" >&2; fail "the first push of the buggy branch went out"; }
	[ -z "$(git ls-remote "$tmp/remote.git")" ] ||
		{ cat "$log" >&2; fail "the remote got refs"; }
	grep -q "no range" "$log" ||
		{ cat "$log" >&2; fail "not the no-range case of pre-commit"; }
	! grep -qi "deprecated" "$log" ||
		{ cat "$log" >&2; fail "pre-commit warned about something deprecated"; }
}
push_refused "$tmp/push1.txt"
grep -q "git config crs-ci.base REV" "$tmp/push1.txt" ||
	{ cat "$tmp/push1.txt" >&2; fail "the refusal does not say what to configure"; }
grep -q "SKIP=crs-ci git push" "$tmp/push1.txt" ||
	{ cat "$tmp/push1.txt" >&2; fail "the refusal does not say how to skip once"; }
note "no base: $(grep -m1 -o "there is no base.*" "$tmp/push1.txt" | cut -c1-150)..."
git config crs-ci.base main
push_refused "$tmp/push2.txt"
grep -q "\[new\] Heap-buffer-overflow" "$tmp/push2.txt" ||
	{ cat "$tmp/push2.txt" >&2; fail "the scan did not report the planted bug"; }
grep -q "pre-push: scanning ${base:0:12}\.\.${head:0:12}" "$tmp/push2.txt" ||
	{ cat "$tmp/push2.txt" >&2; fail "not scanned from main's merge-base"; }
note "pre-commit ($(pre-commit --version)), crs-ci.base main: $(grep -m1 '\[new\]' "$tmp/push2.txt" | sed 's/^ *//')"

# Debian 12's own pre-commit (3.0.4) on the same config: it stops before
# it reads the manifest, naming the version needed and how to upgrade
if v=$(env -u PYTHONPATH /usr/bin/pre-commit --version 2>/dev/null | sed -n 's/^pre-commit //p') &&
    ! pre_commit_new_enough "$v"; then
	set +e
	env -u PYTHONPATH /usr/bin/pre-commit run --hook-stage push >"$tmp/old.txt" 2>&1
	code=$?
	set -e
	[ "$code" -ne 0 ] || fail "pre-commit $v ran the hook"
	grep -q "pre-commit version 3.2.0 is required but version $v is installed.*upgrade pre-commit" "$tmp/old.txt" ||
		{ cat "$tmp/old.txt" >&2; fail "pre-commit $v does not say what to upgrade"; }
	note "pre-commit $v: $(grep -o 'pre-commit version 3.2.0 is required.*' "$tmp/old.txt")"
else
	note "the host's pre-commit is ${v:-absent}: the old-version message is not checked here"
fi
