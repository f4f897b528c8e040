#!/usr/bin/env bash
# make-zstd-repo.sh - a real library for benchmarks: zstd 1.5.4 (Debian
# 12's libzstd 1.5.4+dfsg2 source) as a git repository with an optional
# PR commit.
#
#   tests/bench/real/make-zstd-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with the release tree; with PATCH, pr, main plus one
# commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball is downloaded once and checked against the
# SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/zstd beside this
# script (zstd's own tests/fuzz harnesses).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" zstd 1.5.4+dfsg2 \
	http://deb.debian.org/debian/pool/main/libz/libzstd/libzstd_1.5.4%2bdfsg2.orig.tar.xz \
	8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953 \
	"zstd Bench" "$@"
