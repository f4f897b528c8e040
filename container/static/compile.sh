#!/bin/sh
# compile.sh - the in-container half of `make static`: copies the read-only
# checkout at /src to a scratch folder, builds crs-ci and libCRS fully
# static against /opt/static (the crs-ci/static-deps image) and Debian's
# static archives, checks that each program has no program interpreter, and
# writes the programs (stripped unless STATIC_STRIP=0) and the files built
# beside them (libCRS-install.sh) to /out.
#
# Usage: compile.sh [--smoke]
#   --smoke  build container/static/smoke.c instead of the tree (/out/smoke)
set -eu

# The pkg-config in /opt/static/bin adds --static and searches /opt/static
# first, so the Makefile's `pkg-config --libs` lines name every private
# dependency; -static goes in through EXTRA_CFLAGS (used at link time too).
PATH=/opt/static/bin:$PATH
export PATH
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

if [ "${1:-}" = "--smoke" ]; then
	pkgs="libcurl jansson yaml-0.1 libgit2 libarchive libcrypto"
	pkgs="$pkgs libxml-2.0 libmicrohttpd"
	# shellcheck disable=SC2046,SC2086
	nice -n 19 cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 \
		-static $(pkg-config --cflags $pkgs) \
		-o "$w/smoke" /src/container/static/smoke.c \
		$(pkg-config --libs $pkgs) -lpthread 2>"$w/ld.log" || {
		cat "$w/ld.log" >&2
		exit 1
	}
	bins=smoke
	b=$w
else
	mkdir "$w/src"
	tar -C /src --exclude=./build --exclude=./.git -cf - . |
		tar -C "$w/src" -xf -
	cd "$w/src"
	b=$w/b
	# STATIC_TARGETS (names inside BUILD) replaces `all` for a partial
	# build, e.g. while a file that `all` needs is still being written.
	targets=all
	if [ -n "${STATIC_TARGETS:-}" ]; then
		targets=""
		for t in $STATIC_TARGETS; do
			targets="$targets $b/$t"
		done
	fi
	# Static glibc's link warnings (getaddrinfo, dlopen, getpwuid_r)
	# are expected; see README.md. The log is shown only on failure.
	# shellcheck disable=SC2086
	nice -n 19 make -j2 BUILD="$b" OPT=-O2 \
		EXTRA_CFLAGS="-static ${STATIC_CFLAGS:-}" $targets \
		>"$w/make.log" 2>&1 || {
		tail -n 80 "$w/make.log" >&2
		echo "compile.sh: make failed" >&2
		exit 1
	}
	# The programs and what ships beside them (libCRS-install.sh).
	bins=""
	for f in "$b"/*; do
		case $f in
		*.a) ;;
		*) [ ! -f "$f" ] || bins="$bins ${f##*/}" ;;
		esac
	done
fi

for bin in $bins; do
	if ! readelf -h "$b/$bin" >/dev/null 2>&1; then
		cp "$b/$bin" "/out/$bin.new"
		mv -f "/out/$bin.new" "/out/$bin"
		continue
	fi
	if readelf -lW "$b/$bin" | grep -q 'INTERP\|DYNAMIC'; then
		echo "compile.sh: $bin is not statically linked" >&2
		exit 1
	fi
	if [ "${STATIC_STRIP:-1}" = 1 ]; then
		strip -o "/out/$bin.new" "$b/$bin"
	else
		cp "$b/$bin" "/out/$bin.new"
	fi
	mv -f "/out/$bin.new" "/out/$bin"
done
