#!/usr/bin/env bash
# test_gitlab_llm_label.sh - on GitLab, the maintainers' LLM label counts
# only for the head it was set on (issue 42 part 2). The GitLab
# template's own LLM block (gitlab/crs-ci.gitlab-ci.yml, cut out and run
# by bash with a fork merge request's variables) against a fake of
# GitLab's API (tests/helper/fake_gitlab.c: two versions of the merge
# request; "crs-ci-llm" added between them, "llm-now" after the newest,
# "llm-removed" added and removed after it):
#   - the label set before a newer commit: --no-llm, "set before this
#     head", although CI_MERGE_REQUEST_LABELS still lists it;
#   - the same label for the older head it was set on: LLM CRSs may run;
#   - a label added after the head: may run; added and removed: --no-llm;
#   - no token: --no-llm, saying why; the token is in no output.
# Needs no Docker engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP

fake_gitlab_build "$tmp/fake-gitlab"
token="glpat-llm-label-$$"
coproc FAKE_GL { exec "$tmp/fake-gitlab" "$token" 42 7 "$tmp/requests.jsonl"; }
gl_pid=$FAKE_GL_PID
trap 'kill -TERM "$gl_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
read -r api <&"${FAKE_GL[0]}"
new=3333333333333333333333333333333333333333	# FAKE_GITLAB_HEAD
old=4444444444444444444444444444444444444444	# FAKE_GITLAB_OLD_HEAD

# the template's LLM block, from "llm_label=" to its closing "fi", with
# the component input filled in; prints the scan arguments it adds
python3 - "$ROOT/gitlab/crs-ci.gitlab-ci.yml" "$tmp/block.sh" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.strip().startswith('llm_label="$[[ inputs.llm-label ]]"'))
end = next(i for i in range(start + 1, len(lines)) if lines[i] == "      fi")
body = "\n".join(l[6:] for l in lines[start:end + 1])
body = body.replace('"$[[ inputs.llm-label ]]"', '"$LLM_LABEL_INPUT"')
assert "$[[" not in body, body
open(sys.argv[2], "w").write("set -eu\nset --\n" + body + '\n[ $# -eq 0 ] || printf "%s\\n" "$@"\n')
PY
# run LABEL HEAD [TOKEN]: the block's arguments in $tmp/args
run() {
	LLM_LABEL_INPUT=$1 CI_COMMIT_SHA=$2 CRS_CI_GITLAB_TOKEN=${3-$token} \
	CI_MERGE_REQUEST_SOURCE_PROJECT_ID=99 CI_MERGE_REQUEST_PROJECT_ID=42 \
	CI_MERGE_REQUEST_LABELS="bug,$1" \
	CI_API_V4_URL=$api CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=7 \
	GITLAB_CI=true CRS_CI_BIN=$CRS_CI GITLAB_TOKEN="" \
		bash "$tmp/block.sh" >"$tmp/args" 2>"$tmp/stderr" ||
		{ cat "$tmp/stderr" >&2; fail "the template's LLM block failed"; }
}
# expect yes|no WHY
expect() {
	if [ "$1" = yes ]; then
		! grep -qx -- --no-llm "$tmp/args" || fail "--no-llm: $(cat "$tmp/args")"
	else
		grep -qx -- --no-llm "$tmp/args" || fail "no --no-llm: $(cat "$tmp/args")"
	fi
	grep -q -- "$2" "$tmp/args" || fail "reason: $(cat "$tmp/args"), want $2"
	if grep -qF "$token" "$tmp/args" "$tmp/stderr"; then
		fail "the token was printed"
	fi
}

run crs-ci-llm "$new"
expect no "a merge request from a fork: the maintainers' label 'crs-ci-llm' was set before this head (333333333333) was pushed"
note "label set before the newest commit (still in CI_MERGE_REQUEST_LABELS): $(grep -v -- --no-llm "$tmp/args" | tail -n 1)"
run crs-ci-llm "$old"
expect yes "was set after this head (444444444444) was pushed: LLM CRSs may run"
run llm-now "$new"
expect yes "'llm-now' was set after this head"
run llm-removed "$new"
expect no "without the maintainers' label 'llm-removed'"
note "the label counts for the head it was set on, not after a push or a removal"
run llm-now "$new" ""
expect no "cannot check when the maintainers' label 'llm-now' was set"
grep -q "CRS_CI_GITLAB_TOKEN" "$tmp/stderr" || fail "no token: $(cat "$tmp/stderr")"
note "no token: $(tail -n 1 "$tmp/args")"
# a merge request from the project itself: the block adds nothing
CI_MERGE_REQUEST_SOURCE_PROJECT_ID=42 CI_MERGE_REQUEST_PROJECT_ID=42 \
	LLM_LABEL_INPUT=crs-ci-llm CRS_CI_BIN=/nonexistent bash "$tmp/block.sh" >"$tmp/args"
[ ! -s "$tmp/args" ] || fail "same-project MR: $(cat "$tmp/args")"

kill -TERM "$gl_pid"
wait "$gl_pid" || true
python3 - "$tmp/requests.jsonl" "$token" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert reqs and all(r["method"] == "GET" for r in reqs), reqs
assert {r["url"].rsplit("/", 1)[1] for r in reqs} == {"versions", "resource_label_events"}, reqs
PY
note "only GETs of versions and label events were sent"
