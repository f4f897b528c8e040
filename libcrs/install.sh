#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# install.sh - install crs-ci's static libCRS into a CRS image
#
# OSS-CRS build files install libCRS with
#     COPY --from=libcrs . /opt/libCRS
#     RUN /opt/libCRS/install.sh [--all|--cli|--python]
# crs-ci serves a `libcrs` image holding /libCRS (a static binary) and this
# script, so those lines work unchanged in any image: no Python, uv, apt or
# rsync is needed, and nothing is downloaded. Only POSIX sh is used.
#
# The flags are accepted for compatibility; the Python library (import
# libCRS) is not provided, which --all and --python say. LIBCRS_PREFIX
# changes the target directory (default /usr/local/bin).
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
prefix=${LIBCRS_PREFIX:-/usr/local/bin}
python_note=0

for arg in "$@"; do
	case $arg in
	--cli) ;;
	--all | --python) python_note=1 ;;
	-h | --help)
		echo "usage: install.sh [--all|--cli|--python]"
		echo "installs the libCRS command line to $prefix/libCRS"
		exit 0
		;;
	*) echo "install.sh: ignoring unknown option '$arg'" >&2 ;;
	esac
done

if [ ! -f "$here/libCRS" ]; then
	echo "install.sh: $here/libCRS is missing" >&2
	exit 1
fi
mkdir -p "$prefix"
# Copy beside the target, then rename: a running libCRS is never clobbered.
cp "$here/libCRS" "$prefix/.libCRS.tmp.$$"
chmod 755 "$prefix/.libCRS.tmp.$$"
mv -f "$prefix/.libCRS.tmp.$$" "$prefix/libCRS"
if [ "$python_note" = 1 ]; then
	echo "install.sh: note: the libCRS Python library is not provided" \
		"by crs-ci; only the libCRS command line is installed" >&2
fi
echo "install.sh: installed $prefix/libCRS"
