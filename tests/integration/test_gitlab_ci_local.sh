#!/usr/bin/env bash
# test_gitlab_ci_local.sh - the GitLab template's scan job, run by
# gitlab-ci-local 4.70.1 with the shell executor on the recparse example
# as a merge-request pipeline: no dind service (the runner's engine), the
# crs-ci of this checkout. The job's artifacts hold the Code Quality, SAST
# and JUnit reports with the finding at src/recparse.c:39, in their formats.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
glci_install
mktemp_dir; tmp=$TMP
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" "$repo")"
# The pipeline file and the template it includes (a local include: a
# copy in the repository), with the inputs of a shell runner.
glci_pipeline "$repo" "      image: crs-ci:unused-by-the-shell-executor
      compose: $ROOT/container/crs/libfuzzer/compose.yaml
      project: $ROOT/examples/projects/recparse
      harnesses: fuzz_records
      timeout: 10m
      services: []
      docker-host: \"\"
      crs-ci-bin: $CRS_CI"
head=$GLCI_HEAD
before=$(engine_snapshot)
start=$(date +%s)
set +e
glci_run "$repo" "$base" "$head" crs-ci-scan >"$tmp/glci.log" 2>&1
code=$?
set -e
scan_fail() { cat "$tmp/glci.log" >&2; fail "crs-ci-scan: $*"; }
[ "$code" -eq 0 ] || scan_fail "gitlab-ci-local exit $code, want 0"
note "gitlab-ci-local ran crs-ci-scan in $(( $(date +%s) - start )) s"
# the job's artifacts as gitlab-ci-local exported them
out=$repo/.gitlab-ci-local/artifacts/crs-ci-scan/crs-ci-out
[ -d "$out" ] || scan_fail "no artifacts in $out"
rc=$(cat "$out/exit-code")
[ "$rc" = 1 ] || scan_fail "crs-ci exit $rc, want 1"
grep -q "verdict: FAIL" "$tmp/glci.log" || scan_fail "no FAIL verdict in the log"
python3 - "$out" <<'PY'
import json, sys, xml.dom.minidom
out = sys.argv[1]
# Code Quality: an array of Code Climate issues
cq = json.load(open(out + "/gl-code-quality-report.json"))
assert isinstance(cq, list) and len(cq) == 1, cq
i = cq[0]
for k in ("description", "check_name", "fingerprint", "severity", "location"):
    assert isinstance(i.get(k), (str, dict)) and i[k], (k, i)
assert i["severity"] in ("info", "minor", "major", "critical", "blocker"), i
assert i["check_name"].startswith("crs-ci/heap-buffer-overflow"), i
assert i["location"]["path"] == "src/recparse.c", i
assert i["location"]["lines"]["begin"] == 39, i
# SAST: schema version, scan, vulnerabilities with a CWE identifier
sast = json.load(open(out + "/gl-sast-report.json"))
assert isinstance(sast["version"], str) and sast["version"], sast
assert sast["scan"]["type"] == "sast", sast["scan"]
assert sast["scan"]["status"] == "success", sast["scan"]
for k in ("analyzer", "scanner", "start_time", "end_time"):
    assert k in sast["scan"], (k, sast["scan"])
v = sast["vulnerabilities"]
assert len(v) == 1, v
v = v[0]
for k in ("id", "name", "description", "severity", "identifiers", "location"):
    assert v.get(k), (k, v)
assert any(x["type"] == "cwe" and x["value"] for x in v["identifiers"]), v
assert all(x.get("name") and x.get("value") for x in v["identifiers"]), v
assert v["location"]["file"] == "src/recparse.c", v
assert v["location"]["start_line"] == 39, v
# JUnit: a failing test case
junit = xml.dom.minidom.parse(out + "/junit.xml")
f = junit.getElementsByTagName("failure")
assert f, "no failing test case"
assert "src/recparse.c:39" in f[0].getAttribute("message") + \
    "".join(n.data for n in f[0].childNodes if n.nodeType == n.TEXT_NODE), \
    f[0].toxml()
PY
[ -s "$out/results.sarif" ] || fail "results.sarif missing from the artifacts"
after=$(engine_snapshot)
if [ "$after" != "$before" ]; then
	diff <(echo "$before") <(echo "$after") >&2 || true
	docker ps -a --no-trunc >&2
	fail "containers or networks left behind"
fi
note "Code Quality, SAST and JUnit artifacts: the finding at src/recparse.c:39"
# the verdict job fails the pipeline on the scan's exit code 1
set +e
glci_run "$repo" "$base" "$head" crs-ci-verdict >"$tmp/verdict.log" 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || { cat "$tmp/verdict.log" >&2; fail "crs-ci-verdict passed"; }
grep -q "crs-ci: findings fail --fail-on new" "$tmp/verdict.log" ||
	{ cat "$tmp/verdict.log" >&2; fail "crs-ci-verdict: no message"; }
grep -q "FAIL.*crs-ci-verdict" "$tmp/verdict.log" ||
	{ cat "$tmp/verdict.log" >&2; fail "crs-ci-verdict did not fail"; }
note "crs-ci-verdict fails the pipeline"
