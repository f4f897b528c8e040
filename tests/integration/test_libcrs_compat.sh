#!/usr/bin/env bash
# test_libcrs_compat.sh - libCRS inside a CRS container against the
# OSS-CRS contract (reference/oss-crs-contract.md §4.3, §4.4; issue 4).
# The crs-compat fixture (tests/fixtures/crs-compat) installs libCRS as
# OSS-CRS CRSs do; its build step runs submit-build-output and
# skip-build-output, its run module every other command, logging `<command> exit=<n> ...` lines.
# Asserts from the host: BUILD_OUT_DIR/build and .skipped.skip; submitted
# files named <md5><suffix> in SUBMIT_DIR/<harness>/<type dir>/ (md5
# computed here), a duplicate submit not doubled, a report as the
# contract's <stem>.tar.gz; a file dropped into a register-submit-dir
# folder submitted; its own seed fetched back through the exchange (fetch
# and register-fetch-dir); the register-shared-dir / register-log-dir
# links and targets; get-service-domain's NAME.<crs>; submit-harness's
# layout; the sidecar commands through crs-ci's mailbox: apply-patch-build
# of the recparse fix gives retcode 0, rebuild_id 1 and the rebuilt
# harness under /OSS_CRS_REBUILD_OUT_DIR, run-pov of a crashing PoV gives
# 1 (the ASan report in stderr.log) on the head and 0 on the rebuild,
# apply-patch-test 0 with "no tests", a patch that does not apply a
# non-zero retcode with the reason in stderr.log; build-project of a
# target-source copy with the fix (made in the container) gives rebuild 5
# whose patch.diff is git's diff of the fix and on which the PoV does not
# crash, of a fuzz-project copy whose build.sh echoes a marker a rebuild
# whose stdout.log shows it (fuzz_proj_patch.diff kept), and refusals (no
# folder: exit 2; a symlink to /etc, a symlink the original lacks, no
# change: retcode 1 with the reason); its copies leave the mailbox once
# answered; no container or network of the scan left.
# COMPAT_LAYOUT=clusterfuzzlite (test_clusterfuzzlite_compat.sh): the same
# on the example's .clusterfuzzlite/ repository, found without --project,
# so the fuzz project a CRS rebuilds is that folder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
if [ "${COMPAT_LAYOUT:-}" = clusterfuzzlite ]; then
	eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/repo")"
	project=()
else
	eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
	project=(--project "$ROOT/examples/projects/recparse")
fi
fixture=$ROOT/tests/fixtures/crs-compat
t0=$SECONDS
set +e
"$CRS_CI" scan --compose "$fixture/compose.yaml" \
	${project[@]+"${project[@]}"} --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 20m \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
note "scan took $((SECONDS - t0))s"
# its PoV crashes nothing: no finding
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 0"; }
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
clog=$tmp/work/runs/$run/crs/crs-compat/LOG_DIR/fuzz_records/compat.log
[ -f "$clog" ] || { cat "$tmp/log.txt" >&2; fail "no compat.log"; }
cat "$clog" >&2
python3 - "$tmp/work" "$run" "$fixture/files" "$clog" <<'PY'
import gzip, hashlib, io, json, os, re, sys, tarfile
work, run, files, clog = sys.argv[1:]
log = {}
for line in open(clog):
    m = re.match(r"(\S+) exit=(\d+) ?(.*)", line.rstrip("\n"))
    assert m, line
    log[m.group(1)] = (int(m.group(2)), m.group(3))
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
def ok(cmd, want=0):
    check(cmd in log, "%s: not run" % cmd)
    if cmd in log:
        check(log[cmd][0] == want, "%s: exit %d, want %d (%s)"
              % (cmd, log[cmd][0], want, log[cmd][1]))
    return log.get(cmd, (None, ""))[1]
def md5(p):
    return hashlib.md5(open(p, "rb").read()).hexdigest()
