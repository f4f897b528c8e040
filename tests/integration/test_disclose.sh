#!/usr/bin/env bash
# test_disclose.sh - the disclosure policy (--disclose auto, the default)
# on a public repository's pull request whose base already has a bug.
#
# The report phase reads only results.json, so the scan's output is a
# fixture (tests/fixtures/disclose/: the results of test_preexisting.sh's
# scan of examples/projects/recparse, plus a bug the pull request adds)
# and this runs in seconds. The pre-existing finding's PoV carries a
# unique marker; no byte of it, nor its crash type, file or function,
# may reach the log, the annotations, the job summary, the step outputs,
# the SARIF, report.html, the GitLab reports or the output folder; the
# pull request's own bug stays public. The draft security advisory (fake
# GitHub) and the confidential issue (fake GitLab) get the PoV sealed to
# the maintainers' certificate; `openssl cms -decrypt` and `crs-ci
# decrypt` restore it byte for byte. Hostile: a malformed
# CRS_CI_DISCLOSE_KEY is refused by name and leaves nothing public.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
fix="$ROOT/tests/fixtures/disclose"
mkdir -p "$tmp/src"
fakes=()
trap 'for p in "${fakes[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

# the maintainers' certificate (trusted CI configuration) and key
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" \
	-out "$tmp/cert.pem" -subj /CN=maintainers -days 2 2>/dev/null
cert=$(cat "$tmp/cert.pem")
# the released bug's PoV: a marker, binary bytes, random bytes
{ printf 'CRSCI-DISCLOSE-POV-7f3a9c\0\001\377'; head -c 256 /dev/urandom; } \
	>"$tmp/pov.orig"
printf 'the-pull-requests-own-bug' >"$tmp/pov.new"
old_sha=$(sha256sum "$tmp/pov.orig" | cut -d' ' -f1)
new_sha=$(sha256sum "$tmp/pov.new" | cut -d' ' -f1)
# install DIR: the scan's output folder, before its report phase
install_out() {
	mkdir -p "$1/povs"
	cp -r "$fix/reports" "$1/"
	cp "$tmp/pov.orig" "$1/povs/$old_sha"
	cp "$tmp/pov.new" "$1/povs/$new_sha"
	sed -e "s|@SOURCE@|$tmp/src|; s|@WORK@|$tmp/work|" \
		-e "s|@POV_OLD@|$old_sha|g; s|@POV_NEW@|$new_sha|g" \
		"$fix/results.json" >"$1/results.json"
}
for n in github gitlab; do
	N=$(echo "$n" | tr a-z A-Z)
	cc -std=c11 -D_GNU_SOURCE -DFAKE_${N}_MAIN -I"$ROOT" -o "$tmp/fake-$n" \
		"$ROOT/tests/helper/fake_$n.c" "$ROOT/tests/helper/mhd_fake.c" \
		$(pkg-config --cflags --libs libmicrohttpd jansson) -lpthread ||
		fail "building the fake $n"
