#!/usr/bin/env bash
# test_crs_tool.sh - crs-ci crs check|test, the CRS authors' tooling:
#   (a) `crs check` passes every bundled CRS (container/crs/*);
#   (b) `crs check` on each broken package of tests/fixtures/crs-broken
#       exits 2 and names the exact file:line:col of each problem;
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
