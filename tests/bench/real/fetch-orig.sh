#!/usr/bin/env bash
# fetch-orig.sh - a Debian source tarball, downloaded once and checked:
# the shared download of release-repo.sh and bench_projects.sh.
#
#   tests/bench/real/fetch-orig.sh URL SHA256
#
# Keeps the file in $CRS_CI_BENCH_CACHE (default ~/.cache/crs-ci-bench)
# under its URL's last part, downloads it when it is missing or its SHA-256
# is not SHA256 (the one Debian's .dsc lists), and prints its path. Exit 1
# with a message when it cannot be downloaded or does not match.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: fetch-orig.sh URL SHA256" >&2; exit 2; }
url=$1 sha=$2
cache=${CRS_CI_BENCH_CACHE:-$HOME/.cache/crs-ci-bench}
file=$cache/$(basename "$url")
mkdir -p "$cache"
if ! echo "$sha  $file" | sha256sum --check --status 2>/dev/null; then
	curl -fsSL --retry 3 -o "$file.part" "$url" ||
		{ echo "fetch-orig: cannot download $url" >&2; exit 1; }
	echo "$sha  $file.part" | sha256sum --check --status ||
		{ echo "fetch-orig: $url: SHA-256 does not match Debian's ($sha)" >&2; exit 1; }
	mv "$file.part" "$file"
fi
echo "$file"
