#!/usr/bin/env bash
# test_gitlab_component.sh - templates/crs-ci.yml, the GitLab CI/CD
# component, with non-default inputs on the recparse example, run by
# gitlab-ci-local 4.70.1 (shell executor, the runner's engine) as a
# merge-request pipeline. gitlab-ci-local does not resolve `component:`
# includes, so the component is included as a local file with the same
# inputs. Also: the component is gitlab/crs-ci.gitlab-ci.yml as
# gitlab/make-component.sh makes it, and --report-ooms no / --report-
# timeouts no, through `crs-ci report`, keep such findings in results.json
# as suppressed but out of the verdict and the SARIF.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$ROOT/gitlab/make-component.sh" --check ||
	fail "templates/crs-ci.yml is not gitlab/crs-ci.gitlab-ci.yml's component"
note "templates/crs-ci.yml is in sync with gitlab/crs-ci.gitlab-ci.yml"
glci_install
mktemp_dir; tmp=$TMP
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" "$repo")"
shell_inputs="      image: crs-ci:unused-by-the-shell-executor
      compose: $ROOT/container/crs/libfuzzer/compose.yaml
      project: $ROOT/examples/projects/recparse
      harnesses: fuzz_records
      services: []
      docker-host: \"\"
      crs-ci-bin: $CRS_CI"

# 1. sanitizer undefined, a category, timeouts and OOMs not reported: the
# job and its output folder carry the category, the build the sanitizer,
# the SARIF the category. UBSan does not see recparse's heap overflow, so
# the scan would fuzz to its deadline: 15 s of fuzzing, through extra-args.
glci_pipeline "$repo" "$shell_inputs
      timeout: 90s
      extra-args: --fuzz-seconds 15
      sanitizer: undefined
      category: -ubsan
      report-timeouts: false
      report-ooms: false" "$ROOT/templates/crs-ci.yml"
start=$(date +%s)
set +e
# the work folder outside the job's build folder, kept for the owner
# check at the end
glci_run "$repo" "$base" "$GLCI_HEAD" crs-ci-scan-ubsan \
	--variable CRS_CI_STATE="$tmp/state-ubsan" >"$tmp/ubsan.log" 2>&1
code=$?
set -e
job_fail() { cat "$1" >&2; fail "$2"; }
[ "$code" -eq 0 ] || job_fail "$tmp/ubsan.log" "crs-ci-scan-ubsan: gitlab-ci-local exit $code, want 0"
note "gitlab-ci-local ran crs-ci-scan-ubsan in $(( $(date +%s) - start )) s"
out=$repo/.gitlab-ci-local/artifacts/crs-ci-scan-ubsan/crs-ci-out-ubsan
[ -d "$out" ] || job_fail "$tmp/ubsan.log" "no artifacts in $out"
grep -q "SANITIZER=undefined" "$tmp/ubsan.log" ||
	job_fail "$tmp/ubsan.log" "no undefined build in the job's log"
grep -q "run: fuzzing 15s in total (--fuzz-seconds)" "$tmp/ubsan.log" ||
	job_fail "$tmp/ubsan.log" "extra-args did not reach the scan"
for f in exit-code results.json results.sarif report.html \
	gl-code-quality-report.json gl-sast-report.json junit.xml; do
	[ -s "$out/$f" ] || job_fail "$tmp/ubsan.log" "artifact $f missing"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
res = json.load(open(out + "/results.json"))
assert res["summary"]["sanitizer"] == "undefined", res["summary"]
assert res["summary"]["sarif_category"] == "crs-ci-ubsan", res["summary"]
sarif = json.load(open(out + "/results.sarif"))
run = sarif["runs"][0]
assert run["automationDetails"]["id"] == "crs-ci-ubsan/", run["automationDetails"]
assert run["properties"]["sanitizer"] == "undefined", run["properties"]
PY
note "crs-ci-scan-ubsan: an undefined build, results in crs-ci-out-ubsan/, SARIF category crs-ci-ubsan/"

