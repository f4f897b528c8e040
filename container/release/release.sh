#!/bin/sh
# release.sh - the steps of a release, in order, as the release workflow
# (.github/workflows/release.yml) runs them and as they run on a
# developer's machine:
#   1. `make static` (container/static/build.sh): static crs-ci and libCRS
#   2. the assets in build/release/: crs-ci, libCRS, libCRS-install.sh and
#      SHA256SUMS (sha256sum format, checked by the action's install step)
#   3. the root file system of the image (mmdebstrap, Debian bookworm's
#      Essential set plus packages.txt), imported as
#      crs-ci/release-base:KEY, KEY a hash of the package and source lists
#   4. the image (Dockerfile here) from that base and `make install-files`,
#      tagged crs-ci/crs-ci:VERSION and every --tag NAME
#   5. with --push only (the workflow): docker push of every --tag NAME
#
# Usage: container/release/release.sh [--version V] [--tag NAME]... [--push]
#        container/release/release.sh --print-tags [--version V] [--tag NAME]...
#   --version V   the release's version (default: v + crs-ci's version)
#   --tag NAME    also tag the image NAME (repeatable), e.g.
#                 ghcr.io/OWNER/crs-ci:v0.1.0
#   --push        push the --tag names (needs docker login first)
#   --print-tags  run no step: print the tags this release creates, one
#                 per line, "git TAG" (the git tag the release is cut at,
#                 which the workflow `crs-ci init` writes, the examples
#                 and the docs name: uses: crs-ci/crs-ci/actions@TAG,
#                 GitLab include ref: TAG, component @TAG) then
#                 "image NAME" for every image tag; the same checks of
#                 the version as a release, so exit 2 where it would
# Environment: RELEASE_OUT=DIR (default build/release), DEBIAN_MIRROR=URL,
# RELEASE_REFRESH=1 (re-run mmdebstrap), SOURCE_DATE_EPOCH (the root file
# system's timestamps; fixed by default, so the tarball's SHA-256 depends
# only on the Debian package versions).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${RELEASE_OUT:-$root/build/release}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
version=""
push=0
print_tags=0
tags=""

usage() {
	echo "usage: $0 [--print-tags] [--version V] [--tag NAME]... [--push]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--version)
		[ $# -ge 2 ] || usage
		version=$2
		shift 2
		;;
	--tag)
		[ $# -ge 2 ] || usage
		tags="$tags $2"
		shift 2
		;;
	--push)
		push=1
		shift
		;;
	--print-tags)
		print_tags=1
		shift
		;;
	*) usage ;;
	esac
done
[ "$push" = 0 ] || [ "$print_tags" = 0 ] || usage
[ "$push" = 0 ] || [ -n "$tags" ] || {
	echo "release: --push needs at least one --tag" >&2
	exit 2
}

t0=$(date +%s)
say() {
	echo "release: [$(($(date +%s) - t0))s] $*" >&2
}

src_version=$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' \
	"$root/runner/scan/ctx.h")
[ -n "$version" ] || version=v$src_version
# A release tag must match the version the binary prints, and be one the
# release workflow runs on (.github/workflows/release.yml: v[0-9]+.[0-9]+.
# [0-9]+*): the action's release-version.sh installs exactly such tags.
case $version in
v"$src_version") ;;
*)
	say "version $version does not match crs-ci $src_version" \
		"(runner/scan/ctx.h CRS_CI_VERSION)"
	exit 2
	;;
esac
if ! printf '%s\n' "$version" |
    grep -Eqx 'v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?'; then
	say "version $version is not vX.Y.Z[-PRE] (runner/scan/ctx.h)"
	exit 2
fi
# The GitLab template's default image is this release's image.
gitlab=$root/gitlab/crs-ci.gitlab-ci.yml
grep -q "^      default: ghcr.io/.*/crs-ci:$version\$" "$gitlab" || {
	say "$gitlab: the image input's default is not ...:$version"
	exit 2
}
image=crs-ci/crs-ci:$version
if [ "$print_tags" = 1 ]; then
	echo "git $version"
	for t in $image $tags; do
		echo "image $t"
	done
	exit 0
