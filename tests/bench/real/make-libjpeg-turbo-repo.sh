#!/usr/bin/env bash
# make-libjpeg-turbo-repo.sh - a real library for benchmarks: libjpeg-turbo 2.1.5 (the source Debian 12 ships)
# as a git repository with an optional PR commit.
#
#   tests/bench/real/make-libjpeg-turbo-repo.sh DEST [PATCH]
#
# DEST (must not exist, or be empty) becomes a git repository: main, one
# commit "base" with the release tree; with PATCH, pr, main plus one
# commit "pr" applying it. Prints "base=<sha>" and, with PATCH,
# "head=<sha>". The tarball is downloaded once and checked against the
# SHA-256 of Debian's bookworm .dsc (release-repo.sh does the work).
# The OSS-Fuzz project folder that builds it is projects/libjpeg-turbo beside this
# script (libjpeg-turbo's own fuzz/ harnesses).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/release-repo.sh" libjpeg-turbo 2.1.5 \
	http://deb.debian.org/debian/pool/main/libj/libjpeg-turbo/libjpeg-turbo_2.1.5.orig.tar.gz \
	254f3642b04e309fee775123133c6464181addc150499561020312ec61c1bf7c \
	"libjpeg-turbo Bench" "$@"
