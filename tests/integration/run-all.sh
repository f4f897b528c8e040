#!/usr/bin/env bash
# run-all.sh - run every integration test (test_*.sh, and the engine test
# program) and print one closing line: "N passed, N failed".
set -u
cd "$(dirname "$0")"
passed=0; failed=0; failures=()
for t in ./test_*.sh; do
	echo "== integration: $t"
	start=$(date +%s)
	if bash "$t"; then
		passed=$((passed + 1)); echo "ok: $t ($(( $(date +%s) - start ))s)"
	else
		failed=$((failed + 1)); failures+=("$t"); echo "not ok: $t"
	fi
done
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
