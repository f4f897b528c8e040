#!/usr/bin/env bash
# make-lz4-repo.sh - a real library for benchmarks: lz4 1.9.4 (the source
# Debian 12 ships) as a git repository with an optional PR commit.
#
#   tests/bench/real/make-lz4-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with lz4 1.9.4's release tree; with PATCH, pr, main plus
# one commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball is downloaded once and checked against the
# SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/lz4 beside this
# script (lz4's own ossfuzz/ harnesses).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" lz4 1.9.4 \
	http://deb.debian.org/debian/pool/main/l/lz4/lz4_1.9.4.orig.tar.gz \
	0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b \
	"lz4 Bench" "$@"
