#!/usr/bin/env bash
# test_two_job.sh - the two-job mode of a fork's pull request (issue 24),
# end to end against the GitHub fake (tests/helper/fake_github.c):
#   unprivileged job: the action's Scan step (actions/action.yml) with
#     result-bundle: true; crs-ci scan is replaced by the saved output of
#     one real scan of the demo repository's pull request, which adds a
#     bug that crs-patcher fixes (tests/fixtures/two-job/README.md says
#     how it was made); asserts crs-ci's environment holds
#     no token, the LLM decision reaches crs-ci and results.json, and the
#     step writes the bundle with `crs-ci publish --make-bundle`;
#   privileged job: `crs-ci publish --bundle` from a workflow_run event
#     whose pull_requests is empty (a fork): the pull request is found by
#     head owner:branch and SHA, the validated patch posted as a review
#     suggestion on the head SHA, the check run concluded "failure";
#   hostile bundles: another pull request or SHA, an event naming no
#     open pull request, a suggestion outside the diff, a bad CRS name,
#     a 100 MB string: refused or cut with a clear message, nothing posted
#     for them.
#   sealed evidence (disclose) in the bundle's private/: filed as a draft
#     security advisory, CMS PEM armour only;
#   init --public: both workflows pass action-validator.
# No Docker: about 30-40 s (the 100 MB bundle and npx take most).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
fixture=$ROOT/tests/fixtures/two-job
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"

cc -std=c11 -D_GNU_SOURCE -DFAKE_GITHUB_MAIN -I"$ROOT" -o "$tmp/fake-github" \
	"$ROOT/tests/helper/fake_github.c" "$ROOT/tests/helper/mhd_fake.c" \
	$(pkg-config --cflags --libs libmicrohttpd jansson) -lpthread ||
	fail "building the fake GitHub"

# --- the unprivileged pull_request job ------------------------------------
# a first-time contributor's pull request #7 from the fork mallory/recparse
python3 - "$tmp/pr-event.json" "$base" "$head" <<'PY'
import json, sys
path, base, head = sys.argv[1:]
json.dump({"action": "synchronize", "number": 7, "pull_request": {
    "number": 7, "author_association": "FIRST_TIME_CONTRIBUTOR",
    "labels": [{"name": "bug"}],
    "base": {"sha": base, "ref": "main",
             "repo": {"full_name": "acme/recparse"}},
    "head": {"sha": head, "ref": "pr", "label": "mallory:pr",
             "repo": {"full_name": "mallory/recparse"}}}}, open(path, "w"))
PY
# the label makes the difference
decide() { "$ROOT/actions/llm-decision.sh" pull_request "$1" acme/recparse 5 crs-ci-llm 2>"$tmp/notice.txt"; }
decide "$tmp/pr-event.json" >"$tmp/no-label.out"
grep -qx "llm=no" "$tmp/no-label.out" || fail "a fork PR without the label may run LLM CRSs"
grep -qx "llm-budget=" "$tmp/no-label.out" || fail "a fork PR without the label keeps a budget"
grep -q "^llm-reason=a pull request from a fork without the maintainers' label 'crs-ci-llm': no LLM CRSs$" \
	"$tmp/no-label.out" || fail "no reason: $(cat "$tmp/no-label.out")"
grep -q "^::notice title=crs-ci LLM CRSs::a pull request from a fork without" "$tmp/notice.txt" ||
	fail "the decision is not printed"
