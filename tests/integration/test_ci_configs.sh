#!/usr/bin/env bash
# test_ci_configs.sh - the GitHub Action, its example workflows and
# crs-ci's own workflows (.github/workflows/: ci, release) pass
# @action-validator/cli (GitHub's action.yml and workflow schemas), and
# the action's scan step turns its inputs into crs-ci scan options.
# ClusterFuzzLite's words keep their meaning: fuzz-seconds is the total
# fuzzing time, min-harness-seconds the per-harness minimum, and every
# input of the action or the GitLab template named after a crs-ci option
# passes that option; the SARIF upload is codeql-action v4 and crs-ci's
# output is one artifact.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
shopt -s nullglob
files=(actions/action.yml actions/publish/action.yml actions/examples/*.yml .github/workflows/*.yml)
for want in .github/workflows/ci.yml .github/workflows/release.yml; do
	[ -f "$want" ] || fail "$want is missing"
done
for f in "${files[@]}"; do
	out=$(npx --yes @action-validator/cli "$f" 2>&1) || fail "$f: $out"
	note "$f: valid"
done

# The scan step turns the inputs into crs-ci options: run it with a fake
# crs-ci that records its arguments.
mktemp_dir; tmp=$TMP
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "$ARGS_LOG"\n' > "$tmp/bin/crs-ci"
chmod +x "$tmp/bin/crs-ci"
action_step scan > "$tmp/scan.sh"
scan_step() {	# NAME VAR=VALUE...: the scan step with these inputs
	local name=$1
	shift
	: > "$tmp/$name.out"
	env PATH="$tmp/bin:$PATH" ARGS_LOG="$tmp/$name.args" \
		COMPOSE=c.yaml PROJECT="" SOURCE=. TIMEOUT=15m FAIL_ON=new \
		HARNESSES="" ALLOW_ENV="" BASE="" HEAD=h CACHE_DIR=cache \
		WORK_DIR=/runner/crs-ci-work OUT_DIR=/runner/crs-ci-out \
		FORK=false GITHUB_OUTPUT="$tmp/$name.out" "$@" \
		bash "$tmp/scan.sh" >"$tmp/$name.log" 2>&1 || true
}
scan_step defaults SANITIZER="" CATEGORY="" FUZZ_SECONDS="" \
	MIN_HARNESS_SECONDS="" REPORT_TIMEOUTS=true REPORT_OOMS=true
for o in --sanitizer --sarif-category --fuzz-seconds --min-harness-seconds \
    --report-timeouts --report-ooms; do
	! grep -qx -- "$o" "$tmp/defaults.args" || fail "defaults: $o passed"
done
grep -qx "artifact=crs-ci-results" "$tmp/defaults.out" || fail "defaults: artifact name"
tr '\n' ' ' < "$tmp/defaults.args" > "$tmp/defaults.line"
for want in "--out /runner/crs-ci-out" "--work-dir /runner/crs-ci-work"; do
	grep -q -- "$want " "$tmp/defaults.line" || fail "defaults: no '$want' in: $(cat "$tmp/defaults.line")"
done
scan_step matrix SANITIZER=undefined CATEGORY=crs-ci-ubsan FUZZ_SECONDS=600 \
	MIN_HARNESS_SECONDS=120 REPORT_TIMEOUTS=false REPORT_OOMS=false
tr '\n' ' ' < "$tmp/matrix.args" > "$tmp/matrix.line"
for want in "--report-timeouts no" "--report-ooms no" "--sanitizer undefined" \
	"--sarif-category crs-ci-ubsan" "--fuzz-seconds 600" \
	"--min-harness-seconds 120"; do
	grep -q -- "$want " "$tmp/matrix.line" || fail "inputs: no '$want' in: $(cat "$tmp/matrix.line")"
done
grep -qx "artifact=crs-ci-crs-ci-ubsan" "$tmp/matrix.out" || fail "inputs: artifact name"
scan_step bad REPORT_OOMS=maybe
grep -qx "exit-code=2" "$tmp/bad.out" || fail "report-ooms: maybe was not refused"
grep -q "report-ooms must be true or false" "$tmp/bad.log" || fail "report-ooms: no message"
note "the scan step passes sanitizer, category, fuzz-seconds, min-harness-seconds and report-* as crs-ci options"

# ClusterFuzzLite's words: fuzz-seconds is the total (crs-ci's own
# --fuzz-seconds), the per-harness minimum has another name; the SARIF
# upload is codeql-action v4; crs-ci's output is uploaded once, by the
# action's own artifact step
python3 - actions/action.yml <<'PY'
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
assert "Total fuzzing time" in a["inputs"]["fuzz-seconds"]["description"], a["inputs"]["fuzz-seconds"]
assert "Minimum" in a["inputs"]["min-harness-seconds"]["description"]
uses = [s.get("uses", "") for s in a["runs"]["steps"]]
sarif = [u for u in uses if u.startswith("github/codeql-action/upload-sarif")]
assert sarif == ["github/codeql-action/upload-sarif@v4"], sarif
# one artifact of crs-ci's output; the result bundle only in the two-job mode
arts = [s for s in a["runs"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
assert len(arts) == 2, uses
assert "inputs.result-bundle == 'true'" in arts[1]["if"], arts[1]
PY
for f in actions/examples/*.yml docs/*.md docs/cmd/*.md README.md actions/README.md \
    gitlab/README.md; do
	! grep -n "codeql-action/upload-sarif@v[0-3]\b" "$f" || fail "$f: upload-sarif older than v4"
done
for f in actions/examples/*.yml; do
	# the action uploads crs-ci's output itself (upload-artifacts)
	! grep -n "crs-ci-out" "$f" | grep -v "^[0-9]*: *#" || fail "$f: uploads crs-ci-out again"
done
note "fuzz-seconds is the total, min-harness-seconds the minimum; upload-sarif@v4; one artifact"

# An input named after a crs-ci scan option passes that option, in the
# action and in the GitLab template: the same word, the same meaning
"$CRS_CI" help scan >"$tmp/help.txt"
python3 - "$tmp/help.txt" actions/action.yml gitlab/crs-ci.gitlab-ci.yml <<'PY'
import re, sys, yaml
opts = set(re.findall(r"^  --([a-z-]+)", open(sys.argv[1]).read(), re.M))
assert {"fuzz-seconds", "min-harness-seconds"} <= opts, opts
for path in sys.argv[2:]:
    text = open(path).read()
    docs = list(yaml.safe_load_all(text))
    inputs = docs[0]["inputs"] if "inputs" in docs[0] else docs[0]["spec"]["inputs"]
    named = sorted(n for n in inputs if n in opts)
    assert {"fuzz-seconds", "min-harness-seconds"} <= set(named), (path, named)
    for n in named:
        assert re.search(r"--%s[ \"]" % re.escape(n), text), f"{path}: input {n} does not pass --{n}"
    print(f"  - {path}: inputs {', '.join(named)} pass their crs-ci options",
          file=sys.stderr)
PY
