#!/usr/bin/env bash
# test_crs_sources.sh - CRSs named by registry name and by a git URL:
# a compose with no local_path scans the bundled example and finds the
# bug; a second run clones nothing (the log says it reused the commit;
# the tree is exported again from the cached objects, so a file planted
# in the cached checkout is gone; with a commit id ref the repository may
# even be unreadable); an unreachable URL and an unknown
# registry name exit 2 with file:line:col.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
unset CRS_CI_REGISTRY	# the registry beside build/crs-ci: $ROOT/registry
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"

# a git repository holding a copy of the libFuzzer CRS, in a subfolder
crs_repo=$tmp/crs-repo
mkdir -p "$crs_repo"
cp -r "$ROOT/container/crs/libfuzzer" "$crs_repo/fuzzer"
git -C "$crs_repo" init -q -b main
git -C "$crs_repo" add -A
git -C "$crs_repo" -c user.name=t -c user.email=t@t commit -qm "libfuzzer crs"
git -C "$crs_repo" tag v1
commit=$(git -C "$crs_repo" rev-parse HEAD)

compose() {	# compose FILE REF [URL]: crs-libfuzzer by name, crs-git by url
	cat >"$1" <<YAML
run_env: local
docker_registry: local
oss_crs_infra: { cpuset: "0", memory: "2G" }
crs-libfuzzer: { cpuset: "1", memory: "4G" }
crs-git:
  cpuset: "0"
  memory: "4G"
  source:
    url: ${3:-file://$crs_repo}
    ref: $2
    subdir: fuzzer
YAML
}
compose "$tmp/compose.yaml" v1
cache=$tmp/cache
checkout=$cache/crs-src/$commit

# 1. a scan: both CRSs found, the git one cloned, the bug proved
scan_expect 1 --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 4m --cache-dir "$cache"
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "finding not labelled new"
grep -q "crs crs-git: file://$crs_repo at v1: cloned commit $commit" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the git CRS was not cloned"; }
[ -f "$checkout/fuzzer/oss-crs/crs.yaml" ] || fail "no checkout at $checkout"
[ ! -e "$checkout/.git" ] || fail "the checkout keeps .git"
grep -q "PoVs per CRS: .*crs-libfuzzer [0-9]" "$tmp/verdict.txt" || fail "crs-libfuzzer (registry) did not run"
grep -q "PoVs per CRS: .*crs-git [0-9]" "$tmp/verdict.txt" || fail "crs-git (git url) did not run"
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
note "scan with a registry CRS and a git CRS: bug found, $commit cloned"

# 2. the same url+ref again: nothing cloned, the tree exported afresh
# (a hostile cache's change to the checkout does not survive)
echo planted >"$checkout/fuzzer/planted"
"$CRS_CI" check --compose "$tmp/compose.yaml" --cache-dir "$cache" \
	>"$tmp/check.txt" 2>"$tmp/check.log" || { cat "$tmp/check.log" >&2; fail "check"; }
grep -q "crs crs-git: file://$crs_repo at v1: reused the checkout of commit $commit" "$tmp/check.log" ||
	{ cat "$tmp/check.log" >&2; fail "second run did not reuse $commit"; }
! grep -q "cloned" "$tmp/check.log" || fail "second run cloned"
[ ! -e "$checkout/fuzzer/planted" ] || fail "a file planted in the cached checkout survived"
[ -f "$checkout/fuzzer/oss-crs/crs.yaml" ] || fail "no checkout after the reuse"
note "second run: reused $commit's objects, the planted file gone"

# 3. a commit id needs no network: the repository is gone now (moved,
# since root reads a chmod 000 folder anyway)
compose "$tmp/by-commit.yaml" "$commit"
mv "$crs_repo" "$crs_repo.away"
"$CRS_CI" check --compose "$tmp/by-commit.yaml" --cache-dir "$cache" \
	>/dev/null 2>"$tmp/commit.log" || { cat "$tmp/commit.log" >&2; fail "check by commit id"; }
grep -q "reused the checkout of commit $commit" "$tmp/commit.log" || fail "commit id not reused"
# so is a tag whose remote cannot be reached: the commit recorded by run 1
"$CRS_CI" check --compose "$tmp/compose.yaml" --cache-dir "$cache" \
	>/dev/null 2>"$tmp/offline.log" || { cat "$tmp/offline.log" >&2; fail "offline check by tag"; }
grep -q "cannot reach file://$crs_repo (ref v1).*; using commit $commit recorded by an earlier run" "$tmp/offline.log" ||
	{ cat "$tmp/offline.log" >&2; fail "no offline fallback"; }
mv "$crs_repo.away" "$crs_repo"
note "repository gone: a commit id ref and a recorded tag still resolve"

# 4. errors: one line, exit 2, file:line:col, no credentials
expect_exit2() {	# expect_exit2 OUT CMD...: exit 2, one error line, last
	local out=$1 code
	shift
	set +e
	"$@" >/dev/null 2>"$out"
	code=$?
	set -e
	cat "$out" >&2
	[ "$code" -eq 2 ] || fail "$*: exit $code, want 2"
	[ "$(grep -c "^crs-ci: error: " "$out")" -eq 1 ] &&
		tail -n 1 "$out" | grep -q "^crs-ci: error: " ||
		fail "$*: the error is not one line"
}
compose "$tmp/unreachable.yaml" main "file://user:s3cret@localhost$tmp/no-such-repo"
expect_exit2 "$tmp/err1.txt" "$CRS_CI" check --compose "$tmp/unreachable.yaml" --cache-dir "$cache"
grep -q "^crs-ci: error: $tmp/unreachable.yaml:9:5: crs-git.source.url: cannot reach file://localhost$tmp/no-such-repo (ref main)" "$tmp/err1.txt" ||
	fail "unreachable url: message"
! grep -q s3cret "$tmp/err1.txt" || fail "the password reached the message"
cat >"$tmp/unknown.yaml" <<YAML
run_env: local
docker_registry: local
oss_crs_infra: { cpuset: "0", memory: "2G" }
crs-no-such-crs: { cpuset: "1", memory: "4G" }
YAML
expect_exit2 "$tmp/err2.txt" "$CRS_CI" check --compose "$tmp/unknown.yaml"
grep -q "^crs-ci: error: $tmp/unknown.yaml:4:1: crs-no-such-crs: no source, and no registry entry crs-no-such-crs.yaml in the registry folder \"$ROOT/registry\"" "$tmp/err2.txt" ||
	fail "unknown name: message"
note "unreachable url and unknown registry name: exit 2 with file:line:col"

# 5. make install: the installed crs-ci finds share/crs-ci/registry and
# the bundled CRSs it points at, from any folder
make -C "$ROOT" -s install DESTDIR="$tmp/inst" PREFIX=/usr >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "make install"; }
head -n 4 "$tmp/compose.yaml" >"$tmp/registry-only.yaml"
(cd / && "$tmp/inst/usr/bin/crs-ci" check --compose "$tmp/registry-only.yaml") >"$tmp/inst.txt" 2>&1 ||
	{ cat "$tmp/inst.txt" >&2; fail "installed crs-ci: check"; }
(cd / && expect_exit2 "$tmp/inst-err.txt" "$tmp/inst/usr/bin/crs-ci" check --compose "$tmp/unknown.yaml")
grep -q "registry folder \"$tmp/inst/usr/share/crs-ci/registry\"" "$tmp/inst-err.txt" ||
	{ cat "$tmp/inst-err.txt" >&2; fail "installed crs-ci: not its share/crs-ci/registry"; }
note "make install: the installed crs-ci resolves crs-libfuzzer in share/crs-ci/registry"
