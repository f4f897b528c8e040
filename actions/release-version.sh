#!/usr/bin/env bash
# release-version.sh - which crs-ci release the action installs for its
# own ref (the action's version: release): prints vX.Y.Z, or "source"
# when the ref is not a release tag.
#   vX.Y.Z[-pre]  that release: the tags the release process creates
#                 (container/release/release.sh --print-tags), the ref
#                 `crs-ci init` writes and the examples name
#   a full commit (40 hex digits: what `crs-ci init` of a release
#                 writes, "@SHA # vX.Y.Z")  vX.Y.Z of the action's own
#                 tree (runner/scan/ctx.h beside this folder); the install
#                 step then checks that the release was built from that
#                 commit (install-release.sh COMMIT) and builds from
#                 source when it was not
#   anything else (a branch, a short commit, empty: a local ./actions)
#                 source
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
if [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
	ctx=$(dirname "$0")/../runner/scan/ctx.h
	v=$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' "$ctx" 2>/dev/null || true)
	if [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
		echo "v$v"
		exit 0
	fi
fi
echo source
