#!/usr/bin/env bash
# test_uncommitted.sh - a scan of base..HEAD says, loudly, which edits of
# the checkout it did not read (issue 43, part 2): the recparse example's
# pull request checked out, one file modified and one new C file left
# uncommitted (a new text file is not listed). The log says NOT SCANNED
# at the start, the verdict says it again, and results.json's summary
# lists them; the PR's own bug is still proved.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git -C "$tmp/repo" checkout -q "$head"
printf '/* an edit left in the work tree */\n' >>"$tmp/repo/src/recparse.c"
printf 'int extra;\n' >"$tmp/repo/src/extra.c"
printf 'notes\n' >"$tmp/repo/notes.txt"
scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head HEAD --harness fuzz_records --timeout 3m
want='NOT SCANNED: 2 uncommitted file(s) in the checkout (src/extra.c, src/recparse.c)'
grep -q "change: $want" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the log does not say what was not scanned"; }
# said before any build starts
[ "$(grep -n "NOT SCANNED" "$tmp/log.txt" | head -n 1 | cut -d: -f1)" -lt \
  "$(grep -n "build" "$tmp/log.txt" | head -n 1 | cut -d: -f1)" ] ||
	fail "the warning comes after the builds"
grep -q "^  $want: the scan read the commits up to HEAD; commit them and scan again" \
	"$tmp/verdict.txt" || fail "the verdict does not say what was not scanned"
grep -q "Heap-buffer-overflow WRITE .* in parse_extended" "$tmp/verdict.txt" ||
	fail "the PR's committed bug was not proved"
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["uncommitted"] == ["src/extra.c", "src/recparse.c"], s.get("uncommitted")
assert s["uncommitted_total"] == 2, s.get("uncommitted_total")
PY
assert_no_leftovers "$tmp/work"
note "uncommitted edits: $want"
