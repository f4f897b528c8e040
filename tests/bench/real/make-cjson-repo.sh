#!/usr/bin/env bash
# make-cjson-repo.sh - a real library for benchmarks: cJSON 1.7.15 (the
# source Debian 12 ships) as a git repository with an optional PR commit.
#
#   tests/bench/real/make-cjson-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository:
#   main: one commit "base", cJSON 1.7.15's release tree;
#   pr:   with PATCH (a `git apply` patch against that tree, e.g. a bug
#         injected for a benchmark), main plus one commit "pr" applying it.
# The release tarball is downloaded once from Debian's pool into
# $CRS_CI_BENCH_CACHE (default ~/.cache/crs-ci-bench) and checked against
# the SHA-256 Debian's bookworm .dsc lists for it. Names and dates are
# fixed, so the SHAs are the same on every machine. Prints "base=<sha>"
# and, with PATCH, "head=<sha>"; leaves the last branch checked out.
# The OSS-Fuzz project folder that builds it is projects/cjson beside
# this script (harness cjson_read_fuzzer, with its seed corpus and dict).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
url=http://deb.debian.org/debian/pool/main/c/cjson/cjson_1.7.15.orig.tar.gz
sha=5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2

die() { printf 'make-cjson-repo: error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: make-cjson-repo.sh DEST [PATCH]"
dest=$1
patch=${2:-}
[ -z "$patch" ] || [ -f "$patch" ] || die "$patch: no such patch file"
[ -z "$patch" ] || patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
if [ -e "$dest" ]; then
	[ -d "$dest" ] || die "$dest exists and is not a folder"
	[ -z "$(ls -A "$dest")" ] || die "$dest exists and is not empty"
fi

cache=${CRS_CI_BENCH_CACHE:-$HOME/.cache/crs-ci-bench}
tarball=$cache/cjson_1.7.15.orig.tar.gz
mkdir -p "$cache"
if ! echo "$sha  $tarball" | sha256sum --check --status 2>/dev/null; then
	curl -fsSL --retry 3 -o "$tarball.part" "$url" ||
		die "cannot download $url"
	echo "$sha  $tarball.part" | sha256sum --check --status ||
		die "$url: SHA-256 does not match Debian's ($sha)"
	mv "$tarball.part" "$tarball"
fi

mkdir -p "$dest"
tar -xzf "$tarball" -C "$dest" --strip-components=1 --no-same-owner
chmod -R u=rwX,go=rX "$dest"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="cJSON Bench" GIT_AUTHOR_EMAIL="bench@example.invalid"
export GIT_COMMITTER_NAME="cJSON Bench" GIT_COMMITTER_EMAIL="bench@example.invalid"
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
g apply "$patch" || die "$patch does not apply to cJSON 1.7.15"
g add -A
GIT_AUTHOR_DATE="2024-03-04T15:30:00+00:00" \
GIT_COMMITTER_DATE="2024-03-04T15:30:00+00:00" \
	g commit -q -m "pr: $(basename "$patch" .patch)"
echo "head=$(g rev-parse HEAD)"
