#!/usr/bin/env bash
# test_removal_anchor.sh - a regression that only removes lines (issue 42,
# item 7): recparse's second length check in parse_record is deleted, so
# a record longer than the input is read past its end. The scan proves
# the over-read as new, counts the head lines around the removal in
# change coverage, and anchors the finding on the line after the removal
# (how crash-function: the PoV ran it, in the crashing function), not
# "not-executed"; results.json and the SARIF place it there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git -C "$tmp/repo" checkout -q -b removal "$base"
python3 - "$tmp/repo/src/recparse.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tif (len - p < vlen)\n\t\treturn RP_ERR_TRUNCATED;\n\trec->value"
assert old in s
open(p, "w").write(s.replace(old, "\trec->value", 1))
PY
removal=$(commit_all "$tmp/repo" "records: one length check is enough")
scan_expect 1 --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$removal" --harness fuzz_records --timeout 4m
grep -q "^  \[new\] Heap-buffer-overflow READ [^ ]* in parse_record" "$tmp/verdict.txt" ||
	fail "the over-read was not proved as new"
grep -q "^  fuzzing executed 2 of 2 lines around the removals" "$tmp/verdict.txt" ||
	fail "change coverage does not count the lines around the removal"
python3 - "$tmp/out" "$tmp/repo/src/recparse.c" <<'PY'
import json, sys
out, src = sys.argv[1:]
lines = open(src).read().split("\n")
f = json.load(open(out + "/results.json"))["findings"][0]
a = f["change_anchor"]
assert a["how"] == "crash-function", a
assert a["file"] == "src/recparse.c", a
# the line right after the removal: the malloc the check guarded
assert lines[a["line"] - 1].strip() == "rec->value = malloc(vlen + 1);", (a, lines[a["line"] - 1])
r = json.load(open(out + "/results.sarif"))["runs"][0]["results"][0]
loc = r["locations"][0]["physicalLocation"]
assert loc["region"]["startLine"] == a["line"], loc
PY
note "$(grep -o 'change anchor src/recparse.c:[0-9]*: .*' "$tmp/verdict.txt")"
