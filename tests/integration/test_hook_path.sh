#!/usr/bin/env bash
# test_hook_path.sh - `crs-ci hook install` from a binary whose path holds
# a single quote, a space, a '$' and a backquote: the hook it writes must
# run exactly that binary (sh quoting), not fail or run something else.
# Needs no engine: the hook is run with --help, which crs-ci pre-push
# answers without scanning. An install without --project keeps no project;
# one without --compose takes the repository's .crs-ci/crs-compose.yaml
# (crs-ci init's), or says it needs --compose (exit 2) when there is none.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
dir="$tmp/it's a \$HOME \`x\` dir"
mkdir -p "$dir" "$tmp/repo"
cp "$CRS_CI" "$dir/crs-ci"
git init -q "$tmp/repo"
cd "$tmp/repo"
"$dir/crs-ci" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" >/dev/null
hook=.git/hooks/pre-push
[ -x "$hook" ] || fail "no hook installed"
sh -n "$hook" || { cat "$hook" >&2; fail "the hook is not valid sh"; }
set +e
out=$("$hook" --help </dev/null 2>&1)
code=$?
set -e
[ "$code" -eq 0 ] || { cat "$hook" >&2; echo "$out" >&2; fail "the hook did not run crs-ci (exit $code)"; }
case $out in
"usage: crs-ci pre-push"*) ;;
*) cat "$hook" >&2; echo "$out" >&2; fail "the hook ran something else" ;;
esac
note "hook runs $(grep '^exec' "$hook")"
# without --project the hook keeps none: each push finds the repository's
# .clusterfuzzlite/ (docs/layouts.md)
[ -n "$(git config crs-ci.project)" ] || fail "crs-ci.project not kept"
"$dir/crs-ci" hook install --compose "$ROOT/container/crs/libfuzzer/compose.yaml" >/dev/null
if git config crs-ci.project >/dev/null; then
	fail "crs-ci.project kept after an install without --project"
fi
set +e
err=$("$dir/crs-ci" hook install 2>&1 >/dev/null)
code=$?
set -e
[ "$code" -eq 2 ] && grep -q "hook install needs --compose: there is no .*/.crs-ci/crs-compose.yaml (crs-ci init writes one)" <<<"$err" ||
	fail "an install without --compose nor .crs-ci/crs-compose.yaml: exit $code: $err"
mkdir -p .crs-ci && cp "$ROOT/container/crs/libfuzzer/compose.yaml" .crs-ci/crs-compose.yaml
"$dir/crs-ci" hook install >/dev/null
[ "$(git config crs-ci.compose)" = "$tmp/repo/.crs-ci/crs-compose.yaml" ] ||
	fail "an install without --compose keeps $(git config crs-ci.compose)"
"$dir/crs-ci" hook uninstall >/dev/null
[ ! -e "$hook" ] || fail "hook still there after uninstall"
