#!/bin/sh
# build.sh - `make static`: builds fully static crs-ci and libCRS inside a
# container, from Debian packages, and writes them to build/static/.
#
# Usage: container/static/build.sh [--smoke]
#   --smoke  link container/static/smoke.c (every library, no project
#            code) instead of the tree and run it in an empty image
#
# Three layers, each cached by content:
#   crs-ci/static-base:KEY  Debian bookworm made by mmdebstrap (compilers,
#                           cmake, autotools and the -dev packages whose
#                           static archives link as they are), with deb-src
#                           lists; KEY hashes the package and source lists.
#   crs-ci/static-deps:KEY  the base plus libcurl, libgit2, libxml2,
#                           libmicrohttpd and libarchive built by deps.sh
#                           into /opt/static; KEY hashes the base image, the
#                           Debian source versions (.dsc names and SHA-256)
#                           and deps.sh. Built once, then reused.
#   build/static/           crs-ci and libCRS compiled by compile.sh in a
#                           throw-away container (no network, the checkout
#                           mounted read-only, files owned by the caller);
#                           skipped when .tree-key there matches the tree's
#                           content, the deps image and the options.
# Last, both binaries are run in an image that holds nothing else. A
# checkout without changes to its tracked files compiles its commit into
# both (`crs-ci version`).
#
# Environment:
#   STATIC_REFRESH=1  re-run mmdebstrap (newer Debian lists and versions)
#   STATIC_STRIP=0    keep symbols in the output binaries
#   STATIC_CFLAGS=... more compiler flags for our code (EXTRA_CFLAGS)
#   STATIC_TARGETS=.. build these names inside BUILD instead of `all`
#   STATIC_OUT=DIR    output folder (default build/static)
#   DEBIAN_MIRROR=URL Debian mirror (default http://deb.debian.org/debian)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${STATIC_OUT:-$root/build/static}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
srcpkgs="curl libgit2 libxml2 libmicrohttpd libarchive"
include="build-essential,pkg-config,cmake,autoconf,automake,libtool"
include="$include,libyaml-dev,libjansson-dev,libssl-dev,zlib1g-dev"
include="$include,libcmocka-dev,libpcre2-dev,libhttp-parser-dev"
mode=tree

case "${1:-}" in
"") ;;
--smoke) mode=smoke ;;
*)
	echo "usage: $0 [--smoke]" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-static.XXXXXX")
ctr=""
img=""
cleanup() {
	[ -z "$ctr" ] || docker rm -f "$ctr" >/dev/null 2>&1 || true
	[ -z "$img" ] || docker rmi "$img" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() {
	echo "static: $*" >&2
}

now() {
	date +%s
}

sha() {
	sha256sum | cut -c1-16
}

have_image() {
	docker image inspect "$1" >/dev/null 2>&1
}

t0=$(now)

# One static build at a time per user: the second waits for the first's
# images instead of building them again.
exec 9>"${TMPDIR:-/tmp}/crs-ci-static-$(id -u).lock"
flock 9

# --- layer 1: the Debian base ------------------------------------------
sources="deb $mirror $suite main
deb-src $mirror $suite main
deb $mirror $suite-updates main
deb-src $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
deb-src ${mirror%/debian}/debian-security $suite-security main"
base_key=$(printf 'base v1\n%s\n%s\n%s\n' "$suite" "$include" "$sources" |
	sha)
base=crs-ci/static-base:$base_key
old_base=$(docker image inspect -f '{{.Id}}' "$base" 2>/dev/null || true)
if [ "${STATIC_REFRESH:-0}" = 1 ] || [ -z "$old_base" ]; then
	say "making $base with mmdebstrap"
	# The lines are passed one by one as mmdebstrap's mirror arguments.
	printf '%s\n' "$sources" >"$tmp/sources"
	set --
	while IFS= read -r line; do
		set -- "$@" "$line"
	done <"$tmp/sources"
	nice -n 19 mmdebstrap --quiet --variant=apt \
		--skip=cleanup/apt/lists --include="$include" \
		"$suite" "$tmp/base.tar" "$@"
	docker import -c "LABEL org.crs-ci.static.base=$base_key" \
		"$tmp/base.tar" "$base" >/dev/null
	rm -f "$tmp/base.tar"
fi
base_id=$(docker image inspect -f '{{.Id}}' "$base")

# --- layer 2: the five libraries from Debian source --------------------
# The base's frozen lists name the source versions; asking needs no network.
# shellcheck disable=SC2086
docker run --rm --network none "$base" \
	apt-get source --print-uris -qq $srcpkgs >"$tmp/uris"
dscs=$(awk '$2 ~ /\.dsc$/ {print $2, $4}' "$tmp/uris")
specs=$(printf '%s\n' "$dscs" |
	sed -n 's/^\([^_]*\)_\(.*\)\.dsc .*/\1=\2/p' | tr '\n' ' ')
if [ "$(printf '%s\n' "$dscs" | wc -l)" -ne 5 ]; then
	say "cannot read the source versions of: $srcpkgs"
	cat "$tmp/uris" >&2
	exit 1
fi
deps_key=$( (echo "deps v1 $base_id"; printf '%s\n' "$dscs";
	cat "$here/deps.sh") | sha)
deps=crs-ci/static-deps:$deps_key
if ! have_image "$deps"; then
	say "building $deps: $specs"
	t1=$(now)
	ctr=crs-ci-static-deps-$$
	std_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	# The lowest CPU weight as well as nice: the engine puts the
	# container in a cgroup of its own, where nice alone does not yield
	# to other containers (the integration tests that run while
	# run-all.sh builds this in the background).
	# shellcheck disable=SC2086
	docker create --name "$ctr" --cpu-shares 2 \
		-v "$here/deps.sh:/deps.sh:ro" "$base" \
		nice -n 19 sh /deps.sh $specs >/dev/null
	docker start -a "$ctr"
	versions=$(docker cp "$ctr:/opt/static/VERSIONS" - | tar -xO |
		tr '\n' ',' | sed 's/,$//')
	docker commit \
		-c "LABEL org.crs-ci.static.versions=\"$versions\"" \
		-c "LABEL org.crs-ci.static.deps=$deps_key" \
		-c "ENV PATH=/opt/static/bin:$std_path" \
		-c 'CMD ["/bin/sh"]' "$ctr" "$deps" >/dev/null
	docker rm "$ctr" >/dev/null
	ctr=""
	say "built $deps in $(($(now) - t1))s"
	# Only one set of static images is kept: drop the ones this script
	# made for other keys (an older deps.sh, older Debian lists).
	for ref in $(docker images --format '{{.Repository}}:{{.Tag}}' \
	    crs-ci/static-deps) $(docker images \
	    --format '{{.Repository}}:{{.Tag}}' crs-ci/static-base); do
		case $ref in
		"$deps" | "$base") ;;
		*) docker rmi "$ref" >/dev/null 2>&1 || true ;;
		esac
	done
	[ -z "$old_base" ] || [ "$old_base" = "$base_id" ] ||
		docker rmi "$old_base" >/dev/null 2>&1 || true
