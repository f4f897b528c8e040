#!/usr/bin/env bash
# test_pre_push.sh - the local pre-push hook: installed in a repository,
# it refuses a push of the branch with the example's bug (naming the
# finding) and lets a clean branch through; uninstall removes it. In a
# repository with .clusterfuzzlite/ it needs no --project.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git init -q --bare "$tmp/remote.git"
cd "$tmp/repo"
g() { git -c user.name=t -c user.email=t@example.invalid "$@"; }
g remote add origin "$tmp/remote.git"
g push -q origin main
"$CRS_CI" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --timeout 120s >/dev/null
[ -x .git/hooks/pre-push ] || fail "no hook installed"
[ "$(git config crs-ci.failOn)" = new ] || fail "options not in git config"
# pr_refused LOG REMOTE: pushing branch pr (the pull request's new
# heap-buffer-overflow) from the current repository is refused, naming it
pr_refused() {
	local log=$1 remote=$2 code
	set +e
	g push origin pr >"$log" 2>&1
	code=$?
	set -e
	[ "$code" -ne 0 ] || { cat "$log" >&2; fail "push of the buggy branch was not refused"; }
	grep -q "\[new\] Heap-buffer-overflow" "$log" || { cat "$log" >&2; fail "finding not shown"; }
	grep -q "push blocked" "$log" || fail "no 'push blocked' message"
	git ls-remote --exit-code "$remote" refs/heads/pr >/dev/null 2>&1 \
		&& fail "the buggy branch reached the remote"
	note "buggy branch refused: $(grep -m1 '\[new\]' "$log" | sed 's/^ *//')"
}
pr_refused "$tmp/push1.txt" "$tmp/remote.git"
# a clean branch from main pushes
g checkout -q -b clean main
echo "More notes." >> README.md 2>/dev/null || echo "More notes." > NOTES.md
g add -A && g commit -qm "docs: more notes"
set +e
g push origin clean >"$tmp/push2.txt" 2>&1
code=$?
set -e
[ "$code" -eq 0 ] || { cat "$tmp/push2.txt" >&2; fail "clean push refused (exit $code)"; }
git ls-remote --exit-code "$tmp/remote.git" refs/heads/clean >/dev/null \
	|| fail "clean branch not on the remote"
"$CRS_CI" hook uninstall >/dev/null
[ ! -e .git/hooks/pre-push ] || fail "hook still there after uninstall"
note "clean branch pushed; hook uninstalled"
# a repository with .clusterfuzzlite/: installed without --project, the
# hook finds the folder at each push and refuses the buggy branch too
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/cfl")"
git init -q --bare "$tmp/cfl-remote.git"
cd "$tmp/cfl"
g remote add origin "$tmp/cfl-remote.git"
g push -q origin main
"$CRS_CI" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--timeout 120s >/dev/null
pr_refused "$tmp/push3.txt" "$tmp/cfl-remote.git"
grep -q "project: ClusterFuzzLite folder 'recparse'" "$tmp/push3.txt" || fail ".clusterfuzzlite/ not used"
"$CRS_CI" hook uninstall >/dev/null
note "(.clusterfuzzlite/ found without --project)"