fi
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-release.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# --- 1. static binaries -------------------------------------------------
# A clean checkout's commit goes into the binary (container/static/
# build.sh; `crs-ci version`), and so into the workflows its `crs-ci init`
# writes (@COMMIT # TAG): the action installs this release for that
# commit only when the binary says so.
clean=0
if printf '%s\n' "$revision" | grep -Eqx '[0-9a-f]{40}' &&
    git -C "$root" diff --quiet HEAD -- 2>/dev/null; then
	clean=1
else
	say "the tree has changes or is no git checkout: the binaries name" \
		"no commit, and their crs-ci init pins crs-ci's action by tag"
fi
say "1/5 make static"
make -s -C "$root" static
bin=$root/build/static
[ "$clean" = 0 ] || "$bin/crs-ci" version | head -n 1 |
	grep -qF "(commit $revision)" || {
	say "$bin/crs-ci version does not name commit $revision"
	exit 1
}

# --- 2. assets ----------------------------------------------------------
say "2/5 assets in $out"
rm -rf "$out"
mkdir -p "$out"
for f in crs-ci libCRS libCRS-install.sh; do
	install -m 0755 "$bin/$f" "$out/$f"
done
(cd "$out" && sha256sum crs-ci libCRS libCRS-install.sh >SHA256SUMS)
sed 's/^/release:   /' "$out/SHA256SUMS" >&2

# --- 3. the image's root file system -----------------------------------
packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/packages.txt" |
	grep -v '^$' | paste -sd, -)
sources="deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main"
key=$(printf 'release-base v1\n%s\n%s\n%s\n' "$suite" "$packages" \
	"$sources" | sha256sum | cut -c1-16)
base=crs-ci/release-base:$key
if [ "${RELEASE_REFRESH:-0}" = 1 ] ||
    ! docker image inspect "$base" >/dev/null 2>&1; then
	say "3/5 mmdebstrap $suite ($packages) for $base"
	set --
	while IFS= read -r line; do
		set -- "$@" "$line"
	done <<-SOURCES
	$sources
	SOURCES
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000} \
	nice -n 19 mmdebstrap --quiet --variant=essential --format=tar \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='Acquire::Retries "3"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="$packages" "$suite" "$tmp/rootfs.tar" "$@"
	sum=$(sha256sum "$tmp/rootfs.tar" | cut -d' ' -f1)
	docker import \
		-c "LABEL org.crs-ci.release.base=$key" \
		-c "LABEL org.crs-ci.release.rootfs-sha256=$sum" \
		-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		-c 'CMD ["/bin/sh"]' \
		"$tmp/rootfs.tar" "$base" >/dev/null
	rm -f "$tmp/rootfs.tar"
else
	say "3/5 reusing $base"
fi
say "    root file system SHA-256 $(docker image inspect -f \
	'{{index .Config.Labels "org.crs-ci.release.rootfs-sha256"}}' "$base")"

# --- 4. the image -------------------------------------------------------
say "4/5 image $image"
mkdir -p "$tmp/context"
# the layout of `make install PREFIX=/usr/local`, from the static binaries
make -s -C "$root" BUILD="$bin" PREFIX=/usr/local \
	DESTDIR="$tmp/context" install-files
set -- --build-arg "BASE=$base" --build-arg "VERSION=$version" \
	--build-arg "REVISION=$revision" -t "$image"
[ -z "${GITHUB_REPOSITORY:-}" ] || set -- "$@" --build-arg \
	"SOURCE=${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY"
for t in $tags; do
	set -- "$@" -t "$t"
done
old=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
docker build -q -f "$here/Dockerfile" "$@" "$tmp/context" >/dev/null
# the previous build of this version, untagged now: drop it unless in use
new=$(docker image inspect -f '{{.Id}}' "$image")
[ -z "$old" ] || [ "$old" = "$new" ] || docker rmi "$old" >/dev/null 2>&1 || true
docker run --rm "$image" crs-ci version >&2
say "    $new" \
	"$(docker image inspect -f '{{.Size}}' "$image") bytes"

# --- 5. push (the release workflow only) --------------------------------
if [ "$push" = 1 ]; then
	for t in $tags; do
		say "5/5 docker push $t"
		docker push "$t"
	done
else
	say "5/5 no --push: nothing pushed"
fi
say "done: $out and $image$tags"
