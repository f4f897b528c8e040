#!/usr/bin/env bash
# test_no_code_change.sh - a change no harness runs passes in seconds
# (issue 43, parts 8 and 9): on a project with one harness (the select
# phase once kept a lone harness unmeasured, so a comment-only push was
# fuzzed for its whole share), a change of comments only is measured,
# nothing is fuzzed, and the verdict says why; an empty change (base and
# head hold the same files) is named as such and fuzzes nothing either,
# also when crs-ci runs from a subfolder of the checkout without --source
# (the repository's root is the source, its .clusterfuzzlite/ the project).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/repo")"
git -C "$tmp/repo" checkout -q -b comments "$base"
# one harness: every fuzz/fuzz_*.c is one (the project's build.sh)
git -C "$tmp/repo" rm -q fuzz/fuzz_text.c
one=$(commit_all "$tmp/repo" "one harness")
python3 - "$tmp/repo/src/recparse.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("int rp_parse(", "/*\n * rp_parse: the whole document, record by record.\n */\nint rp_parse(", 1)
s = s.replace("\n{\n", "\n{\n\t/* a comment inside the function */\n", 1)
open(p, "w").write(s)
PY
comments=$(commit_all "$tmp/repo" "comments only")
args=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	--source "$tmp/repo" --timeout 5m)

# select_none MODE: select.json has MODE, fuzz_records alone, unselected
select_none() {
	python3 - "$tmp/work/select.json" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["mode"] == sys.argv[2], j["mode"]
assert [h["name"] for h in j["harnesses"]] == ["fuzz_records"], j["harnesses"]
assert not j["harnesses"][0]["selected"], j["harnesses"]
PY
}

start=$(date +%s)
scan_expect 0 "${args[@]}" --base "$one" --head "$comments"
took=$(( $(date +%s) - start ))
select_none no-code
grep -q "run: no harness selected; nothing to fuzz" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "a harness was fuzzed for a comment"; }
grep -q "^  no changed line is code a harness runs" "$tmp/verdict.txt" ||
	fail "the verdict does not say why nothing was fuzzed"
grep -q "^verdict: PASS" "$tmp/verdict.txt" || fail "no PASS"
note "comments only, one harness: PASS in ${took}s, nothing fuzzed"

start=$(date +%s)
scan_expect 0 "${args[@]}" --base "$comments" --head "$comments"
took=$(( $(date +%s) - start ))
select_none empty
grep -q "select: the change is empty (the base and the head hold the same files); nothing to fuzz" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the empty change is not named"; }
note "empty change: PASS in ${took}s, nothing fuzzed"

# from a subfolder, no --source: the repository's root is scanned
set +e
(cd "$tmp/repo/src" && "$CRS_CI" scan \
	--compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--base "$comments" --head "$comments" --timeout 5m \
	--work-dir "$tmp/work" --out "$tmp/out") >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "from a subfolder: exit $code, want 0"; }
grep -q "source: $tmp/repo, the root of the repository this folder is in" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "from a subfolder: the root is not the source"; }
grep -q "project: ClusterFuzzLite folder" "$tmp/log.txt" ||
	fail "from a subfolder: the root's .clusterfuzzlite/ was not found"
note "from src/ without --source: the repository's root is scanned"
