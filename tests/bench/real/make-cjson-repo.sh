#!/usr/bin/env bash
# make-cjson-repo.sh - a real library for benchmarks: cJSON 1.7.15 (the
# source Debian 12 ships) as a git repository with an optional PR commit.
#
#   tests/bench/real/make-cjson-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with cJSON 1.7.15's release tree; with PATCH, pr, main
# plus one commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball is downloaded once and checked against the
# SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/cjson beside
# this script (harness cjson_read_fuzzer, with its seed corpus and dict).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" cjson 1.7.15 \
	http://deb.debian.org/debian/pool/main/c/cjson/cjson_1.7.15.orig.tar.gz \
	5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2 \
	"cJSON Bench" "$@"