crs = "%s/runs/%s/crs/crs-compat" % (work, run)
sub = crs + "/SUBMIT_DIR/fuzz_records"
shared = crs + "/SHARED_DIR/fuzz_records"
logd = crs + "/LOG_DIR/fuzz_records"
# build step: submit-build-output $OUT build, skip-build-output skipped
bo = work + "/builds/address/crs/crs-compat/BUILD_OUT_DIR"
check(os.access(bo + "/build/fuzz_records", os.X_OK), "BUILD_OUT_DIR/build/fuzz_records")
check(os.path.isfile(bo + "/.skipped.skip") and
      open(bo + "/.skipped.skip").read().strip() == "skip", "BUILD_OUT_DIR/.skipped.skip")
check(not os.path.exists(bo + "/skipped"), "skipped output exists")
# download-build-output, download-source
check("harness=present" in ok("download-build-output"), "download-build-output: no harness")
check("build.sh=present" in ok("download-source-fuzz-proj"), "download-source fuzz-proj")
m = re.search(r"files=(\d+)", ok("download-source-target-source"))
check(m and int(m.group(1)) > 0, "download-source target-source: no files")
# submit: <md5><suffix> in SUBMIT_DIR/<type dir>/
for t, d, f in (("pov", "povs", "pov.bin"), ("seed", "seeds", "seed.txt"),
                ("bug-candidate", "bug-candidates", "candidate.sarif"),
                ("patch", "patches", "fix.patch")):
    ok("submit-" + t)
    name = md5(os.path.join(files, f)) + os.path.splitext(f)[1]
    p = os.path.join(sub, d, name)
    check(os.path.isfile(p) and md5(p) == md5(os.path.join(files, f)),
          "submit %s: no %s/%s (have %s)" % (t, d, name,
          sorted(os.listdir(os.path.join(sub, d))) if os.path.isdir(os.path.join(sub, d)) else None))
ok("submit-report")
# report: a gzip tar named <file stem>.tar.gz, the file at its root
rep = os.path.join(sub, "reports", "report.tar.gz")
if os.path.isfile(rep):
    with tarfile.open(rep, "r:gz") as tf:
        names = [n.lstrip("./") for n in tf.getnames()]
        check("report.txt" in names, "report.tar.gz holds %s" % names)
else:
    check(False, "submit report: no reports/report.tar.gz (have %s)"
          % sorted(os.listdir(os.path.join(sub, "reports"))))
# duplicate not doubled: seeds = the seed + the watched-dir file
ok("submit-seed-duplicate")
seeds = sorted(os.listdir(sub + "/seeds"))
check(len(seeds) == 2, "seeds/: %s, want the seed and the dropped file" % seeds)
# register-submit-dir
check(re.search(r"Started daemon with PID: \d+", ok("register-submit-dir")),
      "register-submit-dir: no 'Started daemon with PID'")
w = ok("register-submit-dir-file")
want = hashlib.md5(b"compat watched seed\n").hexdigest() + ".bin"
check("name=" + want in w and "timeout" not in w and
      os.path.isfile(os.path.join(sub, "seeds", want)), "register-submit-dir: " + w)
# fetch and register-fetch-dir, through the exchange
seed = md5(os.path.join(files, "seed.txt")) + ".txt"
check("timeout" not in ok("exchange-seed"), "own seed never in FETCH_DIR/seeds")
check(seed in ok("fetch").split("printed=")[1].split(" ")[0].split(","),
      "fetch did not print " + seed)
check(re.search(r"Started daemon with PID: \d+", ok("register-fetch-dir")),
      "register-fetch-dir: no 'Started daemon with PID'")
check("timeout" not in ok("register-fetch-dir-file"), "register-fetch-dir: seed not copied")
# register-shared-dir / register-log-dir: symlinks to the mounted dirs
check(os.readlink(logd + "/shared-link") == "/OSS_CRS_SHARED_DIR/compat-shared"
      if os.path.islink(logd + "/shared-link") else False,
      "shared link: %s" % ok("register-shared-dir"))
check(os.path.isfile(shared + "/compat-shared/note.txt"), "no file through the shared link")
ok("register-shared-dir-exists", 1)
check(os.readlink(shared + "/compat-logs") == "/OSS_CRS_LOG_DIR/compat-logs"
      if os.path.islink(shared + "/compat-logs") else False,
      "log link: %s" % ok("register-log-dir"))
