#!/usr/bin/env bash
# test_llm_patcher.sh - the LLM patching CRS (container/crs/llm-patcher)
# end to end, against a test fake of the model provider.
#
# crs-libfuzzer finds the recparse example's bug; crs-llm-patcher asks
# the fake (through crs-ci's LLM gateway) for a patch, checks it with the
# builder sidecar and submits the first that passes; crs-ci validates
# what was submitted. The fake (tests/helper/fake_llm.c, built static once)
# answers from one reply set of tests/fixtures/llm-patcher/replies/ per
# case and logs every request body:
#   good      the known fix: validated (policy, apply, build, povs, tests
#             "no tests", refuzz for --refuzz-seconds 5), written as
#             patches/<sha12>.patch that `git apply --check` accepts on
#             the head, and a SARIF fix;
#   retry     a patch that does not apply, then the fix: validated, and
#             the second request to the provider carries the apply error;
#   fuzzy     the fix with a context line off: the sidecar applies it
#             with git apply -C1, the patcher rewrites it as the clean
#             diff (the known fix, byte for byte), crs-ci validates it;
#   no-apply, no-build, no-stop
#             every attempt fails at apply / build / pov: nothing is
#             submitted, no validated patch, no SARIF fix;
#   harness   a patch of the fuzz harness: passes the patcher's checks, is
#             submitted, and crs-ci refuses it at policy: no SARIF fix;
#   budget    as no-apply, with compose-budget.yaml: a budget of $0.025
#             that the first request leaves too little of for a second,
#             which the gateway refuses (429); the patcher stops there.
# The first case is a whole scan; the others re-run `crs-ci run` and
# `crs-ci report` on its work folder (the target and CRS builds are
# reused), each into its own output folder. No key (provider or CRS)
# appears in any file under the work or output folders, and no container
# or network of the test is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
mktemp_dir; tmp=$TMP
fixture=$ROOT/tests/fixtures/llm-patcher
fake_llm_names llmp

# --- the static crs-ci (the gateway) and the static fake provider -------
build_static_fake_llm "$tmp/bin"
docker network create "$net" >/dev/null
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"

# start_fake CASE: the provider, answering from replies/CASE, logging
# every request body to $tmp/fake-CASE/requests.jsonl.
start_fake() {
	fake_llm_start "$tmp/bin" "$fixture/replies/$1" "$tmp/fake-$1"
}

