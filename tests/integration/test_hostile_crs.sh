#!/usr/bin/env bash
# test_hostile_crs.sh - a misbehaving CRS (tests/fixtures/crs-hostile)
# beside crs-libfuzzer (issue 4). crs-hostile submits a non-crashing "PoV",
# hands libCRS escaping paths ("..", absolute, a symlink out of its shared
# dir) and plants symlinks in its SUBMIT_DIR pointing at host files and
# folders (a sentinel in the work dir, a folder beside it, /etc/passwd, /).
# Asserts: the scan still finds the real bug (exit 1; results.json: one
# finding, found_by crs-libfuzzer, the text "PoV" counted in
# povs_not_reproduced); every escaping libCRS call failed with a non-zero
# exit and a message in hostile.log; the exchange and the
# output hold no symlink and none of the linked-to content; the corpus
# (crs-hostile's seeds too) is replayed for the coverage of the change
# without either; the sentinel
# files are unchanged and crs-libfuzzer's SUBMIT_DIR holds nothing from
# crs-hostile; no container or network of the scan is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
fixture=$ROOT/tests/fixtures/crs-hostile
# host files the CRS's symlinks point at
mkdir -p "$tmp/work/runs" "$tmp/outside"
echo "sentinel $$ $RANDOM" >"$tmp/work/sentinel"
echo "canary $$ $RANDOM" >"$tmp/work/runs/canary"
echo "outside $$ $RANDOM" >"$tmp/outside/secret"
stamp() { stat -c '%n %s %Y %a' "$tmp/work/sentinel" "$tmp/work/runs/canary" \
	"$tmp/outside/secret"; ls -lA --time-style=full-iso "$tmp/outside" | sed 1d; md5sum \
	"$tmp/work/sentinel" "$tmp/work/runs/canary" "$tmp/outside/secret"; }
before=$(stamp)
# the fixture's compose, with absolute CRS paths and the host paths
python3 - "$fixture/compose.yaml" "$tmp/compose.yaml" "$tmp" <<'PY'
import os, sys, yaml
src, dst, tmp = sys.argv[1:]
c = yaml.safe_load(open(src))
for k, v in c.items():
    if isinstance(v, dict) and "source" in v:
        v["source"]["local_path"] = os.path.normpath(
            os.path.join(os.path.dirname(src), v["source"]["local_path"]))
c["crs-hostile"]["additional_env"] = {
    "HOSTILE_HOST_FILE": tmp + "/work/sentinel",
    "HOSTILE_HOST_DIR": tmp + "/outside"}
yaml.safe_dump(c, open(dst, "w"))
PY
t0=$SECONDS
set +e
"$CRS_CI" scan --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
note "scan took $((SECONDS - t0))s"
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
hlog=$tmp/work/runs/$run/crs/crs-hostile/LOG_DIR/fuzz_records/hostile.log
[ -f "$hlog" ] || { cat "$tmp/log.txt" >&2; fail "no hostile.log"; }
cat "$hlog" >&2
grep -q '^done$' "$hlog" || fail "crs-hostile did not finish"
# every escaping call refused: a non-zero exit and a message
for c in submit-build-output-dotdot submit-build-output-nested-dotdot \
	submit-build-output-absolute skip-build-output-dotdot \
	download-build-output-dotdot download-build-output-absolute \
	register-shared-dir-dotdot register-shared-dir-absolute \
	register-shared-dir-symlink \
	submit-type-dotdot submit-type-absolute submit-directory \
	submit-harness-dotdot; do
	grep -Eq "^$c exit=[1-9][0-9]* libCRS: .+" "$hlog" ||
		fail "$c: not refused with an error: $(grep "^$c " "$hlog")"
done
grep -Eq '^submit-build-output-dotdot exit=[12] .*\.\.' "$hlog" ||
	fail "'..' refusal does not name the '..'"
grep -Eq '^submit-build-output-absolute exit=[12] .*absolute' "$hlog" ||
	fail "an absolute path's refusal does not say so"
grep -q '^submit-pov-noncrash exit=0 ' "$hlog" || fail "text PoV not submitted"
python3 - "$tmp" "$run" <<'PY'
import hashlib, json, os, sys
tmp, run = sys.argv[1:]
work, out = tmp + "/work", tmp + "/out"
res = json.load(open(out + "/results.json"))
f = res["findings"]
assert len(f) == 1, f
assert f[0]["found_by"] == "crs-libfuzzer", f[0]["found_by"]
assert res["summary"]["povs_not_reproduced"] >= 1, res["summary"]
# content the symlinks pointed at must not have been copied anywhere
bad = {}
for p in ("/etc/passwd", work + "/sentinel", tmp + "/outside/secret"):
    bad[hashlib.sha256(open(p, "rb").read()).hexdigest()] = p
def walk(top):
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            assert not os.path.islink(p), "symlink %s -> %s" % (p, os.readlink(p))
            if os.path.isfile(p):
                h = hashlib.sha256(open(p, "rb").read()).hexdigest()
                assert h not in bad, "%s holds %s" % (p, bad[h])
xdir = "%s/runs/%s/EXCHANGE_DIR" % (work, run)
assert os.path.isdir(xdir + "/fuzz_records/povs"), xdir
walk(xdir)
walk(out)
# the final corpus, crs-hostile's seeds included, was replayed for the
# coverage of the change without a link or a linked-to file in its folder
cc = res["change_coverage"]
assert cc["status"] == "measured" and cc["lines_executed"] > 0, cc
walk(work + "/change-coverage")
assert not os.listdir(xdir + "/fuzz_records/bug-candidates"), "bug-candidates copied"
# the text "PoV" reached the exchange (it is a regular file) ...
txt = hashlib.md5(b"this is not a crash, just text\n").hexdigest() + ".txt"
assert os.path.isfile(xdir + "/fuzz_records/povs/" + txt), os.listdir(xdir + "/fuzz_records/povs")
# ... but crs-libfuzzer's SUBMIT_DIR holds only its own files
lf = "%s/runs/%s/crs/crs-libfuzzer/SUBMIT_DIR/fuzz_records" % (work, run)
for d, dirs, files in os.walk(lf):
    for n in dirs + files:
        p = os.path.join(d, n)
        assert not os.path.islink(p), p
        assert n not in (txt, "passwd-link", "host-file-link", "escape"), p
    rel = os.path.relpath(d, lf)
    assert rel == "." or rel.split("/")[0] in (
        "povs", "seeds", "bug-candidates", "reports", "patches", "diffs"), d
# the links were there for the exchange and triage to see (host side)
hs = "%s/runs/%s/crs/crs-hostile/SUBMIT_DIR/fuzz_records" % (work, run)
for n in ("povs/passwd-link", "seeds/host-file-link",
          "seeds/nested/root-link", "bug-candidates"):
    assert os.path.islink(os.path.join(hs, n)), n
# nothing was written beside the CRS's directories
for p in ("escape", "etc/escape"):
    for base in (work, work + "/runs", work + "/runs/" + run, tmp):
        assert not os.path.exists(os.path.join(base, p)), os.path.join(base, p)
print("findings=1 found_by=crs-libfuzzer povs_not_reproduced=%d"
      % res["summary"]["povs_not_reproduced"])
PY
[ "$(stamp)" = "$before" ] || { diff <(echo "$before") <(stamp) >&2; fail "files outside the CRS's directories changed"; }
note "$(grep -c ' exit=[1-9]' "$hlog") libCRS calls refused; sentinels unchanged"
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
