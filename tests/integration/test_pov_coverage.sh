#!/usr/bin/env bash
# test_pov_coverage.sh - a PoV that kills the coverage build, or hangs it,
# still leaves the lines it executed (issue 22, item 1; docs/results.md,
# "The change anchor"). A toy harness is built by the stand-in
# base-builder's own `compile` with SANITIZER=coverage and the clang
# driver override crs-ci passes to every coverage build (read out of the
# crs-ci binary, so the test follows target_build_env), then each input
# runs in the base runner as runner/exec/pov_coverage.c runs a PoV: in
# clang's continuous profile mode (%c), under libFuzzer's -timeout and an
# outer SIGKILL. A SEGV, an abort() and an endless loop each leave a
# profile whose only executed marker line is their own. The same build
# run without %c loses each marker (libFuzzer's handlers call _Exit):
# the reason for the mechanism. The cJSON scans of
# test_change_anchor.sh run the real replay code end to end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
override=$(strings "$CRS_CI" | sed -n 's/^CCC_OVERRIDE_OPTIONS=//p' | head -n 1)
[ -n "$override" ] || fail "no CCC_OVERRIDE_OPTIONS in $CRS_CI"
mkdir -p "$tmp/src" "$tmp/out" "$tmp/in" "$tmp/res"
cat >"$tmp/src/toy.c" <<'C'
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static int mode(const uint8_t *d, size_t n)
{
	int m = 0;

	if (n > 0 && d[0] == 'S')
		m = 1;	/* MARK-S */
	if (n > 0 && d[0] == 'A')
		m = 2;	/* MARK-A */
	if (n > 0 && d[0] == 'H')
		m = 3;	/* MARK-H */
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	int m = mode(d, n);

	if (m == 1)
		*(volatile int *)NULL = 1;
	if (m == 2)
		abort();
	while (m == 3)
		;
	return 0;
}
C
cat >"$tmp/src/build.sh" <<'SH'
$CC $CFLAGS -c "$SRC/toy.c" -o "$WORK/toy.o"
$CC $CFLAGS "$WORK/toy.o" $LIB_FUZZING_ENGINE -o "$OUT/toy"
SH
printf S >"$tmp/in/S"; printf A >"$tmp/in/A"; printf H >"$tmp/in/H"
docker run --rm --network none -e SANITIZER=coverage \
	-e FUZZING_ENGINE=libfuzzer -e ARCHITECTURE=x86_64 \
	-e FUZZING_LANGUAGE=c -e "CCC_OVERRIDE_OPTIONS=$override" \
	-v "$tmp/src:/src:ro" -v "$tmp/out:/out" "$BASE_BUILDER_STAND_IN" \
	compile >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; fail "toy coverage build"; }
# each input as pov_coverage.c runs a PoV; and once more without %c
docker run --rm --network none -v "$tmp/out:/out:ro" -v "$tmp/in:/in:ro" \
	-v "$tmp/res:/res" "$BASE_RUNNER_STAND_IN" bash -c '
	for i in S A H; do
		mkdir -p /tmp/p/$i /tmp/q/$i
		LLVM_PROFILE_FILE="/tmp/p/$i/%p%c.profraw" timeout -s KILL 10 \
			/out/toy -timeout=5 /in/$i >/res/$i.log 2>&1
		echo $? >/res/$i.rc
		llvm-profdata merge -sparse /tmp/p/$i/*.profraw -o /tmp/$i.pd &&
		llvm-cov export -format=lcov -instr-profile=/tmp/$i.pd /out/toy \
			>/res/$i.lcov
		LLVM_PROFILE_FILE="/tmp/q/$i/%p.profraw" timeout -s KILL 10 \
			/out/toy -timeout=5 /in/$i >/dev/null 2>&1
		{ llvm-profdata merge -sparse /tmp/q/$i/*.profraw -o /tmp/q/$i.pd &&
		  llvm-cov export -format=lcov -instr-profile=/tmp/q/$i.pd \
			/out/toy; } >/res/$i.plain 2>/dev/null || :
	done' >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; fail "replaying the inputs"; }
python3 - "$tmp" <<'PY'
import re, sys
d = sys.argv[1]
src = open(d + "/src/toy.c").read().splitlines()
mark = {m: src.index(l) + 1 for l in src for m in "SAH" if "MARK-" + m in l}
for i in "SAH":
    rc = int(open("%s/res/%s.rc" % (d, i)).read())
    assert rc != 0, (i, "the input did not fail the coverage build")
    da = dict(tuple(map(int, l[3:].split(",")[:2]))
              for l in open("%s/res/%s.lcov" % (d, i)) if l.startswith("DA:"))
    for m, line in mark.items():
        assert (da.get(line, 0) > 0) == (m == i), (i, m, line, da.get(line))
    print("%s: exit %d, only its marker line %d ran" % (i, rc, mark[i]))
    # without continuous mode: no profile, or one without the marker
    da = dict(tuple(map(int, l[3:].split(",")[:2]))
              for l in open("%s/res/%s.plain" % (d, i)) if l.startswith("DA:"))
    assert not da.get(mark[i], 0), (i, "kept its marker line without %c")
print("without %c, each of them lost its marker line")
PY
note "a SEGV, an abort and a hang keep their coverage in continuous mode"
