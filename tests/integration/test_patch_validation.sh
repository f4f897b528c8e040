#!/usr/bin/env bash
# test_patch_validation.sh - every patch a CRS submits is validated by
# crs-ci itself. crs-libfuzzer finds the recparse example's bug; the
# crs-patcher fixture (tests/fixtures/crs-patcher) then submits the
# correct fix and four bad patches. Asserts: the fix passes every step
# (tests: "no tests", the example has none), is written as a -p1 .patch
# that `git apply --check` accepts on the head, and is the finding's only
# SARIF fix (a replacement against the unmodified head file); each bad
# patch stops at the right step (apply, build, povs, policy) and is
# neither a fix nor a .patch; the SARIF validates; in a GitLab job the
# SAST report carries the fix, and only it, as the remediation, and the
# merge request gets it as a suggestion (a fake of GitLab's API).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
fixture=$ROOT/tests/fixtures/crs-patcher
scan_expect 1 --compose "$fixture/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 10m
grep -q "^patches: 5 submitted, 1 validated" "$tmp/verdict.txt" ||
	fail "verdict does not list 5 patches, 1 validated"
grep -q "\[validated\] .*patches/[0-9a-f]\{12\}\.patch" "$tmp/verdict.txt" ||
	fail "verdict does not name the validated .patch"
[ "$(grep -c '\[rejected\]' "$tmp/verdict.txt")" -eq 4 ] ||
	fail "verdict does not list 4 rejected patches"
sha() { sha256sum "$fixture/patches/$1" | cut -c1-64; }
python3 - "$tmp/out" "$(sha 01-good-bounds-check.patch)" \
	"$(sha 02-bad-does-not-apply.patch)" \
	"$(sha 03-bad-does-not-build.patch)" \
	"$(sha 04-bad-still-crashes.patch)" \
	"$(sha 05-bad-edits-harness.patch)" <<'PY'
import json, os, sys
out, good, no_apply, no_build, crashes, harness = sys.argv[1:]
res = json.load(open(os.path.join(out, "results.json")))
assert len(res["findings"]) == 1, res["findings"]
f = res["findings"][0]
patches = {p["sha256"]: p for p in res["patches"]}
assert len(patches) == 5, list(patches)
names = ["policy", "apply", "build", "povs", "tests", "refuzz"]
g = patches[good]
assert g["validated"] is True and g["failed_step"] is None, g
assert [s["name"] for s in g["steps"]] == names, g["steps"]
for s in g["steps"]:
    want = "no tests" if s["name"] == "tests" else "passed"
    assert s["verdict"] == want, s
    assert s["log_path"] and os.path.isfile(os.path.join(out, s["log_path"])), s
assert g["path"] == "patches/%s.patch" % good[:12], g["path"]
assert g["fixes"] == [f["id"]], g["fixes"]
assert f["fixed_by"] == [good], f["fixed_by"]
for sha, step in ((no_apply, "apply"), (no_build, "build"),
                  (crashes, "povs"), (harness, "policy")):
    p = patches[sha]
    assert p["validated"] is False, p
    assert p["failed_step"] == step, (step, p["failed_step"], p["failure"])
    assert p["failure"], p
    assert p["fixes"] == [], p
    assert p["path"] == "patches/rejected/%s.patch" % sha[:12], p["path"]
    assert not os.path.exists(os.path.join(out, "patches", sha[:12] + ".patch"))
    done = [s["name"] for s in p["steps"] if s["verdict"] != "skipped"]
    assert done == names[:names.index(step) + 1], (step, p["steps"])
    assert p["steps"][names.index(step)]["verdict"] == "failed", p["steps"]
assert "harness" in patches[harness]["failure"], patches[harness]["failure"]
assert "still crashes" in patches[crashes]["failure"], patches[crashes]["failure"]
# SARIF: the validated patch, and only it, as the finding's fix
sarif = json.load(open(os.path.join(out, "results.sarif")))
r = sarif["runs"][0]["results"][0]
fixes = r.get("fixes", [])
assert len(fixes) == 1, fixes
ch = fixes[0]["artifactChanges"]
assert len(ch) == 1 and ch[0]["artifactLocation"]["uri"] == "src/recparse.c", ch
rep = ch[0]["replacements"]
assert len(rep) == 1, rep
reg = rep[0]["deletedRegion"]
# inserted before line 39 of the head's file (the memcpy): nothing deleted
assert (reg["startLine"], reg["startColumn"], reg["endLine"], reg["endColumn"]) == (39, 1, 39, 1), reg
assert "seglen > total - off" in rep[0]["insertedContent"]["text"], rep
assert good[:12] in fixes[0]["description"]["text"]
PY
# the .patch applies to the head with plain git (strict context, -p1)
git -C "$tmp/repo" checkout -q "$head"
git -C "$tmp/repo" apply --check "$tmp/out/patches/$(sha 01-good-bounds-check.patch | cut -c1-12).patch" ||
	fail "git apply --check of the validated patch fails on the head"
