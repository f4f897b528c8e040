#!/usr/bin/env bash
# test_lazy_init.sh - the quick commands initialise no library: `crs-ci
# version`, `help`, `completion` and the pre-push hook with nothing to
# scan never call curl_global_init (which initialises OpenSSL) or
# git_libgit2_init, while a command that needs them (check) does. Read
# from the dynamic loader's own record of the symbols a run bound
# (LD_DEBUG=bindings): lazy binding resolves a function at its first
# call, so a call that never happened leaves no line. Needs no engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP

# inits ARGS...: the library initialisations crs-ci itself called
inits() {
	LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" "$CRS_CI" "$@" \
		>/dev/null 2>&1 <"$tmp/stdin" || true
	cat "$tmp"/ld.* 2>/dev/null |
		grep -oE "binding file [^ ]*crs-ci \[0\] .*normal symbol \`(curl_global_init|git_libgit2_init)'" |
		grep -oE "(curl_global_init|git_libgit2_init)" | sort -u | tr '\n' ' '
	rm -f "$tmp"/ld.*
}

: >"$tmp/stdin"
# the control: a command that needs both shows both
got=$(inits check --compose "$ROOT/container/crs/libfuzzer/compose.yaml")
[ "$got" = "curl_global_init git_libgit2_init " ] ||
	fail "crs-ci check: initialisations seen: '$got' (want both)"
for cmd in "version" "--version" "help" "help scan" "completion bash" \
	   "scan --help"; do
	# shellcheck disable=SC2086
	got=$(inits $cmd)
	[ -z "$got" ] || fail "crs-ci $cmd initialised: $got"
done
# pre-push: nothing pushed, or only a deletion: done before any library
(cd "$tmp" && got=$(inits pre-push origin) &&
	{ [ -z "$got" ] || fail "pre-push with no refs initialised: $got"; })
printf 'refs/heads/x %s refs/heads/x %s\n' \
	0000000000000000000000000000000000000000 \
	1111111111111111111111111111111111111111 >"$tmp/stdin"
(cd "$tmp" && got=$(inits pre-push origin) &&
	{ [ -z "$got" ] || fail "pre-push of a deletion initialised: $got"; })
# and a push to scan still gets them (it fails: no repository here)
printf 'refs/heads/x %s refs/heads/x %s\n' \
	1111111111111111111111111111111111111111 \
	0000000000000000000000000000000000000000 >"$tmp/stdin"
(cd "$tmp" && got=$(inits pre-push origin) &&
	{ [ "$got" = "curl_global_init git_libgit2_init " ] ||
	  fail "pre-push with a ref to scan: '$got' (want both)"; })
note "version, help, completion and an empty pre-push initialise no library"
echo "ok: test_lazy_init"