# the maintainer's labeled event for this head: LLM CRSs run
python3 - "$tmp/pr-event.json" "$tmp/pr-labelled.json" "$tmp/pr-pushed.json" "$tmp/pr-other.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["pull_request"]["labels"].append({"name": "crs-ci-llm"})
e["action"] = "labeled"; e["label"] = {"name": "crs-ci-llm"}
json.dump(e, open(sys.argv[2], "w"))
# a commit pushed after the label: the label is still on the pull request
e["action"] = "synchronize"; del e["label"]
e["pull_request"]["head"]["sha"] = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed"
json.dump(e, open(sys.argv[3], "w"))
# another label set while crs-ci-llm is on it
e["action"] = "labeled"; e["label"] = {"name": "bug"}
json.dump(e, open(sys.argv[4], "w"))
PY
decide "$tmp/pr-labelled.json" >"$tmp/label.out"
grep -qx "llm=yes" "$tmp/label.out" || fail "the label does not enable LLM CRSs"
grep -qx "llm-budget=5" "$tmp/label.out" || fail "the label does not keep the budget"
grep -q "^llm-reason=a pull request from a fork, labelled 'crs-ci-llm' by a maintainer for this head" \
	"$tmp/label.out" || fail "no reason: $(cat "$tmp/label.out")"
for ev in pushed other; do
	decide "$tmp/pr-$ev.json" >"$tmp/$ev.out"
	grep -qx "llm=no" "$tmp/$ev.out" || fail "$ev: the label carried over to a run it was not set for"
	grep -qx "llm-budget=" "$tmp/$ev.out" || fail "$ev: a budget without the label's event"
done
grep -q "^llm-reason=a pull request from a fork: the maintainers' label 'crs-ci-llm' was set before this head (f00dfeedf00d); it counts only for the head it was set on: set it again" \
	"$tmp/pushed.out" || fail "no reason: $(cat "$tmp/pushed.out")"
# a first-time contributor's branch of the repository itself: no LLM either
python3 - "$tmp/pr-event.json" "$tmp/pr-first.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["pull_request"]["head"]["repo"]["full_name"] = "acme/recparse"
json.dump(e, open(sys.argv[2], "w"))
PY
decide "$tmp/pr-first.json" | grep -q "^llm-reason=a pull request by an author without write access (FIRST_TIME_CONTRIBUTOR) without" ||
	fail "a first-time contributor's PR is not held back"
note "LLM CRSs: none without the label, with the reason; on its labeled event, the budget; not on a commit pushed after it"

# The action's Scan step, as GitHub runs it with result-bundle: true and
# the job's token in its env: block. crs-ci scan is a stand-in that
# records its arguments and environment and leaves the saved output.
mkdir -p "$tmp/bin" "$tmp/runner"
cat >"$tmp/bin/crs-ci" <<EOF
#!/bin/sh
env >"$tmp/env-\$1.txt"
echo "\$@" >"$tmp/args-\$1.txt"
if [ "\$1" = scan ]; then
	mkdir -p "$tmp/runner/crs-ci-out" && cp -R "$fixture/out/." "$tmp/runner/crs-ci-out/"
	# with a certificate, as the disclosure policy seals a private finding
	[ -z "\${CRS_CI_DISCLOSE_KEY:-}" ] || { mkdir -p "$tmp/runner/crs-ci-out/private" &&
		echo sealed >"$tmp/runner/crs-ci-out/private/finding-1.md.cms"; }
	exit 1
