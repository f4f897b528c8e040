#!/usr/bin/env bash
# test_hostile_fs.sh - the file-system trust boundary (issue 11) against a
# hostile harness and a hostile CRS in one scan.
#
# The pull request's harness (pull-request code) plants, whenever it runs
# with /triage or /select bound, a link "base" to a host sentinel folder
# (the link a base run used to be bound through), links to a host file at
# the names crs-ci writes or used for temp files, a FIFO, a device node
# where it may, and files named with a newline and a leading "::"; if it
# ever finds the sentinel folder bound, it writes "pwned" into it.
# crs-hostile-exit swaps its povs/ and patches/ for links to /etc at exit.
# crs-ci runs with a fake GITHUB_TOKEN in its environment.
# Asserts: exit 1 with crs-libfuzzer's finding; the sentinel folder and
# file are unchanged (nothing was mounted, written or read through the
# links); no /etc content reached the output; the fake token appears in no
# file under the work or output folders; no line of crs-ci's stderr starts
# with "::"; no container or network of the scan is left. --out is named
# through a link above it, as a user may: crs-ci resolves its own roots
# once (the folder itself as a link is refused: test_state_dirs.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
fixture=$ROOT/tests/fixtures/crs-hostile-exit
host=$tmp/host
mkdir -p "$host"
echo "sentinel $$ $RANDOM" >"$host/secret"
stamp() { ls -lA --time-style=full-iso "$host"; md5sum "$host"/*; }
before=$(stamp)

# the pull request's harness turns hostile (a second commit on pr)
python3 - "$tmp/repo/fuzz/fuzz_records.c" "$host" <<'PY'
import sys
path, host = sys.argv[1:]
src = open(path).read()
hostile = r'''
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define HOST_DIR "%s"

static void plant(const char *dir)
{
	static const char *const names[] = {
		"base", "io", "container.log", "run.9.log", "coverage.lcov.x",
		".container.log.tmp.1", ".crs-ci-tmp.000000000000000000000000",
	};
	char p[512];
	struct stat st;

	if (stat(dir, &st) != 0)
		return;
	snprintf(p, sizeof(p), "%%s/secret", dir);
	if (access(p, F_OK) == 0) {	/* the host folder is bound: escape */
		snprintf(p, sizeof(p), "%%s/pwned", dir);
		close(open(p, O_WRONLY | O_CREAT, 0644));
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(p, sizeof(p), "%%s/%%s", dir, names[i]);
		symlink(i == 0 || i == 1 ? HOST_DIR : HOST_DIR "/secret", p);
	}
	snprintf(p, sizeof(p), "%%s/fifo", dir);
	mkfifo(p, 0600);
	snprintf(p, sizeof(p), "%%s/null", dir);
	mknod(p, S_IFCHR | 0600, makedev(1, 3));
	snprintf(p, sizeof(p), "%%s/evil\n::error::injected-by-harness", dir);
	close(open(p, O_WRONLY | O_CREAT, 0644));
}

__attribute__((constructor)) static void hostile(void)
{
	plant("/triage");
	plant("/select");
	fprintf(stderr, "\n::error::injected-by-harness-stderr\n");
}
''' % host
open(path, "w").write(src.replace('#include "recparse.h"\n',
                                   '#include "recparse.h"\n' + hostile, 1))
PY
git -C "$tmp/repo" -c user.name=t -c user.email=t@example.invalid \
	commit -qam "hostile harness"
head=$(git -C "$tmp/repo" rev-parse HEAD)

python3 - "$fixture/compose.yaml" "$tmp/compose.yaml" <<'PY'
import os, sys, yaml
src, dst = sys.argv[1:]
c = yaml.safe_load(open(src))
for k, v in c.items():
    if isinstance(v, dict) and "source" in v:
        v["source"]["local_path"] = os.path.normpath(
            os.path.join(os.path.dirname(src), v["source"]["local_path"]))
yaml.safe_dump(c, open(dst, "w"))
PY
# the output folder named through a link above it (the user's own): it
# is resolved
mkdir "$tmp/out"
ln -s . "$tmp/via"
token="crs-ci-sentinel-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
t0=$SECONDS
set +e
GITHUB_TOKEN=$token "$CRS_CI" scan --compose "$tmp/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/via/out" \
	>"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
note "scan took $((SECONDS - t0))s"
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" >&2; fail "exit $code, want 1"; }
[ "$(stamp)" = "$before" ] || { diff <(echo "$before") <(stamp) >&2;
	fail "the host sentinel folder changed"; }
# the harness did run hostile where crs-ci reproduced its PoV
[ -n "$(find "$tmp/work/triage" -name base -type l)" ] ||
	fail "the hostile harness planted no link in triage"
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
# crs-hostile-exit's swapped folders were seen, and refused
for d in povs patches; do
	grep -q "crs-hostile-exit/SUBMIT_DIR/fuzz_records/$d: not a folder" \
		"$tmp/log.txt" || { cat "$tmp/log.txt" >&2;
		fail "the link at $d/ was not refused"; }
done
python3 - "$tmp/out" <<'PY'
import json, os, sys
out = sys.argv[1]
res = json.load(open(out + "/results.json"))
assert len(res["findings"]) == 1, res["findings"]
assert res["findings"][0]["found_by"] == "crs-libfuzzer", res["findings"][0]
etc = set()
for n in ("passwd", "group", "hostname", "hosts", "os-release"):
    try:
        etc.add(open("/etc/" + n, "rb").read())
    except OSError:
        pass
for d, dirs, files in os.walk(out):
    for n in files:
        p = os.path.join(d, n)
        assert not os.path.islink(p), p
        assert open(p, "rb").read() not in etc, "%s holds a file of /etc" % p
print("findings=1; no /etc content under the output")
PY
if grep -rlF "$token" "$tmp/work" "$tmp/out" >&2; then
	fail "crs-ci's GITHUB_TOKEN reached a file"
fi
if grep -n '^::' "$tmp/log.txt" >&2; then
	fail "a workflow command reached crs-ci's stderr"
fi
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
note "sentinels unchanged, token in no file, no '::' line, nothing left"