done
event() {	# event PRIVATE: a pull_request event of repository o/r
	cat <<JSON
{"pull_request": {"number": 5,
  "base": {"sha": "$(printf '1%.0s' {1..40})", "ref": "main", "repo": {"full_name": "o/r"}},
  "head": {"sha": "$(printf '2%.0s' {1..40})", "ref": "f", "repo": {"full_name": "o/r"}}},
 "repository": {"full_name": "o/r", "private": $1}}
JSON
}
event false >"$tmp/public.json"
event true >"$tmp/private.json"
gh() {	# gh NAME EVENT [VAR=value...]: crs-ci report as a GitHub job
	local name=$1 ev=$2
	shift 2
	install_out "$tmp/$name"
	env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
		GITHUB_EVENT_PATH="$tmp/$ev.json" GITHUB_REPOSITORY=o/r \
		GITHUB_STEP_SUMMARY="$tmp/$name.summary.md" \
		GITHUB_OUTPUT="$tmp/$name.output" "$@" \
		"$CRS_CI" report --out "$tmp/$name" --work-dir "$tmp/work" \
		>"$tmp/$name.stdout" 2>"$tmp/$name.log"
}
# public outputs of NAME: nothing of the released bug, the PR's bug there
clean() {
	python3 - "$tmp/pov.orig" "$tmp" "$@" <<'PY'
import base64, binascii, hashlib, os, sys
pov = open(sys.argv[1], "rb").read()
tmp = sys.argv[2]
needles = [b"CRSCI-DISCLOSE-POV", pov, pov[:32], base64.b64encode(pov)[:40],
           binascii.hexlify(pov)[:40], hashlib.sha256(pov).hexdigest().encode(),
           b"Heap-buffer-overflow", b"heap-buffer-overflow", b"HeapBufferOverflow",
           b"parse_extended", b"recparse.c", b"5fb06a3a1fda5ee1"]
for name in sys.argv[3:]:
    paths = [os.path.join(tmp, name + s) for s in (".stdout", ".log",
             ".summary.md", ".output")]
    for d, _, fs in os.walk(os.path.join(tmp, name)):
        paths += [os.path.join(d, f) for f in fs if "/private" not in d]
    seen_new = False
    for p in paths:
        if not os.path.exists(p):
            continue
        data = open(p, "rb").read()
        for n in needles:
            assert n not in data, "%s holds %r" % (p, n[:40])
        seen_new |= b"rp_new_feature" in data
    assert seen_new, name + ": the pull request's own bug is not public"
    sarif = os.path.join(tmp, name, "results.sarif")
    assert os.path.exists(sarif), sarif
PY
}
pov_back() {	# pov_back FILE WHAT: both tools restore the PoV
	openssl cms -decrypt -inform PEM -in "$1" -inkey "$tmp/key.pem" \
		-binary -out "$tmp/back.openssl" || fail "$2: openssl cms -decrypt"
	cmp -s "$tmp/pov.orig" "$tmp/back.openssl" || fail "$2: openssl cms: not the PoV"
	"$CRS_CI" decrypt --key "$tmp/key.pem" "$1" >"$tmp/back.crs-ci" ||
		fail "$2: crs-ci decrypt"
	cmp -s "$tmp/pov.orig" "$tmp/back.crs-ci" || fail "$2: crs-ci decrypt: not the PoV"
}

# 1. GitHub, public repository, advisory token and key: a draft advisory
gh_token="ghp-advisory-$$"
echo '[]' >"$tmp/none.json"
coproc FAKE_GH { exec "$tmp/fake-github" "$gh_token" "$tmp/none.json" \
	"$tmp/none.json" "$tmp/gh-requests.jsonl"; }
# bash unsets FAKE_GH_PID once the coprocess is reaped: keep the pid
gh_pid=$FAKE_GH_PID
fakes+=("$gh_pid")
read -r gh_api <&"${FAKE_GH[0]}"
gh gh public GITHUB_API_URL="$gh_api" CRS_CI_ADVISORY_TOKEN="$gh_token" \
	CRS_CI_DISCLOSE_KEY="$cert" || [ $? -eq 1 ] ||
	{ cat "$tmp/gh.log" >&2; fail "report (GitHub)"; }
kill -TERM "$gh_pid"; wait "$gh_pid" || true
grep -q "1 finding in released code was reported privately to the maintainers" \
	"$tmp/gh.summary.md" || fail "the job summary has no count line"
grep -q "1 draft security advisory(ies) made" "$tmp/gh.log" ||
	{ cat "$tmp/gh.log" >&2; fail "no advisory made"; }
clean gh
[ "$(ls "$tmp/gh/private")" = "$(printf 'finding-1.id\nfinding-1.md.cms\nfinding-1.pov.cms')" ] ||
	fail "private/: $(ls "$tmp/gh/private")"
grep -qx "[0-9a-f]\{16\}" "$tmp/gh/private/finding-1.id" ||
	fail "private/finding-1.id is not the finding's id"
pov_back "$tmp/gh/private/finding-1.pov.cms" "the artifact's sealed PoV"
grep -rqF "$gh_token" "$tmp/gh" "$tmp/gh.log" "$tmp/gh.stdout" &&
	fail "the advisory token was written"
python3 - "$tmp/gh-requests.jsonl" "$tmp/advisory.cms" <<'PY'
import json, re, sys
reqs = [json.loads(line) for line in open(sys.argv[1])]
a = [q for q in reqs if q["method"] == "POST" and
     q["url"].endswith("/security-advisories")]
