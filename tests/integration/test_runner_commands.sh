#!/usr/bin/env bash
# test_runner_commands.sh - CI runner commands in untrusted text (issue 21,
# item 6). The change (tests/fixtures/delta/commands) adds a harness whose
# crash report names "##[stop-commands]harness1234" and "::error::..." as
# functions; the CRS (tests/fixtures/crs-names) submits a PoV, a PoV file
# and a link whose names hold "##[stop-commands]..." and "::error::...".
# The scan runs as in a GitHub Actions step (GITHUB_ACTIONS=true, stdout
# and stderr in one log, as the runner reads them; -v, so debug lines
# name the CRS's files too). Asserts: exit 1, one
# new finding whose function is the harness's "##[stop-commands]..."
# (so the hostile text reached crs-ci), the names reached the log; no
# "##[" and no GitLab section marker anywhere in the output; every line
# GitHub's runner would run as a command (emulated: "::cmd::" at a line's
# start after whitespace, "##[cmd]" anywhere, stop-commands and its
# token) is one of crs-ci's own, and crs-ci's own "::error file=..."
# annotation of the finding is run, not swallowed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
base='' head=''
eval "$("$ROOT/tests/fixtures/delta/make-scenario.sh" commands "$tmp/repo")"
t0=$SECONDS
set +e
env -u GITHUB_EVENT_NAME -u GITHUB_EVENT_PATH -u GITHUB_TOKEN \
	-u GITLAB_CI -u CI_SERVER_URL \
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/summary.md" \
	GITHUB_OUTPUT="$tmp/gh-output" \
	"$CRS_CI" -v scan --compose "$ROOT/tests/fixtures/crs-names/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_commands --timeout 5m \
	--work-dir "$tmp/work" --out "$tmp/out" >"$tmp/step.log" 2>&1
code=$?
set -e
note "scan took $((SECONDS - t0))s"
[ "$code" -eq 1 ] || { cat "$tmp/step.log" >&2; fail "exit $code, want 1"; }
python3 - "$tmp" <<'PY' || { cat "$tmp/step.log" >&2; fail "runner commands in the step's log"; }
import json, re, sys
tmp = sys.argv[1]
res = json.load(open(tmp + "/out/results.json"))
f = res["findings"]
assert len(f) == 1, f
assert f[0]["function"] == "##[stop-commands]harness1234", f[0]["function"]
assert f[0]["novelty"] == "new", f[0]["novelty"]
log = open(tmp + "/step.log", "rb").read().decode("utf-8", "replace")
# GitHub's runner, emulated (actions/runner ActionCommand.TryParseV2,
# TryParse and ActionCommandManager.TryProcessCommand)
known = {"stop-commands", "error", "warning", "notice", "debug", "group",
         "endgroup", "add-mask", "set-output", "set-env", "add-path",
         "save-state", "echo", "add-matcher", "remove-matcher"}
def parse(line, reg):
    m = line.lstrip()
    if m.startswith("::") and m.find("::", 2) > 0:
        end = m.find("::", 2)
        name = m[2:end].split(" ", 1)[0]
        if name.lower() in reg:
            return name.lower(), m[end + 2:]
    i = line.find("##[")
    if i >= 0 and line.find("]", i) > 0:
        rb = line.find("]", i)
        name = line[i + 3:rb].split(" ", 1)[0]
        if name.lower() in reg:
            return name.lower(), line[rb + 1:]
    return None
ran, token = [], None
for line in log.split("\n"):
    cmd = parse(line, known | ({token.lower()} if token else set()))
    if not cmd:
        continue
    if token:
        if cmd[0] == token.lower():
            token = None
        continue
    if cmd[0] == "stop-commands":
        assert re.fullmatch(r"[0-9a-f]{32}", cmd[1]), "stop-commands " + line
        token = cmd[1]
        continue
    ran.append((cmd[0], line))
own = re.compile(r"::(error|warning|notice) (file=|title=crs-ci)|"
                 r"::group::crs-ci: |::endgroup::$")
for name, line in ran:
    assert own.match(line), "not crs-ci's own: " + line
errors = [l for n, l in ran if n == "error" and l.startswith("::error file=")]
assert len(errors) == 1, ran
assert "##%5Bstop-commands]harness1234" in errors[0], errors[0]
# the hostile texts reached the log, neutralised
assert "##\\x5bstop-commands]harness1234" in log, "function not in the log"
assert "##\\x5bstop-commands]name1234" in log, "file name not in the log"
assert "##\\x5bstop-commands]link1234" in log, "link name not in the log"
assert "##%5Bstop-commands]harness1234" in log, "not in the annotation"
assert "##[" not in log, [l for l in log.splitlines() if "##[" in l][:5]
assert "\r\x1b[0K" not in log, "a GitLab section marker"
print("ran %d command(s), all crs-ci's own; its ::error file= annotation "
      "ran" % len(ran))
PY
assert_no_leftovers "$tmp/work"