check(os.path.isfile(logd + "/compat-logs/note.txt"), "no file through the log link")
# get-service-domain
check(ok("get-service-domain").startswith("output=fuzzer.crs-compat"),
      "get-service-domain: " + log.get("get-service-domain", (0, ""))[1])
# submit-harness
ok("submit-harness")
check(os.path.isfile(sub + "/harnesses/compat-harness/fuzz-proj/build.sh"),
      "submit-harness: no fuzz-proj/build.sh")
check(os.path.isdir(sub + "/harnesses/compat-harness/target-source"),
      "submit-harness: no target-source/")
# sidecar commands through the mailbox (contract 4.4's response dir)
def resp(name):
    return "%s/resp-%s" % (logd, name)
def rd(name, f):
    p = os.path.join(resp(name), f)
    return open(p).read() if os.path.isfile(p) else None
b = ok("apply-patch-build")
check(rd("apply-patch-build", "retcode") == "0", "apply-patch-build: retcode")
rid = rd("apply-patch-build", "rebuild_id")
check(rid == "1", "apply-patch-build: rebuild_id %r, want 1" % rid)
check("rebuilt=present" in b and "downloaded=present" in b and
      "patch.diff=same" in b, "apply-patch-build: " + b)
rb = "%s/runs/%s/REBUILD_OUT_DIR/crs-compat/1" % (work, run)
check(os.access(rb + "/build/fuzz_records", os.X_OK), "no rebuilt harness on the host")
check(open(rb + "/exit_code").read().strip() == "0", "rebuild exit_code")
check(rd("apply-patch-build", "stdout.log") is not None, "apply-patch-build: stdout.log")
check("heap-buffer-overflow" in ok("run-pov", 1), "run-pov on head: no sanitizer report")
check(rd("run-pov", "retcode") == "1", "run-pov: retcode")
check("ERROR: AddressSanitizer" in (rd("run-pov", "stderr.log") or ""),
      "run-pov: stderr.log lacks the report")
check(rd("run-pov", "rebuild_id") is None, "run-pov: rebuild_id written")
ok("run-pov-rebuild", 0)
check(rd("run-pov-rebuild", "retcode") == "0", "run-pov --rebuild-id: retcode")
check("no tests" in ok("apply-patch-test"), "apply-patch-test: not 'no tests'")
check(rd("apply-patch-test", "retcode") == "0", "apply-patch-test: retcode")
check(rd("apply-patch-test", "rebuild_id") is None, "apply-patch-test: rebuild_id written")
bad = log.get("apply-patch-build-bad", (None, ""))
check(bad[0] not in (None, 0), "bad patch: exit %s" % (bad[0],))
check(rd("apply-patch-build-bad", "retcode") not in (None, "0"), "bad patch: retcode")
check("does not apply" in (rd("apply-patch-build-bad", "stderr.log") or ""),
      "bad patch: stderr.log %r" % rd("apply-patch-build-bad", "stderr.log"))
check(rd("apply-patch-build-bad", "rebuild_id") is None, "bad patch: rebuild_id written")
# a context line off: plain git apply refuses, git apply -C1 takes it
ok("apply-patch-build-fuzzy", 0)
check("applied with git apply -C1" in (rd("apply-patch-build-fuzzy", "stderr.log") or ""),
      "fuzzy patch: stderr.log %r" % rd("apply-patch-build-fuzzy", "stderr.log"))
check(rd("apply-patch-build-fuzzy", "rebuild_id") is not None, "fuzzy patch: no rebuild_id")
# --builder-name build: the CRS's own step, from its snapshot
b = ok("apply-patch-build-step")
check("rebuild_id=20" in b and "rebuilt=present" in b and
      "skip-marker=present" in b, "apply-patch-build --builder-name: " + b)
check("rebuilt from crs-ci-snapshot/crs-compat-build:" in
      (rd("apply-patch-build-step", "stderr.log") or ""),
      "apply-patch-build --builder-name: stderr.log %r"
      % rd("apply-patch-build-step", "stderr.log"))
