#!/usr/bin/env bash
# test_bad_diff.sh - `crs-ci scan --diff` with a malformed diff exits 2
# and names the file and the line that is wrong.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
cat >"$tmp/change.diff" <<'DIFF'
diff --git a/src/a.c b/src/a.c
--- a/src/a.c
+++ b/src/a.c
@@ -1,3 +1,4 @@
 int a;
+int b;
 int c;
DIFF
set +e
msg=$("$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$ROOT" \
	--diff "$tmp/change.diff" --work-dir "$tmp/work" --out "$tmp/out" 2>&1)
code=$?
set -e
[ "$code" -eq 2 ] || fail "exit $code, want 2: $msg"
grep -q "change.diff:4: hunk header '@@ -1,3 +1,4 @@'" <<<"$msg" || fail "message does not name the line: $msg"
note "$msg"