fi
say "using $deps ($(docker image inspect \
	-f '{{index .Config.Labels "org.crs-ci.static.versions"}}' "$deps"))"

# --- layer 3: our code --------------------------------------------------
mkdir -p "$out"
# The tree's content (not its times), the deps image and the options: a
# build/static/ made from the same is up to date, and tests that each ask
# for the static binaries do not compile them again.
tree_key=""
# A checkout with no change to its tracked files names its commit in the
# binaries (`crs-ci version` "(commit SHA)", the ref `crs-ci init` pins
# crs-ci's own action by); any other tree names none. The release is cut
# from such a checkout (container/release/release.sh checks it).
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || true)
if printf '%s\n' "$commit" | grep -Eqx '[0-9a-f]{40}' &&
    git -C "$root" diff --quiet HEAD -- 2>/dev/null; then
	STATIC_CFLAGS="${STATIC_CFLAGS:-} -DCRS_CI_COMMIT=$commit"
fi
if [ "$mode" = tree ]; then
	tree_key=$( (echo "tree v1 $deps ${STATIC_STRIP:-1}"
		echo "${STATIC_CFLAGS:-}|${STATIC_TARGETS:-}"
		tar -C "$root" --exclude=./build --exclude=./.git \
			--exclude='./crs-ci-work*' --sort=name --mtime=@0 \
			--owner=0 --group=0 --numeric-owner -cf - .) | sha)
	if [ -f "$out/crs-ci" ] && [ -f "$out/libCRS" ] &&
	    [ "$(cat "$out/.tree-key" 2>/dev/null)" = "$tree_key" ]; then
		say "$out is up to date (tree $tree_key)"
		exit 0
	fi
	rm -f "$out/.tree-key"
fi
arg=""
if [ "$mode" = smoke ]; then
	arg=--smoke
	outdir=$tmp/out
	mkdir -p "$outdir"
else
	outdir=$out
fi
t1=$(now)
# shellcheck disable=SC2086
docker run --rm --network none --user "$(id -u):$(id -g)" \
	-e STATIC_STRIP="${STATIC_STRIP:-1}" \
	-e STATIC_CFLAGS="${STATIC_CFLAGS:-}" \
	-e STATIC_TARGETS="${STATIC_TARGETS:-}" \
	-v "$root:/src:ro" -v "$outdir:/out" "$deps" \
	sh /src/container/static/compile.sh $arg
say "compiled in $(($(now) - t1))s"

# --- check: run in an image that holds nothing but the binaries --------
img=crs-ci/static-check:$$
if [ "$mode" = smoke ]; then
	tar -C "$outdir" -cf - smoke | docker import - "$img" >/dev/null
	sock=""
	[ ! -S /var/run/docker.sock ] ||
		sock="-v /var/run/docker.sock:/docker.sock"
	# shellcheck disable=SC2086
	docker run --rm $sock "$img" /smoke \
		${sock:+--ping /docker.sock} --resolve localhost
	say "smoke binary ran in an empty image" \
		"($(stat -c %s "$outdir/smoke") bytes)"
else
	tar -C "$out" -cf - crs-ci libCRS | docker import - "$img" >/dev/null
	for cmd in "/crs-ci version" "/libCRS --help"; do
		rc=0
		# shellcheck disable=SC2086
		docker run --rm "$img" $cmd >"$tmp/run.log" 2>&1 || rc=$?
		# 126/127: could not be executed; above 128: killed by a signal.
		if [ "$rc" -ge 126 ]; then
			cat "$tmp/run.log" >&2
			say "'$cmd' failed in an empty image (exit $rc)"
			exit 1
		fi
		say "'$cmd' in an empty image: exit $rc:" \
			"$(head -n 1 "$tmp/run.log")"
	done
	for bin in crs-ci libCRS; do
		say "$out/$bin: $(stat -c %s "$out/$bin") bytes"
	done
	printf '%s\n' "$tree_key" >"$out/.tree-key"
fi
say "done in $(($(now) - t0))s"