ok("run-pov-step", 0)
check("no build step 'nosuch'" in ok("apply-patch-build-nostep", 1),
      "apply-patch-build --builder-name nosuch: " +
      log.get("apply-patch-build-nostep", (None, ""))[1])
# both neighbouring lines off: only patch --fuzz=3 takes it
ok("apply-patch-build-fuzz3", 0)
check("applied with patch -p1 --fuzz=3" in (rd("apply-patch-build-fuzz3", "stderr.log") or ""),
      "fuzz3 patch: stderr.log %r" % rd("apply-patch-build-fuzz3", "stderr.log"))
# build-project: the trees diffed by crs-ci, built as apply-patch-build
rbd = "%s/runs/%s/REBUILD_OUT_DIR/crs-compat" % (work, run)
def rbf(rid, f):
    p = os.path.join(rbd, rid or "none", f)
    return open(p).read() if os.path.isfile(p) else None
b = ok("build-project-src")
check(rd("build-project-src", "retcode") == "0", "build-project src: "
      "retcode %r, stderr %r" % (rd("build-project-src", "retcode"),
                                 rd("build-project-src", "stderr.log")))
check(rd("build-project-src", "rebuild_id") == "9",
      "build-project src: rebuild_id %r" % rd("build-project-src", "rebuild_id"))
check("rebuilt=present" in b, "build-project src: " + b)
check(rbf("9", "patch.diff") == open(os.path.join(files, "recparse-fix.patch")).read(),
      "build-project src: patch.diff %r is not git's diff of the fix" % rbf("9", "patch.diff"))
check(rbf("9", "fuzz_proj_patch.diff") is None, "build-project src: a fuzz_proj_patch.diff")
ok("run-pov-build-project", 0)
ok("build-project-proj")
rid = rd("build-project-proj", "rebuild_id")
check(rd("build-project-proj", "retcode") == "0" and rid and rid.isdigit(),
      "build-project proj: retcode %r rebuild_id %r stderr %r" % (
          rd("build-project-proj", "retcode"), rid,
          rd("build-project-proj", "stderr.log")))
check("crs-compat: build-project marker" in (rd("build-project-proj", "stdout.log") or ""),
      "build-project proj: the marker is not in stdout.log")
check('+echo "crs-compat: build-project marker"' in (rbf(rid, "fuzz_proj_patch.diff") or ""),
      "build-project proj: fuzz_proj_patch.diff %r" % rbf(rid, "fuzz_proj_patch.diff"))
check(rbf(rid, "patch.diff") == "", "build-project proj: patch.diff not empty")
check("at least one of" in ok("build-project-none", 2), "build-project none: usage")
for case, why in (("etc", "a symlink to '/etc', outside the tree"),
                  ("link", "a symlink that is not the original's"),
                  ("same", "nothing to build")):
    ok("build-project-" + case, 1)
    check(rd("build-project-" + case, "retcode") == "1", "build-project %s: retcode" % case)
    check(why in (rd("build-project-" + case, "stderr.log") or ""),
          "build-project %s: stderr.log %r" % (case, rd("build-project-" + case, "stderr.log")))
    check(rd("build-project-" + case, "rebuild_id") is None, "build-project %s: rebuild_id" % case)
reqs = crs + "/MAILBOX/requests"
left = [r + "/" + t for r in os.listdir(reqs) for t in ("target-source", "fuzz-proj")
        if os.path.exists(os.path.join(reqs, r, t))]
check(not left, "build-project copies left in the mailbox: %s" % left)
# only its own rebuilds and mailbox: one folder each, crs-compat's
check(os.listdir("%s/runs/%s/REBUILD_OUT_DIR" % (work, run)) == ["crs-compat"],
      "REBUILD_OUT_DIR holds %s" % os.listdir("%s/runs/%s/REBUILD_OUT_DIR" % (work, run)))
ok("done")
res = json.load(open(os.path.join(work, "..", "out", "results.json")))
check(res["findings"] == [], "findings: %s" % res["findings"])
if errors:
    print("\n".join("contract: " + e for e in errors), file=sys.stderr)
    sys.exit(1)
PY
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
note "every libCRS command matches the contract"
