#!/usr/bin/env bash
# test_action_state.sh - the GitHub Action's own steps (refs, scan, and
# the paths its upload-artifact step names) on a pull request that
# commits crs-ci's state folders: the cache's corpus as a link to a host
# folder, crs-ci-out/reports as a link to ../.git and crs-ci-out/povs as
# a link, and a forged "finished" export of the base commit under
# crs-ci-work/. The scan works in RUNNER_TEMP: the bug is still new, the
# uploaded paths hold no link and nothing of .git, the host folder is
# untouched; a cache-dir input inside the checkout is refused (exit 2).
# The cache actions/cache restores into RUNNER_TEMP lists an image archive
# whose manifest tags a sentinel image: not loaded, the tag not moved.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
trap 'sentinel_tag_remove; rm -rf "$tmp"' EXIT
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" "$repo")"
sentinel=$tmp/sentinel
git -C "$repo" config remote.origin.url https://example.invalid/r.git
git -C "$repo" config http.https://example.invalid/.extraheader \
	"AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
commit_hostile_state "$repo" "$base" "$head" "$sentinel" "$tmp/povs-elsewhere"
head=$(git -C "$repo" rev-parse HEAD)
sentinel_state() { find "$sentinel" -printf '%p %y %s %T@\n' | sort; }
before=$(sentinel_state)

action_step refs > "$tmp/refs.sh"
action_step scan > "$tmp/scan.sh"
runner=$tmp/runner
mkdir -p "$runner"
# step STEP OUTPUT [VAR=VALUE...]: an action step's script in the
# workspace, its outputs in OUTPUT
step() {
	local script=$1 output=$2
	shift 2
	: > "$output"
	(cd "$repo" && env RUNNER_TEMP="$runner" GITHUB_OUTPUT="$output" \
		GITHUB_SHA="$head" "$@" bash "$script")
}
echo '{"pull_request":{"author_association":"OWNER","head":{"repo":{"full_name":"o/r"}}}}' \
	>"$tmp/event.json"
step "$tmp/refs.sh" "$tmp/refs.out" EVENT_NAME=pull_request PR_BASE="$base" \
	PR_HEAD="$head" PR_HEAD_REPO=o/r REPOSITORY=o/r PUSH_BEFORE="" \
	GITHUB_ACTION_PATH="$ROOT/actions" GITHUB_EVENT_PATH="$tmp/event.json" \
	SOURCE=. CACHE_DIR="" LLM_BUDGET="" >"$tmp/refs.log" 2>&1 ||
	{ cat "$tmp/refs.log" >&2; fail "refs step"; }
get() { sed -n "s/^$1=//p" "$tmp/refs.out"; }
out=$(get out)
case "$out" in "$runner"/*) ;; *) fail "the output folder is not in RUNNER_TEMP: $out" ;; esac
scan_env=(COMPOSE="$ROOT/container/crs/libfuzzer/compose.yaml"
	PROJECT="$ROOT/examples/projects/recparse" SOURCE=. TIMEOUT=10m
	ALLOW_ENV="" FAIL_ON=new HARNESSES=fuzz_records BASE="$base"
	HEAD="$head" WORK_DIR="$(get work-dir)" OUT_DIR="$out" FORK=false
	SANITIZER="" CATEGORY="" FUZZ_SECONDS="" REPORT_TIMEOUTS=true
	REPORT_OOMS=true PATH="$ROOT/build:$PATH")

# a cache-dir input inside the workspace: refused before anything runs
step "$tmp/scan.sh" "$tmp/scan-in.out" "${scan_env[@]}" \
	CACHE_DIR=.crs-ci-cache >"$tmp/scan-in.log" 2>&1 || true
grep -qx "exit-code=2" "$tmp/scan-in.out" ||
	{ cat "$tmp/scan-in.log" >&2; fail "cache-dir in the workspace: not exit 2"; }
grep -q -- "--cache-dir .crs-ci-cache lies inside the git work tree" "$tmp/scan-in.log" ||
	{ cat "$tmp/scan-in.log" >&2; fail "cache-dir in the workspace: no reason"; }
note "cache-dir inside the workspace: $(grep -o 'error: .*' "$tmp/scan-in.log" | cut -c1-90)..."

# the default cache-dir (RUNNER_TEMP), as actions/cache restores it with
# an archive tagging a sentinel image: the whole scan
sentinel_tag_make
cache_forge_tagging "$(get cache-dir)" "$SENTINEL_TAG"
start=$(date +%s)
step "$tmp/scan.sh" "$tmp/scan.out" "${scan_env[@]}" \
	CACHE_DIR="$(get cache-dir)" >"$tmp/scan.log" 2>&1 || true
scan_fail() { tail -n 60 "$tmp/scan.log" >&2; fail "action scan: $*"; }
grep -qx "exit-code=1" "$tmp/scan.out" || scan_fail "exit-code $(cat "$tmp/scan.out")"
note "the scan step took $(( $(date +%s) - start )) s"
# what upload-artifact would upload: the step's paths, expressions resolved
paths=$(python3 - "$ROOT/actions/action.yml" "$out" <<'PY'
import sys, yaml
for st in yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]:
    if st.get("name") == "Upload PoVs and reports":
        for p in st["with"]["path"].splitlines():
            print(p.replace("${{ steps.refs.outputs.out }}", sys.argv[2]))
PY
)
[ -n "$paths" ] || fail "no upload paths"
n=0
while IFS= read -r p; do
	case "$p" in "$runner"/*) ;; *) fail "upload path outside RUNNER_TEMP: $p" ;; esac
	[ -e "$p" ] || continue
	n=$((n + 1))
	[ -z "$(find "$p" -type l)" ] || fail "a link in the upload: $(find "$p" -type l)"
	! grep -rqs -e "repositoryformatversion" -e "extraheader" -e "host secret" "$p" ||
		fail "the upload holds .git or the host folder's content: $p"
done <<<"$paths"
[ "$n" -ge 4 ] || fail "only $n upload paths exist"
[ -n "$(ls "$out/povs")" ] || scan_fail "no PoV"
python3 - "$out/results.json" <<'PY' || scan_fail "the finding is not new"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
PY
[ "$(sentinel_state)" = "$before" ] || fail "the host folder changed"
[ ! -e "$tmp/povs-elsewhere" ] || fail "PoVs went through the committed link"
! grep -q "$repo/crs-ci-work" "$tmp/scan.log" || scan_fail "the committed work folder was used"
sentinel_tag_check
grep -qF "cache: cannot load $FORGED_TAG" "$tmp/scan.log" ||
	scan_fail "no warning for the archive tagging $SENTINEL_TAG"
note "the upload holds $n paths from RUNNER_TEMP, no link, no .git; the bug is new; $SENTINEL_TAG not moved"
