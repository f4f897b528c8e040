#!/usr/bin/env bash
# test_check.sh - crs-ci check accepts the valid fixture and rejects each
# broken one with exit 2 and the expected file:line:column message.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT/tests/fixtures/config"
"$CRS_CI" check --compose valid/compose.yaml --project valid/project >/dev/null \
	|| fail "valid fixture rejected"
n=0
for d in broken-*/; do
	d=${d%/}
	args=(--compose "$d/compose.yaml")
	[ -d "$d/project" ] && args+=(--project "$d/project")
	set +e
	msg=$("$CRS_CI" check "${args[@]}" 2>&1 >/dev/null)
	code=$?
	set -e
	[ "$code" -eq 2 ] || fail "$d: exit $code, want 2 ($msg)"
	want=$(head -n1 "$d/expect.txt")
	grep -qF -- "$want" <<<"$msg" || fail "$d: got '$msg', want '$want'"
	note "$d: $msg"
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n broken fixtures"
# --no-llm (a fork pull request has no secrets): a CRS that needs an LLM is
# skipped at run time instead of failing the configuration
"$CRS_CI" check --no-llm --compose broken-7/compose.yaml --project broken-7/project >/dev/null \
	|| fail "--no-llm did not accept a CRS with required_llms"
note "--no-llm accepts broken-7 (the CRS is skipped at run time)"
