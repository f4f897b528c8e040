#!/usr/bin/env bash
# release-version.sh - which crs-ci release the action installs for its
# own ref (the action's version: release): prints vX.Y.Z, or "source"
# when the ref has no release binaries that match the action's files.
#   vX.Y.Z[-pre]  that release
#   vX, vX.Y      a moving major/minor tag, which points at a release
#                 commit: the release the action's own runner/scan/ctx.h names
#                 (CRS_CI_VERSION), when it is under that tag
#   anything else (a branch, a commit, empty: a local ./actions) source
#
# Usage: release-version.sh REF ROOT   (ROOT: the action's checkout)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 REF ROOT" >&2; exit 2; }
ref=$1 root=$2
if [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
	echo "$ref"
	exit 0
fi
if [[ $ref =~ ^v[0-9]+(\.[0-9]+)?$ ]]; then
	v=v$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' \
		"$root/runner/scan/ctx.h" 2>/dev/null || true)
	case $v in
	"$ref".*)
		echo "$v"
		exit 0
		;;
	esac
fi
echo source
