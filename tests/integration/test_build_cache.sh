#!/usr/bin/env bash
# test_build_cache.sh - --cache-dir keeps the base revision's build for the
# next pull request on the same base (issue 13). Two pull requests on the
# recparse demo's base, each built (crs-ci build-target) in a fresh work
# dir with the same --cache-dir: the first compiles head and base and
# keeps the base build; the second compiles only its head (and its
# coverage build) and restores the base build from the cache, which holds
# the same harness binaries. The project's build.sh (hostile, as a pull
# request's is) also plants in $OUT a link to a host file and a FIFO: the
# restored build holds neither, only regular files and folders. A third
# pull request based on the first one's head (merged fast-forward)
# restores that head's build, kept by the first scan, as its base.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# a second pull request on the same base
git -C "$tmp/repo" checkout -q -b pr2 "$base"
echo "/* a second change */" >>"$tmp/repo/src/recparse.h"
git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -q -am "pr2"
head2=$(git -C "$tmp/repo" rev-parse HEAD)
proj=$tmp/projects/recparse
mkdir -p "$proj"
cp "$ROOT/examples/projects/recparse/"* "$proj/"
cat >>"$proj/build.sh" <<'SH'
ln -sf /etc/passwd "$OUT/planted_link"
rm -f "$OUT/planted_fifo" && mkfifo "$OUT/planted_fifo"
SH
cache=$tmp/cache
build() {
	local n=$1 h=$2 b=${3:-$base}
	"$CRS_CI" build-target --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$proj" --source "$tmp/repo" --base "$b" --head "$h" \
		--cache-dir "$cache" --work-dir "$tmp/work$n" >/dev/null 2>"$tmp/log$n.txt" ||
		{ cat "$tmp/log$n.txt" >&2; fail "build-target $n failed"; }
}
build 1 "$head"
grep -q 'base build: compiling' "$tmp/log1.txt" || fail "the first PR did not compile its base"
grep -q 'cache: kept the build' "$tmp/log1.txt" || fail "the base build was not kept"
build 2 "$head2"
cat "$tmp/log2.txt" >&2
grep -q 'base build: restored from the cache' "$tmp/log2.txt" ||
	fail "the second PR did not restore the base build"
if grep -q 'base build: compiling' "$tmp/log2.txt"; then
	fail "the second PR compiled the base"
fi
grep -q 'head build: compiling recparse with SANITIZER=address' "$tmp/log2.txt" ||
	fail "the second PR did not compile its head"
n1=$(grep -c ': compiling ' "$tmp/log1.txt"); n2=$(grep -c ': compiling ' "$tmp/log2.txt")
note "compiles: first PR $n1, second PR $n2"
[ "$n2" -eq $((n1 - 1)) ] || fail "second PR compiled $n2 times, first $n1"
out1=$tmp/work1/builds/address/base/out out2=$tmp/work2/builds/address/base/out
for h in fuzz_records fuzz_text; do
	[ -f "$out2/$h" ] && [ -x "$out2/$h" ] || fail "restored base lacks $h"
	cmp -s "$out1/$h" "$out2/$h" || fail "restored $h differs from the build"
done
[ -L "$out1/planted_link" ] || fail "the build did not plant its link"
[ ! -e "$out2/planted_link" ] && [ ! -L "$out2/planted_link" ] ||
	fail "the link came back from the cache"
[ ! -e "$out2/planted_fifo" ] || fail "the FIFO came back from the cache"
bad=$(find "$out2" ! -type f ! -type d)
[ -z "$bad" ] || fail "restored non-regular files: $bad"
grep -q 'left out' "$tmp/log2.txt" || fail "the skipped entries were not reported"
# PR1 merged (fast-forward): its head is the base of PR3, and its head
# build, kept by the first scan, is restored as PR3's base build
git -C "$tmp/repo" checkout -q -b pr3 "$head"
echo "/* a third change */" >>"$tmp/repo/src/recparse.h"
git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -q -am "pr3"
head3=$(git -C "$tmp/repo" rev-parse HEAD)
build 3 "$head3" "$head"
grep -q "base build: restored from the cache (build [0-9a-f]* of ${head:0:12})" "$tmp/log3.txt" ||
	{ cat "$tmp/log3.txt" >&2; fail "PR3 did not restore PR1's head build as its base"; }
cmp -s "$tmp/work1/builds/address/head/out/fuzz_records" \
	"$tmp/work3/builds/address/base/out/fuzz_records" ||
	fail "PR3's base build is not PR1's head build"
python3 - "$cache/index.json" <<'PY' || fail "no build entry in the index"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
b = [k for k in e if k.startswith("build:")]
assert len(b) >= 3 and all(e[k]["path"].startswith("builds/") for k in b), e
PY
