#!/usr/bin/env bash
# make-libwebp-repo.sh - a real library for benchmarks: libwebp 1.2.4 (the source Debian 12 ships)
# as a git repository with an optional PR commit.
#
#   tests/bench/real/make-libwebp-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with the release tree; with PATCH, pr, main plus one
# commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball is downloaded once and checked against the
# SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/libwebp beside this
# script (libwebp's own tests/fuzzer harnesses).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" libwebp 1.2.4 \
	http://deb.debian.org/debian/pool/main/libw/libwebp/libwebp_1.2.4.orig.tar.gz \
	7bf5a8a28cc69bcfa8cb214f2c3095703c6b73ac5fba4d5480c205331d9494df \
	"libwebp Bench" "$@"
