#!/usr/bin/env bash
# release-version.sh - which crs-ci release the action installs for its
# own ref (the action's version: release): prints vX.Y.Z, or "source"
# when the ref is not a release tag.
#   vX.Y.Z[-pre]  that release: the tags the release process creates
#                 (container/release/release.sh --print-tags), the ref
#                 `crs-ci init` writes and the examples name
#   anything else (a branch, a commit, empty: a local ./actions) source
# crs-ci moves no major tag (vX): docs/releasing.md says why.
#
# Usage: release-version.sh REF
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 REF" >&2; exit 2; }
ref=$1
if [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
	echo "$ref"
	exit 0
fi
echo source
