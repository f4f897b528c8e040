#!/usr/bin/env bash
# test_gitlab_ci_local.sh - the GitLab template's scan job, run by
# gitlab-ci-local 4.70.1 with the shell executor on the recparse example
# as a merge-request pipeline: no dind service (the runner's engine), the
# crs-ci of this checkout. The job's artifacts hold the Code Quality, SAST
# and JUnit reports with the finding at src/recparse.c:39, in their formats.
# The merge request commits output and work folders of its own (links to
# a host folder and to .git, a forged base export), and the cache GitLab
# restores into the checkout holds a corpus link to a host folder and an
# image archive whose manifest tags a sentinel image: none is used (a
# merge request's scan loads no cached image: cache-images auto), the
# artifacts hold no link, the sentinel tag names the image it named, and
# the bug is still new. A cache the merge request commits is not passed
# to crs-ci at all (a stub in its place records its --cache-dir).
# Compares crs-ci's containers and networks on the engine before and
# after (engine_snapshot --crs-ci): other scripts may run beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
glci_install
mktemp_dir; tmp=$TMP
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" "$repo")"
# What would be crs-ci's own state in the checkout (issue 21): (a) the
# cache GitLab restores there (untracked: one the merge request commits
# is not used at all) with a corpus folder as a link to a host folder (a
# file and a listening socket in it) and (d below) a forged image
# archive; the merge request commits (b) output folders as links,
# reports/ to the clone's .git (its token) and povs/ elsewhere; (c) a
# "finished" export of the base commit that is the buggy head's tree,
# which would make the bug "pre-existing".
sentinel=$tmp/sentinel
commit_hostile_state "$repo" "$base" "$head" "$sentinel" "$tmp/povs-elsewhere" restored
python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
s.settimeout(1500)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write("connected")
except OSError: pass' "$sentinel/sock" "$tmp/connected" &
sock_pid=$!
for _ in $(seq 100); do [ -S "$sentinel/sock" ] && break; sleep 0.1; done
trap 'kill $sock_pid 2>/dev/null; sentinel_tag_remove; rm -rf "$tmp"' EXIT
# (d) the cache lists an image of crs-ci's own, its archive's manifest
# tags a sentinel image (an engine loading it as it is moves the tag)
sentinel_tag_make
cache_forge_tagging "$repo/.crs-ci-cache" "$SENTINEL_TAG"
before_sentinel=$(find "$sentinel" -printf "%p %y %s %T@\n" | sort)
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
before=$(engine_snapshot --crs-ci)
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
# the committed state was not crs-ci's: nothing of it used or kept
[ -z "$(find "$out" -type l)" ] || scan_fail "links in the artifacts: $(find "$out" -type l)"
! grep -rqs -e "repositoryformatversion" -e "host secret" "$out" ||
	scan_fail "the artifacts hold .git or the host folder's content"
[ -n "$(ls "$out/povs")" ] || scan_fail "no PoV in the artifacts"
python3 - "$out/results.json" <<'PY' || scan_fail "the finding is not new"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
PY
[ "$(find "$sentinel" -printf "%p %y %s %T@\n" | sort)" = "$before_sentinel" ] ||
	scan_fail "the host folder changed: $(find "$sentinel" -printf "%p %y %s %T@\n")"
[ ! -e "$tmp/connected" ] || scan_fail "something connected to the host socket"
[ ! -e "$tmp/povs-elsewhere" ] || scan_fail "PoVs were written through the committed link"
! grep -q "reusing.*crs-ci-work" "$tmp/glci.log" || scan_fail "the committed export was used"
sentinel_tag_check
# a merge request's pipeline loads no image of the cache it only pulls
# (cache-images: auto), the forged archive included
grep -qF "cache: its images are not loaded (--cache-images no)" "$tmp/glci.log" ||
	scan_fail "the merge request's scan loaded the cache's images"
! grep -qF "cache: loaded " "$tmp/glci.log" || scan_fail "an image of the cache was loaded"
note "the restored cache, the committed output and work state: not read, not written, not uploaded; $SENTINEL_TAG not moved; the bug is new"
after=$(engine_snapshot --crs-ci)
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
# a cache the merge request commits is not used at all: the job, crs-ci
# replaced by a stub that records what its --cache-dir holds, says so
mkdir -p "$repo/.crs-ci-cache"
echo '{"version": 2, "entries": {}}' > "$repo/.crs-ci-cache/index.json"
git -C "$repo" add -f .crs-ci-cache
git -C "$repo" -c user.name=pr -c user.email=pr@example.invalid \
	-c commit.gpgsign=false commit -qm "a cache of our own"
printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do\n\t[ "$1" != --cache-dir ] || ls -A "$2" > %s 2>&1\n\tshift\ndone\n' \
	"$tmp/stub-cache" > "$tmp/stub"
chmod +x "$tmp/stub"
glci_run "$repo" "$base" "$head" crs-ci-scan --variable CRS_CI_BIN="$tmp/stub" \
	>"$tmp/stub.log" 2>&1 || { cat "$tmp/stub.log" >&2; fail "the stub's job failed"; }
grep -q "crs-ci: the checkout commits files under .crs-ci-cache: no cache" "$tmp/stub.log" ||
	{ cat "$tmp/stub.log" >&2; fail "no message for the committed cache"; }
[ -f "$tmp/stub-cache" ] || { cat "$tmp/stub.log" >&2; fail "the stub did not run"; }
! grep -qx index.json "$tmp/stub-cache" ||
	fail "the committed cache was passed as --cache-dir"
note "a committed cache: not passed to crs-ci"
