#!/usr/bin/env bash
# run-all.sh - run every integration test (test_*.sh, and the engine test
# program) and print one closing line: "N passed, N failed". Before it, a
# table of each script's seconds, slowest first, also kept in
# build/integration-times.txt (CRS_CI_TIMES overrides the path).
set -u
cd "$(dirname "$0")"
times=${CRS_CI_TIMES:-../../build/integration-times.txt}
passed=0; failed=0; failures=(); rows=()
suite_start=$(date +%s)
for t in ./test_*.sh; do
	echo "== integration: $t"
	start=$(date +%s)
	if bash "$t"; then
		passed=$((passed + 1)); result=ok
	else
		failed=$((failed + 1)); failures+=("$t"); result="not ok"
	fi
	secs=$(( $(date +%s) - start ))
	echo "$result: $t (${secs}s)"
	rows+=("$secs ${t#./} $result")
done
mkdir -p "$(dirname "$times")"
{
	echo "integration seconds per script (total $(( $(date +%s) - suite_start ))s):"
	printf '%s\n' "${rows[@]}" | sort -rn | awk '{ printf "%6d s  %s%s\n", $1, $2, ($3 == "ok" ? "" : "  (failed)") }'
} | tee "$times"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
