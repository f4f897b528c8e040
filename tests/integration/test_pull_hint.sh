#!/usr/bin/env bash
# test_pull_hint.sh - a base image that cannot be pulled (offline: no DNS;
# online: a tag that does not exist) is reported at the project's own
# Dockerfile, as the user knows it, never at the work folder's copy, and
# the error says how to build without pulling (--base-images stand-in).
# Both layouts: an OSS-Fuzz project folder named with a relative
# --project, and a repository's .clusterfuzzlite/ (built from the commit,
# whose export lives in the work folder). `crs-ci build-target` only: no
# fuzzing. The project's FROM names the OSS-Fuzz base-builder with a tag
# no registry has, so nothing is downloaded either way.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
export CRS_CI_BASE_IMAGES=pull
tag=t-nosuch-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
compose=$ROOT/container/crs/libfuzzer/compose.yaml

# expect_hint LOG SHOWN: one error line at SHOWN (file:line) with the hint,
# and no work-folder path in it
expect_hint() {
	local err
	err=$(grep "error:" "$1") || { cat "$1" >&2; fail "no error line"; }
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "more than one error line: $err"
	case $err in
	*"target image: $2: cannot pull gcr.io/oss-fuzz-base/base-builder:$tag: "*"--base-images stand-in"*) ;;
	*) fail "the error does not name $2 and --base-images stand-in: $err" ;;
	esac
	case $err in *"$tmp/work"*) fail "the error names the work folder: $err" ;; esac
}

# 1. an OSS-Fuzz project folder, --project given relative to the cwd
mkdir -p "$tmp/p/projects/demo" "$tmp/src"
cp "$ROOT/examples/projects/recparse/build.sh" \
	"$ROOT/examples/projects/recparse/project.yaml" "$tmp/p/projects/demo/"
printf 'FROM gcr.io/oss-fuzz-base/base-builder:%s\nRUN true\n' "$tag" \
	>"$tmp/p/projects/demo/Dockerfile"
eval "$("$ROOT/examples/make-repo.sh" "$tmp/src")"
set +e
(cd "$tmp/p" && "$CRS_CI" build-target --compose "$compose" \
	--project projects/demo --source "$tmp/src" --head "$head" \
	--work-dir "$tmp/work1") >"$tmp/oss.log" 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || { cat "$tmp/oss.log" >&2; fail "OSS-Fuzz layout: exit $code, want 3"; }
expect_hint "$tmp/oss.log" projects/demo/Dockerfile:1
note "OSS-Fuzz layout: $(grep error: "$tmp/oss.log" | cut -c1-150)..."

# 2. the repository's .clusterfuzzlite/, the head commit's Dockerfile
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/cfl")"
sed -i "1,/^FROM/s|^FROM .*|FROM gcr.io/oss-fuzz-base/base-builder:$tag|" \
	"$tmp/cfl/.clusterfuzzlite/Dockerfile"
git -C "$tmp/cfl" -c commit.gpgsign=false -c user.name=t -c user.email=t@t \
	commit -qam "pin the base image"
set +e
(cd "$tmp/cfl" && "$CRS_CI" build-target --compose "$compose" \
	--work-dir "$tmp/work2") >"$tmp/cfl.log" 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || { cat "$tmp/cfl.log" >&2; fail "ClusterFuzzLite layout: exit $code, want 3"; }
line=$(grep -n '^FROM' "$tmp/cfl/.clusterfuzzlite/Dockerfile" | head -n 1 | cut -d: -f1)
expect_hint "$tmp/cfl.log" ".clusterfuzzlite/Dockerfile:$line"
note "ClusterFuzzLite layout: $(grep error: "$tmp/cfl.log" | cut -c1-150)..."
echo "ok: test_pull_hint"
