#!/usr/bin/env bash
# build.sh - build the offline stand-ins of the OSS-Fuzz base images from
# Debian bookworm packages (no container registry needed).
#
#   container/base-images/build.sh [--force] [--hash] [--keep-legacy-tags]
#                                  [--tag NAME]
#
# crs-ci uses them only when asked (--base-images stand-in or
# CRS_CI_BASE_IMAGES=stand-in); it never tags them under the real names,
# which stay free for the real images crs-ci pulls by default.
#
# Steps, each skipped when its image already exists:
#   1. mmdebstrap a bookworm root file system with packages-builder.txt and
#      `docker import` it as crs-ci/base-clang:<rootfs hash>;
#   2. the same with packages-runner.txt as crs-ci/base-runtime:<rootfs hash>;
#   3. docker build base-builder.Dockerfile -> crs-ci/base-builder:<hash>;
#   4. docker build base-runner.Dockerfile  -> crs-ci/base-runner:<hash>;
#   5. tag them crs-ci/base-builder:stand-in and crs-ci/base-runner:stand-in
#      (the names crs-ci maps the OSS-Fuzz and AIxCC base names to);
#   6. remove the real-name tags earlier versions of this script made
#      (gcr.io/oss-fuzz-base/base-{builder,runner}:latest,
#      ghcr.io/aixcc-finals/base-{builder,runner}:v1.3.0), only where the
#      tag names an image this script built (label
#      org.crs-ci.base-images.hash), so they stop shadowing the real images.
#
# <hash> is the first 12 hex digits of the SHA-256 over every file in this
# folder except README.md (this script, the Dockerfiles, bin/ and the package
# lists), so an edit to any of them builds new images and an unchanged tree
# reuses the old ones in seconds. A root file system's <rootfs hash> covers
# only what makes it (its package list, the mirrors and the rootfs function
# below), so editing a helper script or a Dockerfile does not re-run
# mmdebstrap.
#
# --force             rebuild even when the crs-ci/...:<hash> images exist
# --hash              print <hash> on stdout and exit
# --keep-legacy-tags  skip step 6
# --tag NAME          in step 5 tag crs-ci/base-{builder,runner}:NAME instead
#                     of :stand-in (to try a change without replacing the
#                     stand-ins others use)
#
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian),
# DEBIAN_SECURITY_MIRROR (default http://deb.debian.org/debian-security),
# TMPDIR (where the root file system tarball is written, default /var/tmp),
# BASE_IMAGES_LEGACY_TAGS (the tags step 6 considers, blank-separated;
# default the four real names above).
# Progress goes to stderr; on success the builder and runner tags are printed
# on stdout, one a line.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
export DOCKER_BUILDKIT=0	# the classic builder; Debian's docker.io has no buildx

log() { printf 'base-images: %s\n' "$*" >&2; }
die() { printf 'base-images: error: %s\n' "$*" >&2; exit 1; }

force=0
print_hash=0
keep_legacy=0
alias_tag=stand-in
legacy_tags=${BASE_IMAGES_LEGACY_TAGS-gcr.io/oss-fuzz-base/base-builder:latest gcr.io/oss-fuzz-base/base-runner:latest ghcr.io/aixcc-finals/base-builder:v1.3.0 ghcr.io/aixcc-finals/base-runner:v1.3.0}
while [ $# -gt 0 ]; do
	arg=$1
	shift
	case $arg in
	--tag)
		[ $# -gt 0 ] || die "--tag needs a NAME"
		alias_tag=$1
		shift
		[[ $alias_tag =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] ||
			die "--tag '$alias_tag' is not a Docker tag"
		;;
	--force) force=1 ;;
	--hash) print_hash=1 ;;
	--keep-legacy-tags) keep_legacy=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$arg' (try --help)" ;;
	esac
done

# The content hash: file names and contents, in a fixed order.
hash=$(cd "$here" &&
	find . -type f ! -name README.md -print0 | LC_ALL=C sort -z |
	xargs -0 sha256sum | sha256sum | cut -c1-12)
if [ "$print_hash" = 1 ]; then
	echo "$hash"
	exit 0
