#!/usr/bin/env bash
# test_reproduce_artifact.sh - `crs-ci reproduce DIR` (issue 43, part 4):
# a maintainer downloads a CI scan's artifact (results.json, povs/,
# reports/; no build) and reruns its PoVs on their own clone, in a fresh
# work folder: the head build of the recorded commit is made there and
# the planted overflow crashes as recorded (exit 0). A PoV the artifact
# holds as a link (to a host file) is refused, never bound (exit 1); a
# clone without the recorded commit is told what to fetch (exit 2); a
# folder without results.json is named (exit 2).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/repo")"
compose=$ROOT/container/crs/libfuzzer/compose.yaml

# the CI job: a scan, and the files actions/upload-artifact takes
scan_expect 1 --compose "$compose" --source "$tmp/repo" --base "$base" \
	--head "$head" --timeout 4m
mkdir "$tmp/artifact"
cp -R "$tmp/out/povs" "$tmp/out/reports" "$tmp/out/results.json" \
	"$tmp/artifact/"
id=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['findings'][0]['id'])" "$tmp/out/results.json")

# repro FROM DIR WORK LOG: crs-ci reproduce DIR run in FROM; sets code
repro() {
	set +e
	(cd "$1" && "$CRS_CI" reproduce "$2" --compose "$compose" \
		--work-dir "$3") >"$4" 2>&1
	code=$?
	set -e
}

# the maintainer's clone and work folder: nothing of the CI run's
git clone -q "$tmp/repo" "$tmp/mine"
repro "$tmp/mine/src" "$tmp/artifact" "$tmp/mine-work" "$tmp/repro.txt"
[ "$code" -eq 0 ] || { cat "$tmp/repro.txt" >&2; fail "reproduce: exit $code, want 0"; }
grep -q "head build: compiling recparse with SANITIZER=address" "$tmp/repro.txt" ||
	{ cat "$tmp/repro.txt" >&2; fail "reproduce: the head was not built here"; }
grep -q "reproduce: finding $id (.* in parse_extended): the same crash, [1-9] of [0-9] run(s) on ${head:0:12}" "$tmp/repro.txt" ||
	{ cat "$tmp/repro.txt" >&2; fail "reproduce: the crash is not the recorded one"; }
grep -q "reproduce: 1 of 1 finding(s) crashed as recorded" "$tmp/repro.txt" ||
	fail "reproduce: no total"
note "$(grep -o 'reproduce: finding .*the same crash, [^;]*' "$tmp/repro.txt")"

# a PoV the artifact holds as a link to a host file: refused, not bound
cp -R "$tmp/artifact" "$tmp/hostile"
pov=$(ls "$tmp/hostile/povs")
echo "host secret" >"$tmp/secret"
rm "$tmp/hostile/povs/$pov"
ln -s "$tmp/secret" "$tmp/hostile/povs/$pov"
repro "$tmp/mine" "$tmp/hostile" "$tmp/mine-work" "$tmp/hostile.txt"
[ "$code" -eq 1 ] || { cat "$tmp/hostile.txt" >&2; fail "a linked PoV: exit $code, want 1"; }
grep -q "reproduce: finding $id: .*link" "$tmp/hostile.txt" ||
	{ cat "$tmp/hostile.txt" >&2; fail "a linked PoV: not refused by name"; }
! grep -rq "host secret" "$tmp/mine-work/reproduce" ||
	fail "the link's target reached the reproduction"
note "a PoV that is a link in the artifact: refused, exit 1"

# a clone without the recorded head commit: what to fetch
git clone -q --no-local --single-branch -b main "$tmp/repo" "$tmp/old"
repro "$tmp/old" "$tmp/artifact" "$tmp/old-work" "$tmp/old.txt"
[ "$code" -eq 2 ] || { cat "$tmp/old.txt" >&2; fail "no head commit: exit $code, want 2"; }
grep -q "commit ${head:0:12} is not in .*(git fetch origin $head)" "$tmp/old.txt" ||
	{ cat "$tmp/old.txt" >&2; fail "no head commit: not told what to fetch"; }

# a folder that is no scan's output
mkdir "$tmp/empty"
repro "$tmp/mine" "$tmp/empty" "$tmp/mine-work" "$tmp/empty.txt"
[ "$code" -eq 2 ] && grep -q "$tmp/empty: no results.json" "$tmp/empty.txt" ||
	{ cat "$tmp/empty.txt" >&2; fail "no results.json: exit $code"; }
note "missing commit and missing results.json: exit 2, each named"
