#!/usr/bin/env bash
# install-release.sh - the action's install step for a release: download
# crs-ci, libCRS and libCRS-install.sh of one release and its SHA256SUMS,
# check each file against its own line of SHA256SUMS, and only then move
# them into DIR. Fails closed: a missing file, a missing or malformed
# SHA256SUMS line or a different SHA-256 leaves DIR without crs-ci and
# exits 1. The names in SHA256SUMS are only compared, never opened.
#
# With COMMIT (the action's ref is a full commit), the verified crs-ci must
# also say it was built from COMMIT (`crs-ci version`: "(commit SHA)");
# when it does not, exit 3 and DIR is left without crs-ci: the action then
# builds that commit from source.
#
# Usage: install-release.sh BASE_URL DIR [COMMIT]
#   BASE_URL  where the assets are: https://github.com/OWNER/REPO/releases/
#             download/vX.Y.Z (file:// and http:// work too, for tests)
#   DIR       where crs-ci, libCRS and libCRS-install.sh go (crs-ci finds
#             libCRS beside itself)
set -euo pipefail

die() { echo "crs-ci install: $*" >&2; exit 1; }

[ $# -eq 2 ] || [ $# -eq 3 ] ||
	{ echo "usage: $0 BASE_URL DIR [COMMIT]" >&2; exit 2; }
url=${1%/}
dir=$2
commit=${3:-}
files=(crs-ci libCRS libCRS-install.sh)

tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crs-ci-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for f in "${files[@]}" SHA256SUMS; do
	curl -fsSL --retry 3 --proto '=https,http,file' -o "$tmp/$f" "$url/$f" ||
		die "cannot download $url/$f"
done
for f in "${files[@]}"; do
	# exactly one line "<64 hex>  <name>" (or " *<name>": binary mode)
	want=$(awk -v f="$f" '$2 == f || $2 == "*" f { print $1 }' \
		"$tmp/SHA256SUMS")
	[ "$(printf '%s\n' "$want" | grep -c .)" -eq 1 ] ||
		die "SHA256SUMS has no single line for $f"
	[[ $want =~ ^[0-9a-f]{64}$ ]] ||
		die "SHA256SUMS: the SHA-256 of $f is not 64 hex digits"
	got=$(sha256sum "$tmp/$f" | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		die "$f: SHA-256 $got does not match SHA256SUMS ($want)"
done
if [ -n "$commit" ]; then
	chmod 0755 "$tmp/crs-ci"
	said=$(timeout 30 "$tmp/crs-ci" version 2>/dev/null | head -n 1 || true)
	case $said in
	*"(commit $commit)")
		;;
	*)
		echo "crs-ci install: $url: crs-ci says '$said', not built" \
			"from commit $commit" >&2
		exit 3
		;;
	esac
fi
mkdir -p "$dir"
for f in "${files[@]}"; do
	install -m 0755 "$tmp/$f" "$dir/$f"
done
echo "crs-ci install: $url: ${files[*]} verified against SHA256SUMS, in $dir" >&2
