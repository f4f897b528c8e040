#!/usr/bin/env bash
# make-repo.sh - create the recparse example's git repository:
#
#   examples/make-repo.sh [--clusterfuzzlite] DEST
#
# DEST (must not exist, or be an empty folder) becomes a git repository with
#   main: one commit "base", the clean library (recparse/src, recparse/fuzz,
#         and with --clusterfuzzlite its .clusterfuzzlite/ folder:
#         Dockerfile, build.sh, project.yaml, as ClusterFuzzLite users have);
#   pr:   main plus one commit "support extended records" (recparse/pr laid
#         over it), which adds a heap-buffer-overflow write in
#         parse_extended() that fuzz_records finds from its seed corpus.
# Names and dates are fixed, so the SHAs are the same on every machine.
# Prints "base=<sha>" and "head=<sha>" on stdout; leaves pr checked out.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/recparse

die() { printf 'make-repo: error: %s\n' "$*" >&2; exit 1; }

cfl=
if [ "${1:-}" = --clusterfuzzlite ]; then
	cfl=1
	shift
fi
[ $# -eq 1 ] || die "usage: make-repo.sh [--clusterfuzzlite] DEST"
dest=$1
if [ -e "$dest" ]; then
	[ -d "$dest" ] || die "$dest exists and is not a folder"
	[ -z "$(ls -A "$dest")" ] || die "$dest exists and is not empty"
fi
mkdir -p "$dest"

# A git that reads no user or system configuration, with fixed identities.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Rec Parse Maintainer" GIT_AUTHOR_EMAIL="maintainer@example.invalid"
export GIT_COMMITTER_NAME="Rec Parse Maintainer" GIT_COMMITTER_EMAIL="maintainer@example.invalid"
g() { git -C "$dest" -c core.autocrlf=false -c commit.gpgsign=false \
	-c core.fileMode=true "$@"; }

g init -q -b main

# commit 1: the clean library
cp -R "$src/src" "$src/fuzz" "$dest/"
cat > "$dest/README.md" <<'README'
# recparse

A tiny parser for "RP" record files: the magic `RP`, a version byte and a
list of type-length-value records. `src/` is the library, `fuzz/` holds the
libFuzzer harnesses and their seed corpora (`fuzz/corpus/<harness>/`).
README
chmod -R u=rwX,go=rX "$dest/src" "$dest/fuzz" "$dest/README.md"
if [ -n "$cfl" ]; then
	cp -R "$src/.clusterfuzzlite" "$dest/"
	chmod -R u=rwX,go=rX "$dest/.clusterfuzzlite"
	chmod 755 "$dest/.clusterfuzzlite/build.sh"
fi
g add -A
GIT_AUTHOR_DATE="2024-03-01T10:00:00+00:00" \
GIT_COMMITTER_DATE="2024-03-01T10:00:00+00:00" \
	g commit -q -m "base"
base=$(g rev-parse HEAD)

# commit 2, on branch pr: the feature with the bug
g checkout -q -b pr
cp -R "$src/pr/." "$dest/"
chmod -R u=rwX,go=rX "$dest/src" "$dest/fuzz"
g add -A
GIT_AUTHOR_DATE="2024-03-04T15:30:00+00:00" \
GIT_COMMITTER_DATE="2024-03-04T15:30:00+00:00" \
	g commit -q -F - <<'MSG'
support extended records

Version 2 files may carry values longer than 255 bytes as extended
records: a type byte with RP_EXTENDED set, the total length as two
big-endian bytes, then length-prefixed segments up to an empty one.
Adds seeds with an extended record and with truncated ones.
MSG
head=$(g rev-parse HEAD)

echo "base=$base"
echo "head=$head"
