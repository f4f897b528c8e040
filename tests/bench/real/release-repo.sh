#!/usr/bin/env bash
# release-repo.sh - the shared body of the make-LIB-repo.sh scripts
# beside it (cjson, expat, lz4, zstd): a library's release tarball from
# Debian's pool as a git repository with an optional PR commit, for
# benchmarks.
#
#   tests/bench/real/release-repo.sh NAME VERSION URL SHA256 AUTHOR DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository:
#   main: one commit "base", the release tree (the tarball's top folder
#         stripped);
#   pr:   with PATCH (a `git apply` patch against that tree, e.g. a bug
#         injected for a benchmark), main plus one commit "pr" applying it.
# The tarball (URL; gzip or xz) is downloaded once into $CRS_CI_BENCH_CACHE (default
# ~/.cache/crs-ci-bench) and checked against SHA256, the one Debian's
# bookworm .dsc lists for it. Names (AUTHOR) and dates are fixed, so the
# SHAs are the same on every machine. Prints "base=<sha>" and, with
# PATCH, "head=<sha>"; leaves the last branch checked out. NAME names the
# calling script in errors ("make-NAME-repo"), VERSION the release.
set -euo pipefail

name=$1 version=$2 url=$3 sha=$4 author=$5
shift 5

die() { printf 'make-%s-repo: error: %s\n' "$name" "$*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: make-$name-repo.sh DEST [PATCH]"
dest=$1
patch=${2:-}
[ -z "$patch" ] || [ -f "$patch" ] || die "$patch: no such patch file"
[ -z "$patch" ] || patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
if [ -e "$dest" ]; then
	[ -d "$dest" ] || die "$dest exists and is not a folder"
	[ -z "$(ls -A "$dest")" ] || die "$dest exists and is not empty"
fi

tarball=$("$(dirname "${BASH_SOURCE[0]}")/fetch-orig.sh" "$url" "$sha") ||
	die "no tarball"

mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=1 --no-same-owner
chmod -R u=rwX,go=rX "$dest"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="$author" GIT_AUTHOR_EMAIL="bench@example.invalid"
export GIT_COMMITTER_NAME="$author" GIT_COMMITTER_EMAIL="bench@example.invalid"
g() { git -C "$dest" -c core.autocrlf=false -c commit.gpgsign=false \
	-c core.fileMode=true "$@"; }

g init -q -b main
g add -A
GIT_AUTHOR_DATE="2024-03-01T10:00:00+00:00" \
GIT_COMMITTER_DATE="2024-03-01T10:00:00+00:00" \
	g commit -q -m "base"
echo "base=$(g rev-parse HEAD)"
[ -n "$patch" ] || exit 0

g checkout -q -b pr
g apply "$patch" || die "$patch does not apply to $name $version"
g add -A
GIT_AUTHOR_DATE="2024-03-04T15:30:00+00:00" \
GIT_COMMITTER_DATE="2024-03-04T15:30:00+00:00" \
	g commit -q -m "pr: $(basename "$patch" .patch)"
echo "head=$(g rev-parse HEAD)"
