#!/usr/bin/env bash
# test_one_bug.sh - one bug, one finding (issue 14, item 4): two harnesses
# that reach the same bug give one finding that lists both.
# The recparse example's pull request plus a commit that adds a second
# harness, fuzz_records2 (a copy of fuzz_records), so both reach the
# heap-buffer-overflow in parse_extended(). The crashing input is given
# with --pov (tried on every harness); the only CRS is a copy of
# tests/fixtures/crs-sleeper that exits 0 at once, so no fuzzing time is
# spent. Asserts: exit 1; results.json holds one finding whose
# "harnesses" are both harnesses and whose "povs" name both, novelty
# "new"; the SARIF log holds one result whose properties list both
# harnesses and both PoVs; the terminal says one bug reached by two
# harnesses; the SARIF log validates; no container or network of the
# scan is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
g() { git -C "$tmp/repo" -c user.name=t -c user.email=t@example.invalid \
	-c commit.gpgsign=false "$@"; }
cp "$tmp/repo/fuzz/fuzz_records.c" "$tmp/repo/fuzz/fuzz_records2.c"
g add fuzz/fuzz_records2.c
g commit -q -m "a second harness for the records parser"
head=$(g rev-parse HEAD)
# a CRS that submits nothing and exits 0 at once
cp -r "$ROOT/tests/fixtures/crs-sleeper" "$tmp/crs-quick"
printf '#!/bin/bash\nexit 0\n' >"$tmp/crs-quick/bin/sleeper.sh"
compose_without_llm "$tmp/compose.yaml" "$tmp/crs-quick"
# RP version 2, one extended record of 1 byte whose first segment has 8:
# parse_extended() writes 8 bytes into a 2-byte buffer
pov=$tmp/overflow.rp
printf 'RP\002\201\000\001\010AAAAAAAA\000' >"$pov"
t0=$SECONDS
scan_expect 1 --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records \
	--harness fuzz_records2 --pov "$pov" --timeout 5m --reproduce 2
note "scan took $((SECONDS - t0))s"
grep -q 'one bug reached by 2 harnesses: fuzz_records, fuzz_records2' \
	"$tmp/verdict.txt" || fail "terminal output does not list both harnesses"
python3 - "$tmp/out" <<'PY'
import json, sys
out = sys.argv[1]
res = json.load(open(out + "/results.json"))
f = res["findings"]
assert len(f) == 1, [(x["id"], x["harness"], x["signature"]) for x in f]
f = f[0]
assert "parse_extended" == f["function"], f["function"]
assert sorted(f["harnesses"]) == ["fuzz_records", "fuzz_records2"], f["harnesses"]
assert sorted(p["harness"] for p in f["povs"]) == ["fuzz_records", "fuzz_records2"], f["povs"]
assert all(p["path"].startswith("povs/") for p in f["povs"]), f["povs"]
assert f["novelty"] == "new", f["novelty"]
assert res["verdict"] == "FAIL", res["verdict"]
sarif = json.load(open(out + "/results.sarif"))
results = sarif["runs"][0]["results"]
assert len(results) == 1, len(results)
p = results[0]["properties"]
assert sorted(p["harnesses"]) == ["fuzz_records", "fuzz_records2"], p
assert sorted(x["harness"] for x in p["povs"]) == ["fuzz_records", "fuzz_records2"], p
PY
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 ||
	{ cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
assert_no_leftovers "$tmp/work"
echo "ok: test_one_bug"
