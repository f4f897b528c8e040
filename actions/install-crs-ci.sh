#!/usr/bin/env bash
# install-crs-ci.sh - the "Install crs-ci" step of both actions (the scan
# action and actions/publish): puts crs-ci on the job's PATH, either a
# release's verified binaries or a build of the action's own checkout.
#
# Usage: install-crs-ci.sh VERSION ACTION_REPO ACTION_REF ROOT
#   VERSION      the action's version input: release (the release of the
#                action's own ref, actions/release-version.sh), vX.Y.Z or
#                source
#   ACTION_REPO  github.action_repository (empty: crs-ci/crs-ci)
#   ACTION_REF   github.action_ref: a release tag, or the full commit
#                `crs-ci init` of a release writes (the release is then
#                installed only if it was built from that very commit;
#                otherwise the commit is built from source)
#   ROOT         the action's checkout (make setup all there for source)
# Needs GITHUB_PATH and RUNNER_TEMP (the runner sets both).
set -euo pipefail
[ $# -eq 4 ] || {
	echo "usage: $0 VERSION ACTION_REPO ACTION_REF ROOT" >&2
	exit 2
}
version=$1 repo=${2:-crs-ci/crs-ci} ref=$3 root=$4
here=$(cd "$(dirname "$0")" && pwd)
commit=""

if [ "$version" = release ]; then
	version=$("$here/release-version.sh" "$ref")
	if [ "$version" = source ]; then
		echo "::notice title=crs-ci::the action's ref '${ref:-local}' is not a release tag or commit: building crs-ci from source"
	elif [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
		commit=$ref
	fi
fi
if [[ $version =~ ^v[0-9A-Za-z.+-]+$ ]]; then
	# crs-ci only needs the Docker engine on the runner
	dir="$RUNNER_TEMP/crs-ci-bin"
	code=0
	"$here/install-release.sh" \
		"https://github.com/$repo/releases/download/$version" "$dir" \
		$commit || code=$?
	if [ "$code" -eq 0 ]; then
		echo "$dir" >>"$GITHUB_PATH"
		exit 0
	fi
	[ "$code" -eq 3 ] || exit "$code"
	echo "::notice title=crs-ci::release $version was not built from commit $commit: building crs-ci from source"
	version=source
fi
if [ "$version" = source ]; then
	make -C "$root" setup
	make -C "$root" all
	echo "$(cd "$root/build" && pwd)" >>"$GITHUB_PATH"
	exit 0
fi
echo "::error title=crs-ci::version must be release, source or a release tag vX.Y.Z"
exit 2
