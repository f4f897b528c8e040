#!/usr/bin/env bash
# test_oom_goes_on.sh - the libFuzzer CRS fuzzes on past a timeout or an
# out-of-memory and stops at the first crash (STOP_ON_FIRST_POV, which
# crs-ci sets); a single allocation past its memory limit is reported
#
# Found on real code (make bench-regressions): libwebp 1.2.4's own
# harness allocates past libFuzzer's malloc limit within 30 s of fuzzing
# its release tree, and the CRS, stopping at that first PoV, left the
# change with 30 s of its 10 minutes. The CRS treats a timeout and an
# out-of-memory alike; a timeout is the one a test can make without
# filling the machine's memory. Here the recparse example gains a harness,
# fuzz_oom, whose seed corpus holds an input that runs 10 s (the CRS's
# libFuzzer is given -timeout=4 through FUZZER_EXTRA_ARGS; it checks
# every 3 s), an input that allocates 3 GiB and frees it untouched (past
# the CRS's limit; libFuzzer sees it only with its malloc hooks, which
# its -detect_leaks=0 would turn off) and whose code
# crashes (a null write) on inputs starting "C!":
#  - the first libFuzzer runs end on the seeds' timeout and out-of-memory:
#    each submitted, its seed taken out of the corpus (or every run would
#    end so), and fuzzing goes on;
#  - a later run finds the crash; the CRS stops there;
#  - the scan (--after-finding continue, so only the CRS ends the run)
#    reports the crash as a new finding: exit 1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git -C "$tmp/repo" checkout -q -b oom "$base"
mkdir -p "$tmp/repo/fuzz/corpus/fuzz_oom"
cat > "$tmp/repo/fuzz/fuzz_oom.c" <<'EOF'
/* fuzz_oom.c - 10 s on "M...", 3 GiB on "A...", a crash on "C!..." */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* busy, not sleep(): libFuzzer's timer signal would end a sleep
	 * early, before the timeout is seen */
	if (size >= 1 && data[0] == 'M')
		for (time_t t0 = time(NULL); time(NULL) - t0 < 10;)
			;
	if (size >= 1 && data[0] == 'A') {
		/* never written: no page of it is used */
		char *volatile p = malloc((size_t)3 << 30);
		free(p);
	}
	if (size >= 2 && data[0] == 'C' && data[1] == '!')
		*(volatile int *)0 = 1;
	return 0;
}
EOF
printf 'M' > "$tmp/repo/fuzz/corpus/fuzz_oom/big"
printf 'A' > "$tmp/repo/fuzz/corpus/fuzz_oom/alloc"
oom=$(commit_all "$tmp/repo" "a harness that hangs, then crashes")
# the reference compose, with libFuzzer's -timeout at 4 s: not less, for
# libFuzzer symbolizes the out-of-memory's stack inside the unit's time,
# and on a busy machine that took over 2 s (the 3 GiB input then ended as
# a timeout; CI of stop 48)
python3 - "$ROOT/container/crs/libfuzzer/compose.yaml" "$tmp/compose.yaml" <<'PY'
import os, sys, yaml
src, dst = sys.argv[1:]
c = yaml.safe_load(open(src))
e = c["crs-libfuzzer"]
e["source"]["local_path"] = os.path.dirname(os.path.abspath(src))
e["additional_env"] = {"FUZZER_EXTRA_ARGS": "-timeout=4"}
yaml.safe_dump(c, open(dst, "w"))
PY

scan_expect 1 --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$oom" --harness fuzz_oom --timeout 4m \
	--after-finding continue
crs_log=$(ls "$tmp"/work/runs/*/logs/crs-libfuzzer-fuzzer-fuzz_oom.log)
grep -q 'submitted PoV timeout-' "$crs_log" || { cat "$crs_log" >&2; fail "no timeout PoV submitted"; }
grep -q 'took big out of the corpus: it is the input of timeout-' "$crs_log" ||
	{ cat "$crs_log" >&2; fail "the timeout's seed was not taken out of the corpus"; }
grep -q 'submitted PoV oom-' "$crs_log" ||
	{ cat "$crs_log" >&2; fail "the 3 GiB allocation was not reported (libFuzzer's malloc limit off?)"; }
grep -q 'took alloc out of the corpus: it is the input of oom-' "$crs_log" ||
	{ cat "$crs_log" >&2; fail "the out-of-memory's seed was not taken out of the corpus"; }
grep -q 'a timeout or out-of-memory is not a crash: fuzzing on' "$crs_log" ||
	{ cat "$crs_log" >&2; fail "the CRS did not fuzz on past the out-of-memory"; }
grep -q 'submitted PoV crash-' "$crs_log" || { cat "$crs_log" >&2; fail "no crash found after the out-of-memory"; }
grep -q 'STOP_ON_FIRST_POV=1: stopping after the first crash' "$crs_log" ||
	{ cat "$crs_log" >&2; fail "the CRS did not stop at the crash"; }
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
kinds = sorted(x["crash_type"] for x in f)
assert any(k.startswith(("Null-dereference", "SEGV")) for k in kinds), kinds
PY
note "$(grep -o 'submitted PoV timeout-[0-9a-f]\{8\}.* at [0-9]* s' "$crs_log" | head -n 1)"
note "$(grep -o 'submitted PoV oom-[0-9a-f]\{8\}.* at [0-9]* s' "$crs_log" | head -n 1)"
note "$(grep -o 'submitted PoV crash-[0-9a-f]\{8\}.* at [0-9]* s' "$crs_log" | head -n 1)"
