#!/usr/bin/env bash
# test_pre_push_incomplete.sh - the pre-push hook and an INCOMPLETE scan
# (exit 4): the push goes ahead, with a warning that says the scan was
# incomplete (docs/results.md, "Verdicts"). A branch from main changes a
# line of rp_parse() that fuzz_records reaches; the hook's deadline (30 s,
# of which triage keeps 20 s) leaves that harness no fuzzing. The CRS is
# tests/fixtures/crs-sleeper without its LLM gateway (it is never run).
# Offline it needs the hook to honour CRS_CI_BASE_IMAGES (merge12 9b4f62e).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
compose_without_llm "$tmp/compose.yaml"
git init -q --bare "$tmp/remote.git"
cd "$tmp/repo"
g() { git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "$@"; }
g remote add origin "$tmp/remote.git"
g push -q origin main
"$CRS_CI" hook install --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --timeout 30s >/dev/null
g checkout -q -b tweak main
sed -i 's|^\tsize_t pos = 3;$|\tsize_t pos = 3;\t/* after "RP" and the version */|' src/recparse.c
git diff --quiet && fail "the tweak changed nothing"
g commit -qam "recparse: say where parsing starts"
set +e
g push origin tweak >"$tmp/push.txt" 2>&1
code=$?
set -e
grep -q '^verdict: INCOMPLETE$' "$tmp/push.txt" || { cat "$tmp/push.txt" >&2; fail "the scan was not INCOMPLETE"; }
[ "$code" -eq 0 ] || { cat "$tmp/push.txt" >&2; fail "an INCOMPLETE scan blocked the push (exit $code)"; }
grep -q 'pre-push: INCOMPLETE: .*the push goes ahead' "$tmp/push.txt" ||
	{ cat "$tmp/push.txt" >&2; fail "no warning that the scan was incomplete"; }
grep -q 'push blocked' "$tmp/push.txt" && fail "'push blocked' printed"
git ls-remote --exit-code "$tmp/remote.git" refs/heads/tweak >/dev/null ||
	fail "the branch did not reach the remote"
"$CRS_CI" hook uninstall >/dev/null
echo "ok: test_pre_push_incomplete"
