#!/usr/bin/env bash
# test_lend_cores.sh - the run lends oss_crs_infra's spare cores to the
# CRSs at a low weight (issue 23; docs/cmd/scan.md, "Every core fuzzing"),
# with one tests/fixtures/crs-rebuilders CRS (crs-rebuild-b) on core 1 of
# a 2-core compose, infra alone on core 0; it asks the builder sidecar
# for a patch build while it runs (after an 8 s wait for a peer that
# never comes; --saturation off, so that the run waits for it). While
# the scan runs, every container of it is inspected
# through the engine.
# Asserts: the run log says "run: lending core 0 (infrastructure) to the
# CRSs at low weight"; the CRS's run container is created on cores 0-1
# at the engine's default CPU shares (1024), and it sees 2 CPUs (nproc)
# and OSS_CRS_CPUSET 0-1; crs-ci's sidecar build containers (on the
# CRS's own core 1) weigh 8192 (8 to 1) when seen; the patch build completes
# (rebuild 1, rc 0) and the scan is clean (exit 0). Then with
# --lend-cores no: it keeps to core 1, sees 1 CPU, and the log says
# nothing of lending. No container is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# a copy of the fixture that waits 8 s, not 60, for the peer that never
# comes: time enough to sample the run's containers
cp -r "$ROOT/tests/fixtures/crs-rebuilders" "$tmp/crs"
sed -i 's/^for _ in $(seq 600); do$/for _ in $(seq 80); do/' "$tmp/crs/bin/rebuild.sh"
grep -q 'seq 80)' "$tmp/crs/bin/rebuild.sh" || fail "the fixture's wait was not shortened"
python3 - "$tmp/crs/compose.yaml" "$tmp/compose.yaml" <<'PY'
import os, sys, yaml
src, dst = sys.argv[1:]
c = yaml.safe_load(open(src))
del c["crs-rebuild-a"]
c["crs-rebuild-b"]["source"]["local_path"] = os.path.dirname(src)
yaml.safe_dump(c, open(dst, "w"))
PY

# scan_sampled LEND: a scan with --lend-cores LEND; each of its containers
# ("name cpuset shares", plus "snapshot" for the sidecar's) sampled into $tmp/seen-LEND.txt while it runs
scan_sampled() {
	local lend=$1 pid code id
	: >"$tmp/seen-$lend.txt"
	rm -rf "$tmp/work" "$tmp/out"
	"$CRS_CI" scan --compose "$tmp/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
		--base "$base" --head "$head" --harness fuzz_records \
		--timeout 5m --lend-cores "$lend" --saturation off \
		--work-dir "$tmp/work" --out "$tmp/out" \
		>"$tmp/verdict.txt" 2>"$tmp/log-$lend.txt" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		for id in $(docker ps -q --filter "label=io.crs-ci.pid=$pid"); do
			docker inspect -f '{{.Name}} {{.HostConfig.CpusetCpus}} {{.HostConfig.CpuShares}}{{range .Config.Cmd}}{{if eq . "crs-ci-handler"}} snapshot{{end}}{{end}}' \
				"$id" 2>/dev/null || true	# it may be gone
		done >>"$tmp/seen-$lend.txt"
		sleep 0.3
	done
	set +e
	wait "$pid"
	code=$?
	set -e
	[ "$code" -eq 0 ] || { cat "$tmp/log-$lend.txt" >&2; fail "--lend-cores $lend: exit $code, want 0"; }
	[ -z "$(docker ps -aq --filter "label=io.crs-ci.pid=$pid")" ] ||
		fail "--lend-cores $lend: containers left behind"
	sort -u "$tmp/seen-$lend.txt" >&2
}

# check LEND: what the containers and the CRSs saw, and the patch builds
check() {
	python3 - "$1" "$tmp/seen-$1.txt" "$tmp/log-$1.txt" "$tmp/work" <<'PY'
import glob, json, sys
lend, seen, logf, work = sys.argv[1:]
rows = {tuple(l.split()) for l in open(seen) if len(l.split()) in (3, 4)}
def run_rows(crs):
    return {(r[1], int(r[2])) for r in rows
            if r[0].endswith("-%s-rebuild-fuzz_records" % crs)}
log = open(logf).read()
said = "run: lending core 0 (infrastructure) to the CRSs at low weight"
want = "0-1" if lend == "yes" else "1"
assert (said in log) == (lend == "yes"), (lend, [l for l in log.splitlines() if "lend" in l])
assert run_rows("crs-rebuild-b") == {(want, 0)}, (lend, rows)
# the sidecar's build containers (crs-ci's own, on the asking CRS's
# cpuset) outweigh the CRSs 8 to 1 (a sample may miss a short one)
own = {(r[1], int(r[2])) for r in rows if r[3:] == ("snapshot",)}
assert own <= {("1", 8192)}, (lend, rows)
run = json.load(open(work + "/scan.json"))["run_id"]
n = 2 if lend == "yes" else 1
got = open(glob.glob("%s/runs/%s/crs/crs-rebuild-b/LOG_DIR/*/rebuild.log"
                     % (work, run))[0]).read()
assert "rc=0 peer=missing rebuild_id=1 cpus=%d cpuset=%s\n" % (n, want) in got, \
    (lend, got)
print("  - --lend-cores %s: the CRS on %s at the default weight, "
      "nproc %d; the sidecar's builds at 8192 (%d seen); the patch "
      "build done" % (lend, want, n, len(own)),
      file=sys.stderr)
PY
}

scan_sampled yes
check yes
scan_sampled no
check no