# and the SARIF replacement gives the same file as the patch
python3 - "$tmp/repo/src/recparse.c" "$tmp/out/results.sarif" "$tmp/patched.c" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
rep = json.load(open(sys.argv[2]))["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"]
for r in sorted(rep, key=lambda r: -r["deletedRegion"]["startLine"]):
    d = r["deletedRegion"]
    new = r.get("insertedContent", {}).get("text", "")
    s, e = d["startLine"] - 1, d["endLine"] - 1
    lines[s:e] = new.split("\n")[:-1]
open(sys.argv[3], "w").write("\n".join(lines))
PY
git -C "$tmp/repo" apply "$tmp/out/patches/$(sha 01-good-bounds-check.patch | cut -c1-12).patch"
cmp "$tmp/repo/src/recparse.c" "$tmp/patched.c" ||
	fail "the SARIF fix does not give the patched file"
sarif_validate "$tmp/out/results.sarif" >/dev/null || fail "SARIF does not validate"
# in a GitLab merge-request job the same results give the SAST report the
# validated patch, and only it, as the remediation of the finding's
# vulnerability, and (with a token) one MR discussion suggesting its hunk,
# posted to a fake of GitLab's API (tests/helper/fake_gitlab.c)
fake_gitlab_build "$tmp/fake-gitlab"
gl_token="glpat-test-$$"
coproc FAKE_GL { exec "$tmp/fake-gitlab" "$gl_token" 42 7 "$tmp/gitlab-requests.jsonl"; }
# bash unsets FAKE_GL_PID once the coprocess is reaped: keep the pid
gl_pid=$FAKE_GL_PID
read -r gl_api <&"${FAKE_GL[0]}"
GITLAB_CI=true CI_API_V4_URL=$gl_api CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=7 \
	CRS_CI_GITLAB_TOKEN=$gl_token \
	"$CRS_CI" report --source "$tmp/repo" --base "$base" --head "$head" \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>/dev/null 2>"$tmp/report.log" || [ $? -eq 1 ] ||
	{ cat "$tmp/report.log" >&2; fail "crs-ci report in GitLab mode"; }
kill -TERM "$gl_pid"
wait "$gl_pid" || true
grep -q "1 validated suggestion(s) posted on the merge request" "$tmp/report.log" ||
	{ cat "$tmp/report.log" >&2; fail "no suggestion posted on the MR"; }
if grep -rqF "$gl_token" "$tmp/out" "$tmp/work" "$tmp/report.log"; then
	fail "the GitLab token was written to a file"
fi
python3 - "$tmp/out" "$(sha 01-good-bounds-check.patch)" "$tmp/gitlab-requests.jsonl" <<'PY'
import base64, json, os, sys
out, good, reqlog = sys.argv[1:]
reqs = [json.loads(l) for l in open(reqlog)]
assert [(q["method"], q["url"].rsplit("/", 1)[1], q["status"]) for q in reqs] == \
    [("GET", "versions", 200), ("POST", "discussions", 201)], reqs
note = reqs[1]["body"]
assert "```suggestion:-0+" in note["body"] and "seglen > total - off" in note["body"], note
assert good[:12] in note["body"], note["body"]
assert note["position"]["new_path"] == "src/recparse.c", note["position"]
sast = json.load(open(os.path.join(out, "gl-sast-report.json")))
rems = sast["remediations"]
assert len(rems) == 1, rems
vuln_ids = [v["id"] for v in sast["vulnerabilities"]]
assert [f["id"] for f in rems[0]["fixes"]] == vuln_ids, (rems[0]["fixes"], vuln_ids)
patch = open(os.path.join(out, "patches", good[:12] + ".patch"), "rb").read()
assert base64.b64decode(rems[0]["diff"]) == patch
assert good[:12] in rems[0]["summary"], rems[0]["summary"]
PY
note "1 of 5 patches validated (tests: no tests), as .patch and SARIF fix"
note "bad patches stop at apply, build, povs and policy"
note "GitLab: the validated patch is the SAST remediation and an MR suggestion"
