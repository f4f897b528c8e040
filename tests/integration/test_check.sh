#!/usr/bin/env bash
# test_check.sh - crs-ci check accepts the valid fixture and rejects each
# broken one with exit 2 and the expected file:line:column message; it
# names the project folder's layout, refuses a folder without Dockerfile
# or build.sh, and finds .clusterfuzzlite/ without --project.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir
cd "$ROOT/tests/fixtures/config"
out=$("$CRS_CI" check --compose valid/compose.yaml --project valid/project 2>/dev/null) \
	|| fail "valid fixture rejected"
grep -qF "project: valid OSS-Fuzz project folder, project \"project\"" <<<"$out" ||
	fail "check does not name the layout: $out"
# refused WHAT WANT ARGS...: crs-ci check ARGS exits 2 saying WANT
refused() {
	local what=$1 want=$2 msg code
	shift 2
	set +e
	msg=$("$CRS_CI" check "$@" 2>&1 >/dev/null)
	code=$?
	set -e
	[ "$code" -eq 2 ] || fail "$what: exit $code, want 2 ($msg)"
	grep -qF -- "$want" <<<"$msg" || fail "$what: got '$msg', want '$want'"
	note "$what: $msg"
}
n=0
for d in broken-*/; do
	d=${d%/}
	args=(--compose "$d/compose.yaml")
	[ -d "$d/project" ] && args+=(--project "$d/project")
	refused "$d" "$(head -n1 "$d/expect.txt")" "${args[@]}"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n broken fixtures"

# an empty project folder is no project (git keeps no empty fixture)
mkdir "$TMP/empty"
refused "empty folder" "$TMP/empty: no Dockerfile in this OSS-Fuzz project folder" \
	--compose valid/compose.yaml --project "$TMP/empty"

# a repository with .clusterfuzzlite/: found without --project, named
# after project.yaml's main_repo; with nothing to find, --project is
# optional for check (the compose alone is checked)
mkdir -p "$TMP/Repo/.clusterfuzzlite"
cp valid/project/Dockerfile valid/project/build.sh valid/project/project.yaml \
	"$TMP/Repo/.clusterfuzzlite/"
out=$("$CRS_CI" check --compose valid/compose.yaml --source "$TMP/Repo" 2>/dev/null) ||
	fail "check refused a .clusterfuzzlite/ repository"
grep -qF "$TMP/Repo/.clusterfuzzlite: valid ClusterFuzzLite folder, project \"mock-c\"" \
	<<<"$out" || fail "check did not find .clusterfuzzlite/: $out"
note "auto-detected: $(tail -n1 <<<"$out")"
rm "$TMP/Repo/.clusterfuzzlite/build.sh"
refused "no build.sh" "$TMP/Repo/.clusterfuzzlite: no build.sh in this ClusterFuzzLite folder" \
	--compose valid/compose.yaml --source "$TMP/Repo"
out=$("$CRS_CI" check --compose valid/compose.yaml --source "$TMP/empty" 2>/dev/null) ||
	fail "check without a project refused"
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "check without a project printed: $out"
# --no-llm (a fork pull request has no secrets): a CRS that needs an LLM is
# skipped at run time instead of failing the configuration
"$CRS_CI" check --no-llm --compose broken-7/compose.yaml --project broken-7/project >/dev/null \
	|| fail "--no-llm did not accept a CRS with required_llms"
note "--no-llm accepts broken-7 (the CRS is skipped at run time)"