fi
exec "$CRS_CI" "\$@"
EOF
chmod +x "$tmp/bin/crs-ci"
scan_step() {	# LLM LLM_REASON [VAR=VALUE...]
	: >"$tmp/github-output"
	rm -rf "$tmp/runner/crs-ci-out" "$tmp/runner/crs-ci-out-bundle"
	(cd "$tmp/repo" && env PATH="$tmp/bin:$PATH" GITHUB_TOKEN=ghs_job_token_must_not_leak \
		ACTIONS_RUNTIME_TOKEN=runtime_token_must_not_leak \
		GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$tmp/pr-event.json" \
		GITHUB_REPOSITORY=acme/recparse GITHUB_OUTPUT="$tmp/github-output" \
		COMPOSE=c.yaml PROJECT= SOURCE=. TIMEOUT=15m ALLOW_ENV= FAIL_ON=new HARNESSES= \
		BASE="$base" HEAD="$head" CACHE_DIR="$tmp/runner/cache" WORK_DIR="$tmp/runner/work" \
		OUT_DIR="$tmp/runner/crs-ci-out" CRS_CI_LLM_BUDGET= LLM="$1" LLM_REASON="$2" \
		RESULT_BUNDLE=true CRS_CI_GITHUB_UPLOAD_SARIF=action CRS_CI_GITHUB_POST_SUGGESTIONS=false \
		"${@:3}" bash -c "$(action_step scan)") >"$tmp/scan-step.log" 2>&1 ||
		{ cat "$tmp/scan-step.log" >&2; fail "the Scan step failed"; }
}
reason=$(sed -n 's/^llm-reason=//p' "$tmp/no-label.out")
scan_step no "$reason"
for f in "$tmp/env-scan.txt" "$tmp/env-publish.txt"; do
	[ -f "$f" ] || fail "crs-ci was not run ($f)"
	if grep -E "must_not_leak|^GITHUB_TOKEN=|^ACTIONS_RUNTIME_TOKEN=" "$f"; then
		fail "the unprivileged job's crs-ci holds a token ($f)"
	fi
done
grep -q -- "--no-llm --llm-reason a pull request from a fork without" "$tmp/args-scan.txt" ||
	fail "the scan is not told --no-llm and why: $(cat "$tmp/args-scan.txt")"
grep -q "^exit-code=1$" "$tmp/github-output" || fail "no exit-code output"
bundle=$(sed -n 's/^bundle=//p' "$tmp/github-output")
[ "$bundle" = "$tmp/runner/crs-ci-out-bundle" ] || fail "no bundle output: $(cat "$tmp/github-output")"
for f in bundle.json results.json results.sarif; do
	[ -f "$bundle/$f" ] || fail "the bundle has no $f"
done
ls "$bundle"/patches/*.patch >/dev/null || fail "the bundle has no validated patch"
python3 - "$bundle/bundle.json" "$bundle/results.json" "$head" "$base" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["format"] == "crs-ci-result-bundle" and b["version"] == 1, b
assert b["pull_request"] == {"number": 7, "head_sha": sys.argv[3],
                             "base_sha": sys.argv[4]}, b["pull_request"]
assert b["verdict"] == "fail" and b["new_findings"] == 1, b
s = b["suggestions"]
assert len(s) == 1 and s[0]["path"] == "src/recparse.c", s
assert "seglen > total - off" in s[0]["replacement"], s
r = json.load(open(sys.argv[2]))["summary"]
assert r["llm_crs"] is False, r
assert r["llm_reason"].startswith("a pull request from a fork without"), r
PY
# with the label, the scan runs its LLM CRSs
scan_step yes "a pull request from a fork with the maintainers' label 'crs-ci-llm': LLM CRSs may run"
if grep -q -- "--no-llm" "$tmp/args-scan.txt"; then fail "labelled PR: --no-llm"; fi
grep -q -- "--llm-reason a pull request from a fork with the maintainers' label" "$tmp/args-scan.txt" ||
	fail "labelled PR: no reason"
note "unprivileged job: no token in crs-ci's environment; bundle written"

# the disclosure certificate of a fork's run: crs-ci-disclose.pem beside a
# compose read from the base commit (CONFIG_TRUSTED=true), never beside
# the pull request's own compose; the bundle carries the sealed private/
printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' \
	>"$tmp/repo/crs-ci-disclose.pem"
scan_step no "$reason" CONFIG_TRUSTED=false
if grep -q "^CRS_CI_DISCLOSE_KEY=." "$tmp/env-scan.txt"; then
	fail "the pull request's own crs-ci-disclose.pem was used"
fi
scan_step no "$reason" CONFIG_TRUSTED=true
grep -q "^CRS_CI_DISCLOSE_KEY=-----BEGIN CERTIFICATE-----" "$tmp/env-scan.txt" ||
	fail "the trusted crs-ci-disclose.pem was not used"
grep -q "sealed to crs-ci-disclose.pem beside the compose" "$tmp/scan-step.log" ||
	fail "the certificate's origin is not said"
[ -f "$(sed -n 's/^bundle=//p' "$tmp/github-output")/private/finding-1.md.cms" ] ||
	fail "the bundle does not carry private/"
rm "$tmp/repo/crs-ci-disclose.pem"
scan_step no "$reason"
note "fork's run: seals to crs-ci-disclose.pem of a trusted compose only; the bundle carries private/"

# --- the privileged workflow_run job ---------------------------------------
# the pull requests GitHub knows: #7 (the fork's), and #9 of another fork
# at the same commit, which must not be picked
python3 - "$tmp" "$base" "$head" <<'PY'
import json, subprocess, sys
tmp, base, head = sys.argv[1:]
def pr(n, owner):
    return {"number": n, "state": "open",
            "head": {"sha": head, "ref": "pr", "label": owner + ":pr",
                     "repo": {"full_name": owner + "/recparse"}},
            "base": {"sha": base, "ref": "main",
                     "repo": {"full_name": "acme/recparse"}}}
json.dump([pr(7, "mallory"), pr(9, "eve")], open(tmp + "/pulls.json", "w"))
# GET .../pulls/7/files: each file's patch, GitHub's form (no headers)
files = []
names = subprocess.check_output(["git", "-C", tmp + "/repo", "diff", "--name-only",
                                 base, head], text=True).split()
for name in names:
    d = subprocess.check_output(["git", "-C", tmp + "/repo", "diff", base, head,
                                 "--", name], text=True)
    f = {"filename": name, "status": "modified"}
    if "@@" in d:	# GitHub gives no patch for a binary file
        f["patch"] = d[d.index("@@"):].rstrip("\n")
    files.append(f)
json.dump(files, open(tmp + "/files.json", "w"))
def event(sha, branch="pr", owner="mallory"):
    return {"action": "completed", "workflow_run": {
        "id": 30433642, "event": "pull_request", "head_sha": sha,
        "head_branch": branch, "pull_requests": [],
        "head_repository": {"full_name": owner + "/recparse"}},
        "repository": {"full_name": "acme/recparse"}}
json.dump(event(head), open(tmp + "/run-event.json", "w"))
json.dump(event(base), open(tmp + "/run-event-other-sha.json", "w"))
PY
token=ghs_privileged_$$
extra_env=()	# more environment for one publish
# publish NAME BUNDLE [EVENT]: the workflow_run job against a fresh fake;
# $tmp/NAME.log (crs-ci's stderr), $tmp/NAME.jsonl (requests), $rc
publish() {
	coproc FAKE_GH { exec "$tmp/fake-github" "$token" "$tmp/pulls.json" \
		"$tmp/files.json" "$tmp/$1.jsonl"; }
	local api pid=$FAKE_GH_PID
	read -r api <&"${FAKE_GH[0]}"
	set +e
	env -u GITHUB_ACTIONS GITHUB_EVENT_NAME=workflow_run \
		GITHUB_EVENT_PATH="${3:-$tmp/run-event.json}" \
		GITHUB_REPOSITORY=acme/recparse GITHUB_API_URL="$api" \
		GITHUB_TOKEN="$token" "${extra_env[@]}" "$CRS_CI" publish --bundle "$2" \
		>"$tmp/$1.out" 2>"$tmp/$1.log"
	rc=$?
	set -e
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	if grep -q "$token" "$tmp/$1.log" "$tmp/$1.out"; then fail "$1: the token is in the log"; fi
}
posts() { grep -c '"method":"POST"' "$tmp/$1.jsonl" || true; }

publish good "$bundle"
[ "$rc" -eq 0 ] || { cat "$tmp/good.log" >&2; fail "publish failed ($rc)"; }
python3 - "$tmp/good.jsonl" "$head" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
head = sys.argv[2]
look = [r for r in reqs if r["method"] == "GET" and "/pulls?" in r["url"]]
assert [r["url"] for r in look] == ["/repos/acme/recparse/pulls?head=mallory:pr"], look
reviews = [r for r in reqs if r["url"].endswith("/reviews")]
assert len(reviews) == 1, reqs
rv = reviews[0]
assert rv["url"] == "/repos/acme/recparse/pulls/7/reviews", rv["url"]
b = rv["body"]
assert b["commit_id"] == head and b["event"] == "COMMENT", b
assert len(b["comments"]) == 1, b["comments"]
c = b["comments"][0]
assert c["path"] == "src/recparse.c" and c["side"] == "RIGHT", c
assert "```suggestion\n" in c["body"] and "seglen > total - off" in c["body"], c["body"]
# crs-ci's own words, escaped, from the patch's hash and CRS name
assert c["body"].startswith("**crs-ci** validated patch: this pull request's crs\\-ci run reports this fix \\(433ca5eb7db2, from crs\\-patcher\\)"), c["body"]
checks = [r for r in reqs if r["url"].endswith("/check-runs")]
assert len(checks) == 1, reqs
ck = checks[0]["body"]
assert ck["head_sha"] == head and ck["conclusion"] == "failure", ck
assert ck["output"]["summary"].startswith("1 proved finding(s), 1 introduced"), ck
PY
grep -q "pull request #7 of acme/recparse (head mallory:pr at" "$tmp/good.log" ||
	fail "the resolved pull request is not said"
note "privileged job: review with the validated patch and check on #7 at $head"

# tamper BUNDLE_COPY PYTHON: a copy of the bundle with bundle.json changed
tamper() {
	rm -rf "$tmp/$1" && cp -R "$bundle" "$tmp/$1"
	python3 - "$tmp/$1/bundle.json" "$2" <<'PY'
import json, sys
path, code = sys.argv[1:]
b = json.load(open(path))
exec(code)
json.dump(b, open(path, "w"))
PY
}
refused() {	# NAME MESSAGE
	[ "$rc" -eq 2 ] || { cat "$tmp/$1.log" >&2; fail "$1: exit $rc, want 2"; }
	grep -qF "$2" "$tmp/$1.log" || { cat "$tmp/$1.log" >&2; fail "$1: no message '$2'"; }
	[ "$(posts "$1")" -eq 0 ] || fail "$1: something was posted"
}
tamper other-pr 'b["pull_request"]["number"] = 9'
publish other-pr "$tmp/other-pr"
refused other-pr "the bundle names pull request #9 at ${head:0:12}, but the workflow_run event is #7"
tamper other-sha "b['pull_request']['head_sha'] = '$base'"
publish other-sha "$tmp/other-sha"
refused other-sha "the bundle names pull request #7 at ${base:0:12}, but the workflow_run event is #7 at ${head:0:12}"
publish no-pr "$bundle" "$tmp/run-event-other-sha.json"
refused no-pr "no open pull request of acme/recparse has head mallory:pr at $base"
tamper huge 'b["suggestions"][0]["replacement"] = "A" * (100 << 20)'
publish huge "$tmp/huge"
refused huge "bundle.json refused (a regular file of at most 4 MiB is read, no link)"
grep -q "nothing is posted" "$tmp/huge.log" || fail "huge: the refusal does not say nothing is posted"
tamper bad-format 'b["version"] = 2'
publish bad-format "$tmp/bad-format"
refused bad-format "version is not 1"
note "another PR, another SHA, no PR for the event, 100 MB, a wrong version: refused, nothing posted"

# a suggestion outside the diff (lines 150-151: no hunk's) and one whose CRS
# name would inject Markdown: cut, with a message; the good one stays
tamper cut 's = b["suggestions"][0]
b["suggestions"].append(dict(s, start_line=150, end_line=151))
b["suggestions"].append(dict(s, crs="x\n::error::pwned <img src=x>"))
b["message"] = "ignored: crs-ci writes its own text"'
publish cut "$tmp/cut"
[ "$rc" -eq 0 ] || { cat "$tmp/cut.log" >&2; fail "cut: exit $rc"; }
grep -q "suggestion for src/recparse.c:150-151 lies outside the pull request's diff: dropped" "$tmp/cut.log" ||
	fail "cut: the out-of-diff suggestion is not reported"
grep -q "suggestion 3 has a crs that is not a name" "$tmp/cut.log" ||
	fail "cut: the bad CRS name is not reported"
python3 - "$tmp/cut.jsonl" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
rv = [r for r in reqs if r["url"].endswith("/reviews")]
assert len(rv) == 1 and len(rv[0]["body"]["comments"]) == 1, rv
c = rv[0]["body"]["comments"][0]
assert c["line"] != 151 and "pwned" not in json.dumps(rv), c
ck = [r for r in reqs if r["url"].endswith("/check-runs")][0]["body"]
assert "1 outside the pull request's diff" in ck["output"]["summary"], ck
PY
note "a line outside the diff and a hostile CRS name: dropped with a message"

# the sealed evidence of a finding in released code (disclose) in the
# bundle's private/: filed as a draft security advisory with the advisory
# token (the fake knows one token), only CMS PEM armour taken; a forged
# text file and a link are passed over; without the token, said once
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" \
	-out "$tmp/cert.pem" -days 2 -subj /CN=maintainers 2>/dev/null
rm -rf "$tmp/sealed" && cp -R "$bundle" "$tmp/sealed" && mkdir "$tmp/sealed/private"
printf 'released-bug-pov-%s\0\377' "$$" >"$tmp/pov.bin"
printf '# a crash in released code\n' >"$tmp/details.md"
for x in pov.bin:pov details.md:md; do
	openssl cms -encrypt -binary -aes256 -outform PEM -in "$tmp/${x%%:*}" \
		-out "$tmp/sealed/private/finding-1.${x##*:}.cms" "$tmp/cert.pem"
done
printf '0123456789abcdef\n' >"$tmp/sealed/private/finding-1.id"
printf 'Publish this: the bug is in parse_extended\n' >"$tmp/sealed/private/finding-2.md.cms"
ln -s /etc/passwd "$tmp/sealed/private/finding-3.md.cms"
# the drafts the fake keeps from one publish to the next
export FAKE_GITHUB_DRAFTS=$tmp/drafts.json
extra_env=(CRS_CI_ADVISORY_TOKEN="$token")
publish sealed "$tmp/sealed"
extra_env=()
[ "$rc" -eq 0 ] || { cat "$tmp/sealed.log" >&2; fail "sealed: exit $rc"; }
grep -q 'private/finding-2.md.cms passed over: not one CMS PEM block' "$tmp/sealed.log" ||
	{ cat "$tmp/sealed.log" >&2; fail "sealed: the forged text is not passed over"; }
grep -q 'private/finding-3.md.cms passed over: a sealed file: not a regular file' "$tmp/sealed.log" ||
	fail "sealed: the link is not passed over"
grep -q "1 draft security advisory(ies) filed for 1 sealed finding(s)" "$tmp/sealed.log" ||
	fail "sealed: no advisory filed"
python3 - "$tmp/sealed.jsonl" "$tmp/sealed-pov.pem" <<'PY'
import json, re, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
adv = [r for r in reqs if r["url"].endswith("/security-advisories") and r["method"] == "POST"]
assert len(adv) == 1 and adv[0]["url"] == "/repos/acme/recparse/security-advisories", reqs
assert adv[0]["status"] == 201, adv[0]
b = adv[0]["body"]
assert b["summary"] == "crs-ci: a crash in released code, found on pull request #7 (sealed)", b
assert "parse_extended" not in json.dumps(b), b
assert "crs-ci finding id: 0123456789abcdef\n" in b["description"], b
assert "**unauthenticated**" in b["description"], b
blocks = re.findall(r"-----BEGIN CMS-----\n.*?-----END CMS-----\n", b["description"], re.S)
assert len(blocks) == 2, b["description"]
open(sys.argv[2], "w").write(blocks[1])
PY
openssl cms -decrypt -inform PEM -in "$tmp/sealed-pov.pem" -inkey "$tmp/key.pem" \
	-out "$tmp/pov.back" 2>/dev/null || fail "sealed: the advisory's PoV does not open"
cmp -s "$tmp/pov.bin" "$tmp/pov.back" || fail "sealed: the advisory's PoV is not the PoV"
publish sealed-notoken "$tmp/sealed"
[ "$rc" -eq 0 ] || fail "sealed-notoken: exit $rc"
grep -q "no CRS_CI_ADVISORY_TOKEN: 1 sealed finding(s) in released code were not filed" \
	"$tmp/sealed-notoken.log" || fail "sealed-notoken: not said"
if grep -q "security-advisories" "$tmp/sealed-notoken.jsonl"; then fail "sealed-notoken: an advisory was filed"; fi
note "sealed evidence in the bundle: one draft advisory whose PoV openssl restores; a forged text and a link passed over"
# the same finding again (a rerun, or another pull request): not filed
# twice; four new findings of pull request #7: its drafts stop at three
extra_env=(CRS_CI_ADVISORY_TOKEN="$token")
publish sealed-again "$tmp/sealed"
grep -q "finding-1 (id 0123456789abcdef) has a draft advisory already: not filed again" \
	"$tmp/sealed-again.log" || { cat "$tmp/sealed-again.log" >&2; fail "sealed-again: filed twice"; }
[ "$(grep -c '"method":"POST".*security-advisories' "$tmp/sealed-again.jsonl" || true)" -eq 0 ] ||
	fail "sealed-again: an advisory was posted"
rm -rf "$tmp/sealed4" && cp -R "$tmp/sealed" "$tmp/sealed4"
rm -f "$tmp/sealed4/private/finding-2.md.cms" "$tmp/sealed4/private/finding-3.md.cms"
for n in 2 3 4 5; do
	cp "$tmp/sealed/private/finding-1.md.cms" "$tmp/sealed4/private/finding-$n.md.cms"
	printf '%016x\n' "$n" >"$tmp/sealed4/private/finding-$n.id"
done
publish sealed-cap "$tmp/sealed4"
extra_env=()
unset FAKE_GITHUB_DRAFTS
grep -q "2 draft security advisory(ies) filed for 5 sealed finding(s)" "$tmp/sealed-cap.log" &&
	grep -q "pull request #7 has 3 draft advisories from crs-ci: finding-4 and the rest are not filed" \
	"$tmp/sealed-cap.log" || { cat "$tmp/sealed-cap.log" >&2; fail "sealed-cap: not capped at 3 per pull request"; }
note "a finding filed once across runs; at most 3 drafts per pull request"
# crs-ci init --public writes both workflows; GitHub's schemas take them
rm -rf "$tmp/init" && "$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/init" >/dev/null
(cd "$tmp/init" && "$CRS_CI" init --public --ci github --cpus 4 >"$tmp/init.out") ||
	fail "init --public failed"
for f in crs-ci.yml crs-ci-publish.yml; do
	[ -f "$tmp/init/.github/workflows/$f" ] || fail "init --public did not write $f"
	out=$(cd "$tmp/init" && npx --yes @action-validator/cli ".github/workflows/$f" 2>&1) ||
		fail "action-validator $f: $out"
done
grep -q 'result-bundle: "true"' "$tmp/init/.github/workflows/crs-ci.yml" ||
	fail "the pull_request workflow makes no bundle"
if grep -q "pull-requests: write" "$tmp/init/.github/workflows/crs-ci.yml"; then
	fail "the pull_request workflow asks for pull-requests: write"
fi
note "init --public: both workflows pass action-validator (the actions: test_ci_configs.sh)"
echo "PASS test_two_job"
