#!/usr/bin/env bash
# test_crs_tool.sh - crs-ci crs check|test, the CRS authors' tooling:
#   (a) `crs check` passes every bundled CRS (container/crs/*);
#   (b) `crs check` on each broken package of tests/fixtures/crs-broken
#       exits 2 and names the exact file:line:col of each problem;
#   (c) `crs test container/crs/aflpp` builds it, runs it for 2 minutes at most
#       on the bundled example and reports its PoV, reproduced as the
#       example's bug, and the contract met (exit 0), leaving nothing of
#       its scan on the engine (checked by the scan's owner label);
#   (d) `crs test` of a CRS that plants links in its SUBMIT_DIR
#       (tests/fixtures/crs-hostile) reports them refused: exit 1;
#   (e) a CRS with required_llms is not tested without a compose, nor a
#       package with a compose that does not hold it: exit 2;
#   (f) a package that fails `crs check` is not built: exit 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir
cd "$ROOT"

# (a) the bundled CRSs are clean
for d in container/crs/*/; do
	d=${d%/}
	out=$("$CRS_CI" crs check "$d") || fail "crs check $d: exit $?: $out"
	[ "$out" = "$d: 0 error(s), 0 warning(s)" ] || fail "crs check $d: $out"
done
note "crs check: every bundled CRS is clean"

# (b) each broken package: exit 2, and exactly these problems
expect() {	# case, then the lines crs check must print (without the count)
	local c=$1 want got code=0
	shift
	want=$(printf '%s\n' "$@")
	got=$("$CRS_CI" crs check "tests/fixtures/crs-broken/$c" 2>"$TMP/err") || code=$?
	[ "$code" -eq 2 ] || fail "crs check $c: exit $code, want 2: $got"
	# every problem, exactly (the count line aside)
	diff <(printf "%s\n" "$got" | sed "\$d") <(printf "%s\n" "$want") >&2 ||
		fail "crs check $c: the problems differ (< got, > want)"
}
b=tests/fixtures/crs-broken
expect missing-dockerfile \
	"$b/missing-dockerfile/oss-crs/crs.yaml:14:5: crs_run_phase.fuzzer.dockerfile: \"oss-crs/runner.Dockerfile\" does not exist in the crs root \"$b/missing-dockerfile\""
expect no-libcrs \
	"$b/no-libcrs/oss-crs/runner.Dockerfile:3:1: the final stage (this FROM) does not install libCRS: add \`COPY --from=libcrs . /opt/libCRS\` and \`RUN /opt/libCRS/install.sh\` (contract §4)"
expect libcrs-not-run \
	"$b/libcrs-not-run/oss-crs/builder.Dockerfile:6:1: copies libCRS to /opt/libCRS but no later RUN runs /opt/libCRS/install.sh, so the libCRS command is not installed"
expect no-outputs \
	"$b/no-outputs/oss-crs/crs.yaml:8:5: target_build_phase[0]: build step \"build\" declares no outputs: list what its CMD submits with \`libCRS submit-build-output\` (e.g. \`outputs: [build]\`)"
expect bad-field-type \
	"$b/bad-field-type/oss-crs/crs.yaml:6:1: version: must be a string, not a list"
expect unknown-type \
	"$b/unknown-type/oss-crs/crs.yaml:5:5: type[0]: \"bug-hunting\" is not a crs type (bug-finding, bug-fixing, bug-fixing-ensemble, bug-finding-triage, seed-filter or harness-gen)"
expect symlink-out \
	"$b/symlink-out/oss-crs/crs.yaml:14:5: crs_run_phase.fuzzer.dockerfile: \"oss-crs/runner.Dockerfile\" is outside the crs root \"$b/symlink-out\""
expect symlink-in \
	"$b/symlink-in/oss-crs/crs.yaml:14:5: crs_run_phase.fuzzer.dockerfile: \"oss-crs/runner.Dockerfile\" is reached through the symbolic link oss-crs/runner.Dockerfile; the package must hold the file itself"
expect several \
	"warning: $b/several/oss-crs/crs.yaml:7:1: unknown key \"maintainer\" ignored" \
	"$b/several/oss-crs/crs.yaml:9:5: target_build_phase[0]: build step \"build\" declares no outputs: list what its CMD submits with \`libCRS submit-build-output\` (e.g. \`outputs: [build]\`)" \
	"$b/several/oss-crs/builder.Dockerfile:3:1: the final stage (this FROM) does not install libCRS: add \`COPY --from=libcrs . /opt/libCRS\` and \`RUN /opt/libCRS/install.sh\` (contract §4)" \
	"$b/several/oss-crs/crs.yaml:13:5: crs_run_phase.fuzzer.dockerfile: \"oss-crs/fuzzer.Dockerfile\" does not exist in the crs root \"$b/several\""
[ "$("$CRS_CI" crs check $b/several | tail -n 1)" = "$b/several: 3 error(s), 1 warning(s)" ] ||
	fail "crs check several: wrong count line"
note "crs check: every broken package exits 2 with its file:line:col"

# The owner label of the scan `crs test` ran in WORK: none of its
# containers or networks may be left.
no_leftovers() {
	local run owner left
	run=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['run_id'])" \
		"$1/scan/scan.json")
	owner=crs-ci-${run#*-}
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"
		docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
}

# (c) crs test container/crs/aflpp: built, run on the example, its PoV
#     reproduced as the example's bug, the contract met. The run ends soon
#     after the PoV; 2 minutes leave aflpp room to find it while
#     run-all.sh -j's other script takes half the machine.
start=$(date +%s)
code=0
"$CRS_CI" crs test container/crs/aflpp --timeout 2m --work-dir "$TMP/aflpp" \
	--out "$TMP/aflpp-out" >"$TMP/aflpp.txt" 2>"$TMP/aflpp.log" || code=$?
note "crs test container/crs/aflpp: exit $code after $(( $(date +%s) - start )) s"
[ "$code" -eq 0 ] || { cat "$TMP/aflpp.log" "$TMP/aflpp.txt" >&2; fail "crs test aflpp: exit $code, want 0"; }
out=$(cat "$TMP/aflpp.txt")
grep -q '^  build/build: present$' <<<"$out" || fail "no build output line: $out"
grep -Eq '^  PoVs +[1-9][0-9]* accepted$' <<<"$out" || fail "no PoV accepted: $out"
grep -Eq "^reproduced on crs-ci's build: [1-9][0-9]* of [1-9][0-9]* PoV\(s\), 1 distinct finding\(s\)$" <<<"$out" ||
	fail "no reproduced PoV: $out"
grep -Eq '^  Heap-buffer-overflow WRITE [0-9{}*]+ in parse_extended at src/recparse.c:39, reproduced [1-9]/5, new$' <<<"$out" ||
	fail "not the example's bug: $out"
grep -q '^contract: met ' <<<"$out" || fail "contract not met: $out"
no_leftovers "$TMP/aflpp"
# the example's repository is the one examples/make-repo.sh makes
[ "$(git -C "$TMP/aflpp/example-repo" rev-parse main pr | tr '\n' ' ')" = \
	"357dad842abbb4843f466528c8432d89d9e2d5ec 2157163225596539fdcd6338926f714022b9d549 " ] ||
	fail "the example repository differs from examples/make-repo.sh's"
note "crs test aflpp: $(grep -E '^  PoVs ' <<<"$out" | tr -s ' ')"

# (d) a CRS that plants links in its SUBMIT_DIR breaks the contract: exit 1
code=0
"$CRS_CI" crs test tests/fixtures/crs-hostile --timeout 20s --work-dir "$TMP/hostile" \
	--out "$TMP/hostile-out" >"$TMP/hostile.txt" 2>"$TMP/hostile.log" || code=$?
[ "$code" -eq 1 ] || { cat "$TMP/hostile.log" "$TMP/hostile.txt" >&2; fail "crs test crs-hostile: exit $code, want 1"; }
grep -Eq '^  PoVs +1 accepted, 1 refused ' "$TMP/hostile.txt" || fail "refused PoV not counted: $(cat "$TMP/hostile.txt")"
grep -Eq '^contract: broken: [0-9]+ submission\(s\) refused$' "$TMP/hostile.txt" ||
	fail "contract not broken: $(cat "$TMP/hostile.txt")"
no_leftovers "$TMP/hostile"
note "crs test crs-hostile: exit 1, $(tail -n 1 "$TMP/hostile.txt")"

# (e) a CRS that needs an LLM cannot be tested without one: exit 2, said so
code=0
"$CRS_CI" crs test container/crs/llm-patcher --work-dir "$TMP/llm" \
	>"$TMP/llm.txt" 2>"$TMP/llm.log" || code=$?
[ "$code" -eq 2 ] || fail "crs test llm-patcher: exit $code, want 2"
grep -q "crs-llm-patcher requires LLMs (gpt-4o, ...): crs-ci cannot test its LLM part without one; give --compose with an llm_config" \
	"$TMP/llm.log" || fail "no LLM message: $(cat "$TMP/llm.log")"

# ... and an author's compose must hold the package
code=0
"$CRS_CI" crs test container/crs/aflpp --compose container/crs/libfuzzer/compose.yaml \
	--work-dir "$TMP/other" >"$TMP/other.txt" 2>"$TMP/other.log" || code=$?
[ "$code" -eq 2 ] || fail "crs test with another CRS's compose: exit $code, want 2"
grep -q "container/crs/libfuzzer/compose.yaml: no CRS entry whose source.local_path is container/crs/aflpp" \
	"$TMP/other.log" || fail "no compose message: $(cat "$TMP/other.log")"

# (f) a bad package is refused before anything is built: exit 2
code=0
"$CRS_CI" crs test tests/fixtures/crs-broken/no-libcrs --work-dir "$TMP/bad" \
	>"$TMP/bad.txt" 2>&1 || code=$?
[ "$code" -eq 2 ] || fail "crs test no-libcrs: exit $code, want 2"
[ ! -e "$TMP/bad" ] || fail "crs test no-libcrs made its work folder"
note "crs test: an LLM CRS and a bad package exit 2 before building"