fi

command -v docker >/dev/null || die "docker not found (run container/setup-host.sh)"
docker info >/dev/null 2>&1 || die "no Docker engine answers (run container/setup-host.sh)"

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# packages FILE: the package names of a list file, comma separated.
packages() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$' | paste -sd, -
}

# rootfs LISTFILE TAG: mmdebstrap a root file system and import it as TAG.
rootfs() {
	local list=$1 tag=$2 tmp start
	if [ "$force" = 0 ] && image_exists "$tag"; then
		log "reusing $tag"
		return 0
	fi
	command -v mmdebstrap >/dev/null ||
		die "mmdebstrap not found (run container/setup-host.sh)"
	start=$SECONDS
	tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/crs-ci-rootfs.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	log "mmdebstrap $suite for $tag ($(basename "$list"))"
	mmdebstrap --variant=apt --format=tar \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='Acquire::Retries "3"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="$(packages "$list")" \
		"$suite" "$tmp/rootfs.tar" \
		"deb $mirror $suite main" \
		"deb $mirror $suite-updates main" \
		"deb $security_mirror $suite-security main" >&2
	log "docker import $tag ($(du -h "$tmp/rootfs.tar" | cut -f1) tarball)"
	docker import \
		--change 'ENV LANG=C.UTF-8' \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/llvm-14/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'CMD ["/bin/bash"]' \
		"$tmp/rootfs.tar" "$tag" >/dev/null
	rm -rf "$tmp"
	trap - EXIT
	log "built $tag in $((SECONDS - start)) s"
}

# image DOCKERFILE BASE TAG: docker build one image from this folder.
image() {
	local dockerfile=$1 base=$2 tag=$3 start
	if [ "$force" = 0 ] && image_exists "$tag"; then
		log "reusing $tag"
		return 0
	fi
	start=$SECONDS
	log "docker build $tag from $dockerfile"
	docker build --quiet -f "$here/$dockerfile" \
		--build-arg "BASE_IMAGE=$base" \
		--label "org.crs-ci.base-images.hash=$hash" \
		--label "org.crs-ci.base-images.stand-in=true" \
		-t "$tag" "$here" >&2
	log "built $tag in $((SECONDS - start)) s"
}

# rootfs_hash LISTFILE: the key of the root file system made from LISTFILE.
rootfs_hash() {
	{ cat "$1"; declare -f rootfs; echo "$suite $mirror $security_mirror"; } |
		sha256sum | cut -c1-12
}

log "hash $hash"
total=$SECONDS
clang_tag="crs-ci/base-clang:$(rootfs_hash "$here/packages-builder.txt")"
runtime_tag="crs-ci/base-runtime:$(rootfs_hash "$here/packages-runner.txt")"
rootfs "$here/packages-builder.txt" "$clang_tag"
rootfs "$here/packages-runner.txt" "$runtime_tag"
image base-builder.Dockerfile "$clang_tag" "crs-ci/base-builder:$hash"
image base-runner.Dockerfile "$runtime_tag" "crs-ci/base-runner:$hash"

for kind in builder runner; do
	docker tag "crs-ci/base-$kind:$hash" "crs-ci/base-$kind:$alias_tag"
	log "tagged crs-ci/base-$kind:$alias_tag -> crs-ci/base-$kind:$hash"
done

# untag_legacy TAG: remove TAG when it names an image this script built.
untag_legacy() {
	local made
	made=$(docker image inspect -f \
		'{{index .Config.Labels "org.crs-ci.base-images.hash"}}' \
		"$1" 2>/dev/null) || return 0
	if [ -z "$made" ]; then
		log "keeping $1 (not built here)"
		return 0
	fi
	docker rmi "$1" >/dev/null
	log "removed the old stand-in tag $1 (the real image is pulled now)"
}
if [ "$keep_legacy" = 0 ]; then
	for tag in $legacy_tags; do
		untag_legacy "$tag"
	done
fi
log "done in $((SECONDS - total)) s"
echo "crs-ci/base-builder:$hash"
echo "crs-ci/base-runner:$hash"
