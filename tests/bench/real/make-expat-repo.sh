#!/usr/bin/env bash
# make-expat-repo.sh - a real library for benchmarks: expat 2.5.0 (the
# source Debian 12 ships: libexpat's R_2_5_0 tree, the library in expat/,
# its XML test suite in testdata/) as a git repository with an optional
# PR commit.
#
#   tests/bench/real/make-expat-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with expat 2.5.0's release tree; with PATCH, pr, main
# plus one commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball (8 MB) is downloaded once and checked against
# the SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/expat beside
# this script (harness xml_parse_fuzzer_UTF-8, with seeds and a dict).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" expat 2.5.0 \
	http://deb.debian.org/debian/pool/main/e/expat/expat_2.5.0.orig.tar.gz \
	ab00ee05c7067fd10a35c5d2a4922ebba746ddd50ff83b79c828da17bbdf1757 \
	"expat Bench" "$@"
