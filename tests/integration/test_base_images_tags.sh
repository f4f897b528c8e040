#!/usr/bin/env bash
# test_base_images_tags.sh - container/base-images/build.sh tags the Debian
# stand-ins under crs-ci's own names only (issue 12): crs-ci/base-builder:
# stand-in and crs-ci/base-runner:stand-in, labelled as stand-ins, and no
# real OSS-Fuzz or AIxCC name. Its clean-up of the real-name tags older
# versions made removes a tag only when it names an image build.sh built:
# shown on two scratch tags (BASE_IMAGES_LEGACY_TAGS), one on a stand-in
# (removed) and one on an image build.sh did not build (kept), so the
# real names on this engine are not touched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
rand=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
ours=crs-ci-test/legacy-stand-in:$rand
foreign=crs-ci-test/legacy-other:$rand
trap "docker rmi '$ours' '$foreign' >/dev/null 2>&1 || true; rm -rf '$tmp'" EXIT
"$ROOT/container/base-images/build.sh" --keep-legacy-tags >"$tmp/first.out" 2>"$tmp/first.log" ||
	{ cat "$tmp/first.log" >&2; fail "build.sh"; }
for kind in builder runner; do
	label=$(docker image inspect -f \
		'{{index .Config.Labels "org.crs-ci.base-images.stand-in"}}' \
		"crs-ci/base-$kind:stand-in") || fail "no crs-ci/base-$kind:stand-in"
	[ "$label" = true ] || fail "crs-ci/base-$kind:stand-in is not labelled a stand-in"
done
! grep -E "tagged (gcr\.io|ghcr\.io)" "$tmp/first.log" ||
	fail "build.sh tagged a real name"
note "build.sh tags crs-ci/base-{builder,runner}:stand-in (labelled), no real name"
# an image build.sh did not build: one imported by docker import
tar -C "$tmp" -cf "$tmp/empty.tar" --files-from /dev/null
docker import "$tmp/empty.tar" "$foreign" >/dev/null
docker tag crs-ci/base-runner:stand-in "$ours"
BASE_IMAGES_LEGACY_TAGS="$ours $foreign crs-ci-test/legacy-absent:$rand" \
	"$ROOT/container/base-images/build.sh" >"$tmp/second.out" 2>"$tmp/second.log" ||
	{ cat "$tmp/second.log" >&2; fail "build.sh (legacy tags)"; }
! docker image inspect "$ours" >/dev/null 2>&1 ||
	fail "the old stand-in tag $ours was not removed"
docker image inspect "$foreign" >/dev/null 2>&1 ||
	fail "$foreign (not a stand-in) was removed"
docker image inspect crs-ci/base-runner:stand-in >/dev/null ||
	fail "removing the old tag removed the stand-in"
grep -q "removed the old stand-in tag $ours" "$tmp/second.log" ||
	fail "no line for the removed tag"
note "old real-name tags: removed where they name a stand-in, kept otherwise"
