#!/usr/bin/env bash
# run-demo.sh - the demo scan `make demo` ends with
#
# Makes the recparse example's git repository (a base commit and a "pull
# request" commit that adds a heap-buffer-overflow), then scans the pull
# request with the reference libFuzzer CRS. Results land in crs-ci-out/.
# crs-ci exits 1 when a finding fails the policy; for the demo that is
# the expected outcome, so this script exits 0 then. The demo runs offline:
# its base images are the Debian stand-ins `make demo` builds
# (container/base-images/build.sh), not the real ones crs-ci would pull.
set -euo pipefail
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
repo=build/demo/recparse-repo
rm -rf "$repo"
mkdir -p build/demo
eval "$(examples/make-repo.sh "$repo")"	# sets base= and head=
echo "demo: scanning pull request ${head:0:12} (base ${base:0:12}) of $repo" >&2
set +e
build/crs-ci scan \
	--compose container/crs/libfuzzer/compose.yaml \
	--project examples/projects/recparse \
	--source "$repo" --base "$base" --head "$head" \
	--timeout "${DEMO_TIMEOUT:-4m}" \
	--work-dir build/demo/work --out crs-ci-out
code=$?
set -e
case $code in
1) echo "demo: crs-ci exited 1: the pull request's bug was found and proved;" \
	"see crs-ci-out/results.sarif" >&2; exit 0 ;;
0) echo "demo: crs-ci exited 0: the bug was not found" >&2; exit 1 ;;
*) echo "demo: crs-ci failed with exit $code" >&2; exit "$code" ;;
esac