# run_case CASE COMPOSE: the scan (first case) or the run and report
# phases again, into $tmp/out-CASE; the log in $tmp/log-CASE.txt.
# Sets $code, $case_s and $logdir (the patcher's log folder).
first=1
run_case() {
	local c=$1 compose=$2 ts common rid
	start_fake "$c"
	common=(--compose "$compose" --project "$ROOT/examples/projects/recparse"
		--source "$tmp/repo" --base "$base" --head "$head"
		--harness fuzz_records --timeout 6m --refuzz-seconds 5
		--work-dir "$tmp/work" --out "$tmp/out-$c")
	ts=$(date +%s)
	set +e
	if [ "$first" = 1 ]; then
		CRS_CI_LLM_NETWORK=$net FAKE_LLM_API_KEY=$key "$CRS_CI" scan \
			"${common[@]}" >"$tmp/verdict-$c.txt" 2>"$tmp/log-$c.txt"
		code=$?
		first=0
	else
		CRS_CI_LLM_NETWORK=$net FAKE_LLM_API_KEY=$key "$CRS_CI" run \
			"${common[@]}" >/dev/null 2>"$tmp/log-$c.txt"
		code=$?
		if [ "$code" -eq 0 ]; then
			"$CRS_CI" report "${common[@]}" >"$tmp/verdict-$c.txt" \
				2>>"$tmp/log-$c.txt"
			code=$?
		fi
	fi
	set -e
	case_s=$(($(date +%s) - ts))
	rid=$(python3 -c "import json;print(json.load(open('$tmp/work/scan.json'))['run_id'])")
	logdir=$tmp/work/runs/$rid/crs/crs-llm-patcher/LOG_DIR/fuzz_records
	[ -d "$logdir" ] || { cat "$tmp/log-$c.txt" >&2; fail "$c: no patcher log folder $logdir"; }
	cat "$tmp/verdict-$c.txt" >&2
	sed 's/^/    patcher: /' "$logdir/attempts.jsonl" >&2 || true
	# nothing of this run left on the engine: its owner is the run id's
	# suffix ("<time>-<owner suffix>")
	local owner=crs-ci-${rid#*-} left
	left=$(($(docker ps -aq --filter "label=io.crs-ci.owner=$owner" | wc -l) +
		$(docker network ls -q --filter "label=io.crs-ci.owner=$owner" | wc -l)))
	[ "$left" -eq 0 ] || fail "$c: $left container(s)/network(s) of $owner left"
	[ "$(docker network inspect -f '{{len .Containers}}' "$net")" = 1 ] ||
		fail "$c: something of the run is still on $net"
}

# check_case CASE: results.json, SARIF and attempts.jsonl against what the
# case wants (python below), given the known fix.
check_case() {
	python3 - "$1" "$tmp/out-$1" "$logdir" "$tmp/fake-$1/requests.jsonl" \
		"$fixture/../crs-patcher/patches/01-good-bounds-check.patch" <<'PY'
import hashlib, json, os, sys
case, out, logdir, reqlog, fix = sys.argv[1:]
fix_sha = hashlib.sha256(open(fix, "rb").read()).hexdigest()
res = json.load(open(os.path.join(out, "results.json")))
assert len(res["findings"]) == 1, res["findings"]
f = res["findings"][0]
patches = {p["sha256"]: p for p in res.get("patches", [])}
sarif = json.load(open(os.path.join(out, "results.sarif")))
fixes = sarif["runs"][0]["results"][0].get("fixes", [])
att = [json.loads(l) for l in open(os.path.join(logdir, "attempts.jsonl"))]
reqs = [json.loads(l) for l in open(reqlog)]
steps = [(a["attempt"], a["step"], a["verdict"]) for a in att]
names = ["policy", "apply", "build", "povs", "tests", "refuzz"]

def validated(sha):
    p = patches[sha]
    assert p["validated"] is True and p["failed_step"] is None, p
    assert [s["name"] for s in p["steps"]] == names, p["steps"]
    for s in p["steps"]:
        want = "no tests" if s["name"] == "tests" else "passed"
        assert s["verdict"] == want, s
    # --refuzz-seconds 5: the patched build fuzzed for up to 5 s
    assert "fuzzed for up to 5s" in p["steps"][-1]["detail"], p["steps"][-1]
    assert p["crs"] == "crs-llm-patcher", p["crs"]
    assert p["path"] == "patches/%s.patch" % sha[:12], p["path"]
    assert os.path.isfile(os.path.join(out, p["path"]))
    assert p["fixes"] == [f["id"]] and f["fixed_by"] == [sha], (p, f)
    assert len(fixes) == 1 and sha[:12] in fixes[0]["description"]["text"]
    ch = fixes[0]["artifactChanges"]
    assert len(ch) == 1, ch
    assert ch[0]["artifactLocation"]["uri"] == "src/recparse.c", ch
    rep = ch[0]["replacements"]
    assert "seglen > total - off" in rep[0]["insertedContent"]["text"], rep

def nothing():
    assert not patches, list(patches)
    assert not fixes, fixes
    assert not f.get("fixed_by"), f
    assert not [a for a in att if a.get("submitted")], att

if case == "good":
    assert steps == [(1, "tests", "passed")], steps
    assert att[0]["patch_sha256"] == fix_sha and att[0]["submitted"]
    assert len(patches) == 1, list(patches)
    validated(fix_sha)
    assert len(reqs) == 1 and reqs[0]["model"] == "fake-patcher", reqs
    user = reqs[0]["messages"][1]["content"]
    # the prompt: the crash report, the change's diff, the stack's source
    for want in ("heap-buffer-overflow", "parse_extended", "+++ b/src/recparse.c",
                 "The file src/recparse.c", "memcpy(rec->value + off"):
        assert want in user, want
elif case == "retry":
    assert steps == [(1, "apply", "failed"), (2, "tests", "passed")], steps
    assert "does not apply" in att[0]["detail"], att[0]
    assert att[1]["patch_sha256"] == fix_sha
    validated(fix_sha)
    assert len(reqs) == 2, len(reqs)
    last = reqs[1]["messages"][-1]["content"]
    assert "failed at the apply step" in last, last
    assert "does not apply to the head" in last and "patch failed" in last, last
    assert "does not apply" not in json.dumps(reqs[0])
elif case in ("no-apply", "no-build", "no-stop"):
    step = {"no-apply": "apply", "no-build": "build", "no-stop": "pov"}[case]
    assert steps == [(n, step, "failed") for n in (1, 2, 3)], steps
    assert [a.get("repeat_of") for a in att] == [None, 1, 1], att
    nothing()
    assert len(reqs) == 3, len(reqs)
    why = {"apply": "does not apply", "build": "build failed",
           "pov": "still crashes"}[step]
    assert why in att[0]["detail"], att[0]
    # the last prompt carries the failure's output
    last = reqs[2]["messages"][-1]["content"]
    assert "failed at the %s step" % step in last, last
    want = {"apply": "patch failed", "build": "error:",
            "pov": "AddressSanitizer"}[step]
    assert want in last, (want, last)
elif case == "harness":
    assert steps == [(1, "tests", "passed")], steps
    sha = att[0]["patch_sha256"]
    assert list(patches) == [sha], list(patches)
    p = patches[sha]
    assert p["validated"] is False and p["failed_step"] == "policy", p
    assert "harness" in p["failure"], p["failure"]
    assert p["fixes"] == [] and not fixes and not f.get("fixed_by"), (p, fixes)
    assert p["path"] == "patches/rejected/%s.patch" % sha[:12], p["path"]
elif case == "fuzzy":
    # context off by a line: the sidecar applies it with git apply -C1,
    # the patcher rewrites it as the clean diff that change makes (the
    # known fix, byte for byte), which crs-ci validates
    assert steps == [(1, "tests", "passed")], steps
    assert att[0]["rewritten_from"] == "git apply -C1", att[0]
    assert att[0]["submitted"], att[0]
    sub = open(os.path.join(logdir, "attempt-1.patch"), "rb").read()
    assert hashlib.sha256(sub).hexdigest() == fix_sha, sub
    assert os.path.isfile(os.path.join(logdir, "attempt-1.patch.fuzzy"))
    assert len(patches) == 1, list(patches)
    validated(fix_sha)
elif case == "budget":
    assert steps == [(1, "apply", "failed"), (2, "reply", "budget")], steps
    assert "429" in att[1]["detail"], att[1]
    nothing()
    assert len(reqs) == 1, len(reqs)
    spend = json.load(open(os.path.join(out, "llm-spend.json")))
    c = spend["crs"]["crs-llm-patcher"]
    assert c["requests"] == 1 and c["refusals"] == 1, c
    assert c["dollars"] <= c["budget_dollars"], c
print("  - %s: attempts %s" % (case, " ".join("%d:%s:%s" % s for s in steps)),
      file=sys.stderr)
PY
}

timings=()
for c in good retry fuzzy harness no-apply no-build no-stop budget; do
	compose=$fixture/compose.yaml
	[ "$c" = budget ] && compose=$fixture/compose-budget.yaml
	run_case "$c" "$compose"
	# the finding fails the policy in every case: exit 1 from the scan
	# and from report
	[ "$code" -eq 1 ] || { cat "$tmp/log-$c.txt" >&2; fail "$c: exit $code, want 1"; }
	check_case "$c" || { cat "$tmp/log-$c.txt" >&2; fail "$c: see above"; }
	timings+=("$c ${case_s}s")
done

# --- the validated .patch applies to the head with plain git ------------
sha=$(sha256sum "$fixture/../crs-patcher/patches/01-good-bounds-check.patch" | cut -c1-12)
git -C "$tmp/repo" checkout -q "$head"
for c in good retry fuzzy; do
	git -C "$tmp/repo" apply --check "$tmp/out-$c/patches/$sha.patch" ||
		fail "$c: git apply --check of the validated patch fails on the head"
done
sarif_validate "$tmp/out-good/results.sarif" >/dev/null || fail "SARIF does not validate"

# --- no key anywhere ----------------------------------------------------
if grep -rlF "$key" "$tmp/work" "$tmp"/out-* "$tmp"/log-*.txt "$tmp"/verdict-*.txt; then
	fail "the provider key was written to the files above"
fi
if grep -rlE "sk-crsci-[0-9a-f]{8}" "$tmp/work" "$tmp"/out-* "$tmp"/log-*.txt "$tmp"/verdict-*.txt; then
	fail "a CRS key was left in the files above"
fi
note "no provider or CRS key in $(find "$tmp/work" "$tmp"/out-* -type f | wc -l) files"

note "per case: ${timings[*]}; whole test $(($(date +%s) - t0))s"
