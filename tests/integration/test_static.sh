#!/usr/bin/env bash
# test_static.sh - `make static` gives fully static crs-ci and libCRS:
# `file` says so, crs-ci runs in an image holding nothing but itself, and
# libCRS runs unchanged in the reference CRS's runner base image.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
make static >/dev/null
for b in crs-ci libCRS; do
	f=$(file "build/static/$b")
	grep -q "statically linked" <<<"$f" || fail "$b: $f"
	note "$f"
done
mktemp_dir; tmp=$TMP
tag=crs-ci-test/static-scratch:$$
tar -C build/static -c crs-ci | docker import - "$tag" >/dev/null
trap "docker rmi -f '$tag' >/dev/null 2>&1; rm -rf '$tmp'" EXIT
out=$(docker run --rm --network none "$tag" /crs-ci version)
grep -q "^crs-ci " <<<"$out" || fail "crs-ci version in a scratch image: $out"
note "scratch image: $(head -n1 <<<"$out")"
out=$(docker run --rm --network none -v "$ROOT/build/static/libCRS:/usr/local/bin/libCRS:ro" \
	"$BASE_RUNNER_STAND_IN" libCRS --help)
grep -q "submit-build-output" <<<"$out" || fail "libCRS --help in base-runner: $out"
note "libCRS runs in the base runner (stand-in)"