assert len(a) == 1 and a[0]["url"] == "/repos/o/r/security-advisories", reqs
assert a[0]["status"] == 201, a
b = a[0]["body"]
assert b["severity"] == "critical" and b["cwe_ids"] == ["CWE-122"], b
assert b["vulnerabilities"] == [{"package": {"ecosystem": "other", "name": "recparse"}}], b
d = b["description"]
assert len(d) <= 65535 and "parse_extended" in d and "AddressSanitizer" in d, d
m = re.search(r"-----BEGIN CMS-----\n.*?-----END CMS-----\n", d, re.S)
open(sys.argv[2], "w").write(m.group(0))
PY
pov_back "$tmp/advisory.cms" "the advisory's PoV"

# 2. GitLab, public project, api-scope token and key: a confidential issue
gl_token="glpat-test-$$"
coproc FAKE_GL { exec "$tmp/fake-gitlab" "$gl_token" 42 7 "$tmp/gitlab.jsonl"; }
gl_pid=$FAKE_GL_PID
fakes+=("$gl_pid")
read -r gl_api <&"${FAKE_GL[0]}"
install_out "$tmp/gl"
env GITLAB_CI=true CI_PROJECT_VISIBILITY=public CI_API_V4_URL="$gl_api" \
	CI_PROJECT_ID=42 CRS_CI_GITLAB_TOKEN="$gl_token" CRS_CI_DISCLOSE_KEY="$cert" \
	"$CRS_CI" report --out "$tmp/gl" --work-dir "$tmp/work" >"$tmp/gl.stdout" 2>"$tmp/gl.log" ||
	[ $? -eq 1 ] || { cat "$tmp/gl.log" >&2; fail "report (GitLab)"; }
kill -TERM "$gl_pid"; wait "$gl_pid" || true
[ -s "$tmp/gl/gl-sast-report.json" ] || fail "no SAST report"
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"runs\"][0]; assert r[\"properties\"][\"privateFindings\"] == 1 and len(r[\"results\"]) == 1, r[\"properties\"]" "$tmp/gl/results.sarif" || fail "the SARIF does not count the private finding"
clean gl
python3 - "$tmp/gitlab.jsonl" "$tmp/issue.cms" <<'PY'
import json, re, sys
q = [json.loads(l) for l in open(sys.argv[1])]
q = [x for x in q if x["url"] == "/api/v4/projects/42/issues"]
assert len(q) == 1 and q[0]["status"] == 201 and q[0]["method"] == "POST", q
b = q[0]["body"]
assert b["confidential"] is True and "parse_extended" in b["description"], b
m = re.search(r"-----BEGIN CMS-----\n.*?-----END CMS-----\n", b["description"], re.S)
open(sys.argv[2], "w").write(m.group(0))
PY
pov_back "$tmp/issue.cms" "the confidential issue's PoV"

# 3. a malformed key: refused by name (exit 2), nothing private public
set +e
gh bad public CRS_CI_DISCLOSE_KEY="-----BEGIN CERTIFICATE-----
bm90IGEgY2VydGlmaWNhdGU=
-----END CERTIFICATE-----"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/bad.log" >&2; fail "malformed key: exit $code, want 2"; }
grep -q "CRS_CI_DISCLOSE_KEY: not a valid PEM certificate" "$tmp/bad.log" ||
	{ cat "$tmp/bad.log" >&2; fail "malformed key: no clear message"; }
[ ! -e "$tmp/bad/private" ] || fail "malformed key: evidence written"
clean bad

# 4. no advisory token: said once; the sealed evidence is all there is
gh notoken public CRS_CI_DISCLOSE_KEY="$cert" || [ $? -eq 1 ] ||
	{ cat "$tmp/notoken.log" >&2; fail "report without a token"; }
[ "$(grep -c "no CRS_CI_ADVISORY_TOKEN" "$tmp/notoken.log")" -eq 1 ] ||
	{ cat "$tmp/notoken.log" >&2; fail "the missing token is not said once"; }
clean notoken

# 5. a private repository: auto publishes both findings to its members
gh private private || [ $? -eq 1 ] || fail "report (private repository)"
grep -qF 'Heap\-buffer\-overflow' "$tmp/private.summary.md" &&
	grep -q "recparse.c" "$tmp/private/results.sarif" ||
	fail "private repository: the pre-existing finding was hidden"
[ ! -e "$tmp/private/private" ] || fail "private repository: evidence sealed"
note "released bug: count only in public, sealed PoV in the draft advisory and the confidential issue, restored by openssl cms and crs-ci decrypt; malformed key refused"
