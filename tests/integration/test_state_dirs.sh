#!/usr/bin/env bash
# test_state_dirs.sh - crs-ci refuses its own folders (--work-dir, --out,
# --cache-dir) where the change under test can write them: inside
# --source or its git work tree (also when git tracks them, or through
# '..'), given as a link, or holding a link crs-ci did not make; exit 2
# with a message naming the option. Without the options the folders go
# outside the checkout. An output folder crs-ci wrote before is emptied
# at the start of a run (by descriptor); one with foreign files is
# refused, untouched. Every refusal comes before any engine work.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" "$repo")"
compose=$ROOT/container/crs/libfuzzer/compose.yaml
project=$ROOT/examples/projects/recparse
# the hostile commit: the state folders' default names, committed
mkdir -p "$repo/crs-ci-out" "$repo/.crs-ci-cache/corpus/recparse"
echo x > "$repo/crs-ci-out/results.json"
ln -s "$tmp/sentinel" "$repo/.crs-ci-cache/corpus/recparse/fuzz_records"
git -C "$repo" add -f crs-ci-out .crs-ci-cache
git -C "$repo" -c user.name=t -c user.email=t@example.invalid \
	commit -qm "state folders"
mkdir -p "$tmp/sentinel"

# refused WHAT WANT ARGS...: crs-ci scan ARGS (run in $repo) exits 2
# saying WANT
refused() {
	local what=$1 want=$2 msg code
	shift 2
	set +e
	msg=$(cd "$repo" && "$CRS_CI" scan --compose "$compose" \
		--project "$project" --source . --base "$base" --head "$head" \
		"$@" 2>&1 >/dev/null)
	code=$?
	set -e
	[ "$code" -eq 2 ] || fail "$what: exit $code, want 2 ($msg)"
	grep -qF -- "$want" <<<"$msg" || fail "$what: got '$msg', want '$want'"
	note "$what: ${msg#crs-ci: error: }"
}
ok_out=$tmp/ok-out ok_work=$tmp/ok-work
refused "work inside --source" "--work-dir crs-ci-work lies inside the git work tree $repo" \
	--work-dir crs-ci-work --out "$ok_out"
refused "out tracked by git" "--out crs-ci-out lies inside the git work tree $repo of --source (the checkout under test can write it; git tracks 1 file(s) there)" \
	--work-dir "$ok_work" --out crs-ci-out
refused "cache inside --source" "--cache-dir .crs-ci-cache lies inside the git work tree" \
	--work-dir "$ok_work" --out "$ok_out" --cache-dir .crs-ci-cache
# a link before '..': the kernel climbs from the link's target
mkdir -p "$repo/sub"
ln -s "$repo/sub" "$tmp/y"
refused "cache inside through a link and '..'" "--cache-dir $tmp/y/../c lies inside the git work tree $repo" \
	--work-dir "$ok_work" --out "$ok_out" --cache-dir "$tmp/y/../c"
refused "out inside through '..'" "--out sub/../../repo/o lies inside the git work tree" \
	--work-dir "$ok_work" --out sub/../../repo/o
ln -s "$tmp/real-out" "$tmp/link-out"
mkdir -p "$tmp/real-out"
refused "out is a link" "--out $tmp/link-out is a link" \
	--work-dir "$ok_work" --out "$tmp/link-out"
mkdir -p "$tmp/planted/reports/x"
ln -s "$repo/.git" "$tmp/planted/reports/x/git"
refused "out holds a link" "--out $tmp/planted holds a link crs-ci did not make (reports/x/git)" \
	--work-dir "$ok_work" --out "$tmp/planted"
mkdir -p "$tmp/work-planted"
ln -s "$tmp/sentinel" "$tmp/work-planted/source"
refused "work holds a top-level link" "--work-dir $tmp/work-planted holds a link crs-ci did not make (source)" \
	--work-dir "$tmp/work-planted" --out "$ok_out"
ln -s "$tmp/sentinel" "$tmp/cache-link"
refused "cache is a link" "--cache-dir $tmp/cache-link is a link" \
	--work-dir "$ok_work" --out "$ok_out" --cache-dir "$tmp/cache-link"
[ -z "$(ls -A "$tmp/sentinel")" ] || fail "something was written to the sentinel"
[ ! -e "$ok_work" ] && [ ! -e "$ok_out" ] || fail "a refused scan made its folders"
note "every refusal came before the work and output folders were made"

# without --work-dir/--out, from inside the checkout: folders outside it
msg=$(cd "$repo" && "$CRS_CI" check --compose "$compose" --source . 2>&1) ||
	fail "check with the default folders: $msg"
grep -q "work folder $HOME/.cache/crs-ci/repo-[0-9a-f]*/work, results in $HOME/.cache/crs-ci/repo-[0-9a-f]*/out" <<<"$msg" ||
	fail "the default folders are not outside the checkout: $msg"
msg=$(cd "$repo" && RUNNER_TEMP=$tmp/rt "$CRS_CI" check --compose "$compose" --source . 2>&1) ||
	fail "check with RUNNER_TEMP: $msg"
grep -q "work folder $tmp/rt/crs-ci/repo-[0-9a-f]*/work" <<<"$msg" ||
	fail "RUNNER_TEMP is not the default folders' root: $msg"
note "defaults from inside the checkout: ${msg#crs-ci: }"

# an output folder of an earlier scan is emptied when the run starts (the
# run then stops: nothing was built in this work folder)
mkdir -p "$ok_out/povs"
echo '{}' > "$ok_out/results.json"
echo old > "$ok_out/povs/old"
set +e
(cd "$repo" && "$CRS_CI" run --compose "$compose" --project "$project" \
	--source . --base "$base" --head "$head" --work-dir "$ok_work" \
	--out "$ok_out") >"$tmp/run.log" 2>&1
set -e
[ "$(ls -A "$ok_out")" = .crs-ci-out ] ||
	{ cat "$tmp/run.log" >&2; ls -laR "$ok_out" >&2; fail "the earlier output was not emptied"; }
note "an earlier scan's output folder was emptied, its mark left"
# a folder of someone else's files is not emptied
mkdir -p "$tmp/mine"
echo keep > "$tmp/mine/notes.txt"
set +e
msg=$(cd "$repo" && "$CRS_CI" run --compose "$compose" --project "$project" \
	--source . --base "$base" --head "$head" --work-dir "$ok_work" \
	--out "$tmp/mine" 2>&1)
code=$?
set -e
[ "$code" -eq 2 ] || fail "a foreign output folder: exit $code, want 2 ($msg)"
grep -qF -- "--out $tmp/mine holds files crs-ci did not write" <<<"$msg" ||
	fail "a foreign output folder: $msg"
[ "$(cat "$tmp/mine/notes.txt")" = keep ] || fail "a foreign file was removed"
note "a folder of other files is refused, untouched"