# 2. the report options on a finding of each kind (an out-of-memory and a
# timeout added to the job's results.json): suppressed, not failing, not
# in the SARIF; reported again with yes
rep=$tmp/report
mkdir -p "$rep"
cp "$out/results.json" "$rep/results.json"
python3 - "$rep/results.json" <<'PY'
import json, sys
p = sys.argv[1]
res = json.load(open(p))
def finding(id, crash_type, kind):
    return {"id": id, "signature": crash_type + "\nfuzz_records",
            "crash_type": crash_type, "kind": kind, "sanitizer": "address",
            "harness": "fuzz_records", "file": "src/recparse.c", "line": 27,
            "function": "parse_record", "in_change": True, "stack": [],
            "pov_path": "povs/" + id, "reproduced": 2, "attempts": 2,
            "novelty": "new"}
res["findings"] = [finding("00000000000000aa", "Out-of-memory", "out-of-memory"),
                   finding("00000000000000bb", "Timeout", "timeout")]
json.dump(res, open(p, "w"))
PY
# report_check WANT NAME [OPTIONS...]: `crs-ci report` on $rep with
# OPTIONS exits WANT; its output in $tmp/NAME.txt; then results.json and
# the SARIF are those of case NAME (report-no or report-yes)
report_check() {
	local want=$1 name=$2 code=0
	shift 2
	"$CRS_CI" report --out "$rep" "$@" >"$tmp/$name.txt" 2>&1 || code=$?
	[ "$code" -eq "$want" ] ||
		job_fail "$tmp/$name.txt" "report $*: exit $code, want $want"
	python3 - "$rep" "$name" <<'PY'
import json, sys
d, case = sys.argv[1], sys.argv[2]
res = json.load(open(d + "/results.json"))
by = {f["id"]: f.get("suppressed") for f in res["findings"]}
run = json.load(open(d + "/results.sarif"))["runs"][0]
if case == "report-no":
    assert by == {"00000000000000aa": "report-ooms",
                  "00000000000000bb": "report-timeouts"}, by
    assert run["results"] == [], run["results"]
    assert run["properties"]["resultsSuppressed"] == 2, run["properties"]
else:
    assert set(by.values()) == {None}, by
    assert len(run["results"]) == 2, run["results"]
PY
}
report_check 0 report-no --report-ooms no --report-timeouts no
grep -q "suppressed by --report-ooms no" "$tmp/report-no.txt" ||
	job_fail "$tmp/report-no.txt" "the terminal report does not say suppressed"
report_check 1 report-yes
note "--report-ooms/--report-timeouts no: suppressed in results.json, exit 0, no SARIF result; yes: exit 1"

# 3. sanitizer memory on the offline stand-in base images: the job fails
# with exit 2 and says why, instead of fuzzing with a broken MSan build;
# upload-artifacts false keeps only the exit code and the MR's reports
glci_pipeline "$repo" "$shell_inputs
      timeout: 90s
      sanitizer: memory
      category: -msan
      upload-artifacts: false" "$ROOT/templates/crs-ci.yml"
set +e
glci_run "$repo" "$base" "$GLCI_HEAD" crs-ci-scan-msan >"$tmp/msan.log" 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || job_fail "$tmp/msan.log" "crs-ci-scan-msan passed"
grep -q "sanitizer 'memory' needs the OSS-Fuzz base images" "$tmp/msan.log" ||
	job_fail "$tmp/msan.log" "crs-ci-scan-msan: no reason given"
msan=$repo/.gitlab-ci-local/artifacts/crs-ci-scan-msan/crs-ci-out-msan
if [ -d "$msan" ]; then
	[ "$(cat "$msan/exit-code")" = 2 ] || fail "crs-ci-scan-msan: exit-code $(cat "$msan/exit-code"), want 2"
	[ ! -e "$msan/results.json" ] || fail "upload-artifacts false kept results.json"
fi
note "sanitizer memory on the stand-ins: exit 2, with the reason"
# nothing of the scan left on the engine (by its owner label: other
# developers' containers may come and go meanwhile)
runs=("$tmp"/state-ubsan/work/runs/*/)
[ -d "${runs[0]}" ] || fail "no run folder in $tmp/state-ubsan/work"
for d in "${runs[@]}"; do
	run=$(basename "$d")
	owner=crs-ci-${run#*-}
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
	note "nothing of $owner left on the engine"
done
