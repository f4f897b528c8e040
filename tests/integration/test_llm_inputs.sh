#!/usr/bin/env bash
# test_llm_inputs.sh - the LLM input writer (container/crs/llm-inputs) end
# to end beside crs-libfuzzer, against a test fake of the model provider.
#
# The change is the "magic" delta scenario (tests/fixtures/delta): sealed
# records whose 8-byte key is checked by its hash, then unsealed into a
# 32-byte stack buffer without a length check. libFuzzer alone does not
# find it: the same scan with container/crs/libfuzzer/compose.yaml fuzzes
# its 85 s share and exits 0 (container/crs/llm-inputs/README.md); the
# fake (tests/helper/fake_llm.c --replies tests/fixtures/llm-inputs/
# replies/magic) answers the CRS's three requests through crs-ci's
# gateway:
#   1  a sealed record with the key (no crash: too short) under a
#      path-like name, inputs in bad base64, bad hex, over the size cap
#      and with two encodings, and a generator that loops forever;
#   2  a generator that tries to write files (the submit and log folders,
#      /tmp, its own folder), to read the CRS's LLM key, leaves a process
#      behind in its own session and floods its output;
#   3  a generator of sealed records of lengths around 32: a crash.
# Checked: the scan proves the bug (exit 1, one new stack-buffer-overflow
# in unseal, reproduced), llm-spend.json books the CRS's three requests;
# rounds.jsonl shows each hostile part refused or bounded (bad encodings
# and the cap named, the generator killed at its time limit and at the
# output cap, nothing of it left running, no write or key read worked),
# the second and third prompts carry that feedback; what the CRS
# submitted is named by content, within the size cap; no
# file the generator tried to write exists; no key in any file; no
# container or network of the scan is left.
# --after-finding continue: crs-libfuzzer may prove the same bug first, and
# the default window after that proof could end crs-llm-inputs before its
# third round. Both CRSs exit at their first PoV, so the run still ends
# then, not at the deadline.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
mktemp_dir; tmp=$TMP
fixture=$ROOT/tests/fixtures/llm-inputs
fake_llm_names llmi

build_static_fake_llm "$tmp/bin"
docker network create "$net" >/dev/null
base='' head=''
eval "$("$ROOT/tests/fixtures/delta/make-scenario.sh" magic "$tmp/repo")"

fake_llm_start "$tmp/bin" "$fixture/replies/magic" "$tmp/fake"

ts=$(date +%s)
set +e
CRS_CI_LLM_NETWORK=$net FAKE_LLM_API_KEY=$key "$CRS_CI" scan \
	--compose "$fixture/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 2m --after-finding continue \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
scan_s=$(($(date +%s) - ts))
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "scan: exit $code, want 1"; }
rid=$(python3 -c "import json;print(json.load(open('$tmp/work/scan.json'))['run_id'])")
crsdir=$tmp/work/runs/$rid/crs/crs-llm-inputs
logdir=$crsdir/LOG_DIR/fuzz_records
[ -f "$logdir/rounds.jsonl" ] || { cat "$tmp/log.txt" >&2; fail "no $logdir/rounds.jsonl"; }
sed 's/^/    llm-inputs: /' "$logdir/rounds.jsonl" | cut -c1-240 >&2

python3 - "$tmp/out" "$logdir" "$tmp/fake/requests.jsonl" \
	"$crsdir/SUBMIT_DIR/fuzz_records" "$tmp/work/runs/$rid/EXCHANGE_DIR/fuzz_records" <<'PY'
import json, os, re, sys
out, logdir, reqlog, submit, exchange = sys.argv[1:]
res = json.load(open(os.path.join(out, "results.json")))
assert len(res["findings"]) == 1, res["findings"]
f = res["findings"][0]
assert f["crash_type"].lower().startswith("stack-buffer-overflow"), f
assert f["function"] == "unseal", f
assert f["novelty"] == "new" and f["in_change"] is True, f
spend = json.load(open(os.path.join(out, "llm-spend.json")))
c = spend["crs"]["crs-llm-inputs"]
assert c["requests"] == 3 and c["refusals"] == 0, c
assert 0 < c["dollars"] <= c["budget_dollars"], c

