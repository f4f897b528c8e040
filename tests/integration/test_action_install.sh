#!/usr/bin/env bash
# test_action_install.sh - which release the action's default installs
# for its own ref (actions/release-version.sh), and the release install
# step (actions/install-release.sh) against fake release assets served over
# HTTP (python3 -m http.server on 127.0.0.1) and file://: matching
# checksums install all three files; a changed binary, a SHA256SUMS
# without a line for one file, a malformed line or a missing asset fail
# closed (exit 1, nothing in the target folder).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
install_sh="$ROOT/actions/install-release.sh"

# release REL [COMMIT]: fake assets (crs-ci version names COMMIT) in $tmp/REL with a correct SHA256SUMS
release() {
	local d=$tmp/$1
	mkdir -p "$d"
	printf '#!/bin/sh\n[ "$1" != version ] || { echo "crs-ci 0.1.0 (commit %s)"; exit; }\necho fake crs-ci %s\n' \
		"${2:-none}" "$1" >"$d/crs-ci"
	printf '#!/bin/sh\necho fake libCRS\n' >"$d/libCRS"
	printf '#!/bin/sh\n: install\n' >"$d/libCRS-install.sh"
	(cd "$d" && sha256sum crs-ci libCRS libCRS-install.sh >SHA256SUMS)
}
# expect_fail NAME URL WHY: the install fails with WHY; nothing installed
expect_fail() {
	local name=$1 url=$2 why=$3 code=0
	"$install_sh" "$url" "$tmp/bin-$name" 2>"$tmp/$name.log" || code=$?
	[ "$code" -eq 1 ] || { cat "$tmp/$name.log" >&2; fail "$name: exit $code, want 1"; }
	grep -q "$why" "$tmp/$name.log" || fail "$name: $(cat "$tmp/$name.log")"
	[ ! -e "$tmp/bin-$name/crs-ci" ] || fail "$name: crs-ci installed anyway"
	note "$name: refused ($(tail -n 1 "$tmp/$name.log"))"
}

# the release of the action's ref: a release tag (the tags the release
# process creates, test_release_refs.sh) or a full commit (what init of a
# release writes: the version of the action's own tree, the commit checked
# by the install below); anything else, moving major and minor tags and
# short commits too, builds from source
version=$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' "$ROOT/runner/scan/ctx.h")
sha=0123456789abcdef0123456789abcdef01234567
for pair in "$sha=v$version" 0123456789ABCDEF0123456789abcdef01234567=source \
    "${sha}0=source" v2.3.4=v2.3.4 v9.0.0-rc.1=v9.0.0-rc.1 v2=source v2.3=source \
    v1=source v23=source main=source =source \
    0123abcd=source "v2.3.4/../x=source"; do
	got=$("$ROOT/actions/release-version.sh" "${pair%%=*}")
	[ "$got" = "${pair#*=}" ] || fail "ref '${pair%%=*}': $got, want ${pair#*=}"
done
note "action refs: release tags install that release, others build"

# HTTP server of $tmp on a free port, stopped at exit
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$tmp" "$port" \
	>"$tmp/http.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do
	curl -fs -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done
http="http://127.0.0.1:$port"

# good: all three installed, executable, the bytes served
release good
"$install_sh" "$http/good" "$tmp/bin-good" 2>"$tmp/good.log" ||
	{ cat "$tmp/good.log" >&2; fail "good release refused"; }
[ "$("$tmp/bin-good/crs-ci")" = "fake crs-ci good" ] || fail "wrong crs-ci installed"
for f in libCRS libCRS-install.sh; do
	[ -x "$tmp/bin-good/$f" ] || fail "$f not installed executable"
done
note "good: $(tail -n 1 "$tmp/good.log")"
"$install_sh" "file://$tmp/good" "$tmp/bin-file" 2>/dev/null ||
	fail "file:// release refused"

# a binary that is not the one SHA256SUMS names
release swapped
printf '#!/bin/sh\necho evil\n' >"$tmp/swapped/crs-ci"
expect_fail swapped "$http/swapped" "crs-ci: SHA-256 .* does not match"

# SHA256SUMS without a line for libCRS: `sha256sum --check` alone would
# pass, checking only the lines that are there
release unlisted
printf '#!/bin/sh\necho evil\n' >"$tmp/unlisted/libCRS"
grep -v ' libCRS$' "$tmp/unlisted/SHA256SUMS" >"$tmp/unlisted/s" &&
	mv "$tmp/unlisted/s" "$tmp/unlisted/SHA256SUMS"
expect_fail unlisted "$http/unlisted" "no single line for libCRS"

# two lines for crs-ci, one of them for the served file
release doubled
(cd "$tmp/doubled" && sha256sum crs-ci >>SHA256SUMS)
sed -i '1s/^[0-9a-f]*/0000000000000000000000000000000000000000000000000000000000000000/' \
	"$tmp/doubled/SHA256SUMS"
expect_fail doubled "$http/doubled" "no single line for crs-ci"

# a line that is not a SHA-256
release malformed
sed -i 's/^[0-9a-f]*  libCRS-install.sh$/xyz  libCRS-install.sh/' \
	"$tmp/malformed/SHA256SUMS"
expect_fail malformed "$http/malformed" "is not 64 hex digits"

# a release without SHA256SUMS
release nosums
rm "$tmp/nosums/SHA256SUMS"
expect_fail nosums "$http/nosums" "cannot download .*/SHA256SUMS"

# a refused download leaves an earlier install in the same folder as it
# was (nothing is half replaced)
"$install_sh" "$http/swapped" "$tmp/bin-good" 2>/dev/null &&
	fail "swapped release installed over the good one"
[ "$("$tmp/bin-good/crs-ci")" = "fake crs-ci good" ] || fail "good install changed"
note "a refused download leaves the earlier install unchanged"

# a commit ref: the release is installed only when its crs-ci was built
# from that commit (exit 3 otherwise: the action builds the commit)
release pinned "$sha"
"$install_sh" "$http/pinned" "$tmp/bin-pinned" "$sha" 2>"$tmp/pinned.log" ||
	{ cat "$tmp/pinned.log" >&2; fail "the release of commit $sha refused"; }
[ "$("$tmp/bin-pinned/crs-ci")" = "fake crs-ci pinned" ] || fail "pinned: wrong crs-ci"
code=0
"$install_sh" "$http/pinned" "$tmp/bin-other" fedcba9876543210fedcba9876543210fedcba98 \
	2>"$tmp/other.log" || code=$?
[ "$code" -eq 3 ] && grep -q "not built from commit fedcba98" "$tmp/other.log" ||
	fail "another commit's release: exit $code: $(cat "$tmp/other.log")"
[ ! -e "$tmp/bin-other/crs-ci" ] || fail "another commit's release installed"
code=0
"$install_sh" "$http/good" "$tmp/bin-nocommit" "$sha" 2>/dev/null || code=$?
[ "$code" -eq 3 ] || fail "a release naming no commit installed for $sha: exit $code"
note "commit refs: the release built from it installs; another commit's exits 3 ($(tail -n 1 "$tmp/other.log"))"