rounds = [json.loads(l) for l in open(os.path.join(logdir, "rounds.jsonl"))]
assert [r["verdict"] for r in rounds] == ["no-crash", "no-crash", "pov"], rounds
r1, r2, r3 = rounds
# round 1: only the valid input runs; every bad one is named, with why
assert r1["inputs"] == 1 and r1["refused"] == 4, r1
want = ["bad-base64: refused: not valid base64",
        "bad-hex: refused: not valid hex",
        "huge: refused: over the 1024-byte cap",
        "two-kinds: refused: needs exactly one of base64, hex, text"]
assert r1["refusals"] == want, r1["refusals"]
assert r1["generator"].startswith("timed out after 2 s (killed)"), r1
# round 2: the flood stops at the output cap, the writes and the key read
# failed, the process it left is gone
g = r2["generator"]
assert g.startswith("wrote over 16384 bytes (killed"), g
assert "could not be killed" not in g, g
for p in ("/OSS_CRS_SUBMIT_DIR/povs/escaped", "/OSS_CRS_LOG_DIR/escaped",
          "/tmp/escaped", "escaped"):
    assert "no write %s " % p in g, (p, g)
assert "wrote " not in g.replace("wrote over", "") and "no key" in g, g
assert 1 <= r2["inputs"] <= 16, r2
# round 3: the crash, one PoV for its one DEDUP_TOKEN
assert r3["povs"] == 1 and r3["crashes"] >= 3 and r3["inputs"] == 9, r3

reqs = [json.loads(l) for l in open(reqlog)]
assert len(reqs) == 3 and reqs[0]["model"] == "fake-inputs", len(reqs)
first = reqs[0]["messages"][1]["content"]
for want in ("seal_key_hash", "RPSEAL01", "LLVMFuzzerTestOneInput",
             "The harness fuzz/fuzz_records.c", "Functions the change touched",
             "Inputs from the harness's seed corpus"):
    assert want in first, want
fb1 = reqs[1]["messages"][-1]["content"]
for want in ("not valid base64", "over the 1024-byte cap",
             "generator: timed out", "it reaches code the seeds do not",
             ".._.._.._OSS_CRS_SUBMIT_DIR_povs_escape"):
    assert want in fb1, (want, fb1)
fb2 = reqs[2]["messages"][-1]["content"]
assert "wrote over 16384 bytes" in fb2 and "same bytes as an earlier" in fb2, fb2

# what it submitted: named by content (libCRS names a file by its MD5,
# never by what the model called it), within the cap; its PoV shared
name = re.compile(r"^[0-9a-f]{32}$")
for kind in ("seeds", "povs"):
    names = os.listdir(os.path.join(submit, kind))
    assert names and all(name.match(n) for n in names), (kind, names)
    for n in names:
        assert os.path.getsize(os.path.join(submit, kind, n)) <= 1024, n
povs = os.listdir(os.path.join(submit, "povs"))
assert len(povs) == 1 and povs[0] in os.listdir(os.path.join(exchange, "povs")), povs
print("  - rounds: %s; %d seeds, PoV %s; spend $%s in %d requests" % (
    " ".join(r["verdict"] for r in rounds),
    len(os.listdir(os.path.join(submit, "seeds"))), povs[0], c["dollars"],
    c["requests"]), file=sys.stderr)
PY

# nothing the generator tried to write exists on the host side
if find "$tmp/work" "$tmp/out" -name 'escaped' | grep .; then
	fail "a file the generator wrote reached the work or output folder"
fi
if grep -rlF "$key" "$tmp/work" "$tmp/out" "$tmp/log.txt" "$tmp/verdict.txt"; then
	fail "the provider key was written to the files above"
fi
if grep -rlE "sk-crsci-[0-9a-f]{8}" "$tmp/work" "$tmp/out" "$tmp/log.txt"; then
	fail "a CRS key was left in the files above"
fi
owner=crs-ci-${rid#*-}
left=$(($(docker ps -aq --filter "label=io.crs-ci.owner=$owner" | wc -l) +
	$(docker network ls -q --filter "label=io.crs-ci.owner=$owner" | wc -l)))
[ "$left" -eq 0 ] || fail "$left container(s)/network(s) of $owner left"
note "scan ${scan_s}s (exit 1, the sealed-record overflow proved); whole test $(($(date +%s) - t0))s"
