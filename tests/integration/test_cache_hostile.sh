#!/usr/bin/env bash
# test_cache_hostile.sh - --cache-dir is hostile input (issue 21, items 1
# and 4): a GitLab cache is restored inside the merge request's checkout
# and shared between branches, so anything in it may be an attacker's.
# (a) The cache's corpus/<project> is a link to a host folder whose
# <harness> folder holds a file and a listening unix socket (crs-ci before
# issue 21 bound that folder into the harness's replay container, copied
# the file into the CRSs' seeds and wrote their seeds into it): the scan
# passes it over with a warning naming it, never binds, reads or writes
# there (the file's bytes appear nowhere in the work or output folders,
# nothing connects, nothing new lands in the folder), and still succeeds. (b) A cached image archive
# whose manifest.json tags another image (a sentinel tag on the stand-in
# base runner): the next scan does not load it, builds that image instead,
# and the sentinel still names the image it named before. (d) An index
# entry whose base names an image on any registry (one served here): not
# loaded, no request reaches that registry, the image is built (issue 42,
# item 3). (e) --cache-images no loads no cached image, even a valid one,
# and builds it (issue 42, item 4: GitLab merge requests). (c) A
# --cache-dir that is itself a link is refused (exit 2).
# solo: removes a shared target image from the engine (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
cache=$tmp/cache
# (a) the host folder, its file and its socket
host=$tmp/host/fuzz_records
mkdir -p "$host"
secret="crs-ci-sentinel-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
printf '%s\n' "$secret" >"$host/secret.txt"
python3 - "$host/sock" "$tmp/connections.txt" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[2] + ".ready", "w").close()
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("connected\n")
    c.close()
PY
listener=$!
registry=
cleanup() {
	kill "$listener" ${registry:+"$registry"} 2>/dev/null || true
	sentinel_tag_remove
	rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 50); do [ -e "$tmp/connections.txt.ready" ] && break; sleep 0.1; done
[ -S "$host/sock" ] || fail "no listening socket"
before=$(ls -A "$host" | sort | tr '\n' ' ')
mkdir -p "$cache/corpus"
ln -s "$tmp/host" "$cache/corpus/recparse"
set +e
cache_scan 1 >/dev/null 2>"$tmp/log1.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log1.txt" >&2; fail "first scan: exit $code"; }
grep -q "cache: .*/corpus/recparse: a link or a file, not a folder" "$tmp/log1.txt" ||
	{ grep "cache:" "$tmp/log1.txt" >&2; fail "no warning naming the link"; }
after=$(ls -A "$host" | sort | tr '\n' ' ')
[ "$before" = "$after" ] || fail "the scan wrote into the linked host folder: $after"
[ ! -s "$tmp/connections.txt" ] || fail "something connected to the host socket"
if grep -rlF "$secret" "$tmp/work1" "$tmp/out1" 2>/dev/null; then
	fail "the host file was read into the scan"
fi
[ -L "$cache/corpus/recparse" ] || fail "the link was replaced"
note "a linked corpus folder: passed over with a warning, $(ls -A "$host" | wc -l) entries in it as before, no connection"
# (b) a cached archive that names another image
archive=$(python3 - "$cache" <<'PY'
import json, os, sys
ix = json.load(open(os.path.join(sys.argv[1], "index.json")))
for name, e in ix["entries"].items():
    if name.startswith("image:crs-ci-target/"):
        print(name[len("image:"):], e["path"]); break
PY
)
read -r target rel <<<"$archive"
[ -n "$rel" ] || fail "no target image in the cache"
sentinel_tag_make
archive_retag "$cache/$rel" "$SENTINEL_TAG"
docker rmi "$target" >/dev/null
set +e
cache_scan 2 >/dev/null 2>"$tmp/log2.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log2.txt" >&2; fail "second scan: exit $code"; }
sentinel_tag_check
grep -qF "cache: cannot load $target" "$tmp/log2.txt" ||
	{ grep "cache:" "$tmp/log2.txt" >&2; fail "no warning for the archive naming another tag"; }
docker image inspect "$target" >/dev/null 2>&1 || fail "$target was not built instead"
note "an archive tagging $SENTINEL_TAG: not loaded, $target built, the sentinel unchanged"
# (d) an index entry whose base names any reference: a registry here
python3 - "$tmp/registry.txt" <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[1], "a") as f:
            f.write(self.path + "\n")
        self.send_response(404); self.end_headers()
    do_HEAD = do_GET
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".port", "w").write(str(s.server_port))
s.serve_forever()
PY
registry=$!
for _ in $(seq 50); do [ -s "$tmp/registry.txt.port" ] && break; sleep 0.1; done
evil="127.0.0.1:$(cat "$tmp/registry.txt.port")/evil/base:latest"
python3 - "$cache" "$target" "$evil" <<'PY'
import json, os, sys
p = os.path.join(sys.argv[1], "index.json")
ix = json.load(open(p))
ix["entries"]["image:" + sys.argv[2]]["base"] = sys.argv[3]
json.dump(ix, open(p, "w"))
PY
docker rmi "$target" >/dev/null
set +e
cache_scan 4 >/dev/null 2>"$tmp/log4.txt"
code=$?
set -e
kill "$registry" 2>/dev/null || true
[ "$code" -eq 1 ] || { cat "$tmp/log4.txt" >&2; fail "fourth scan: exit $code"; }
grep -qF "names the base image '$evil', not one crs-ci records; not loaded" "$tmp/log4.txt" ||
	{ grep "cache:" "$tmp/log4.txt" >&2; fail "no warning for the entry naming another base"; }
[ ! -s "$tmp/registry.txt" ] || fail "the engine asked the entry's registry: $(cat "$tmp/registry.txt")"
docker image inspect "$evil" >/dev/null 2>&1 && fail "$evil was pulled"
docker image inspect "$target" >/dev/null 2>&1 || fail "$target was not built instead"
note "an entry whose base is $evil: not loaded, no request to it, $target built"
# (e) --cache-images no (a merge request's pipeline on GitLab, whose cache
# any unprotected pipeline can write, self-consistent entries included):
# no image of the cache is loaded, even a well-formed one; it is built
docker rmi "$target" >/dev/null
set +e
cache_scan 5 --cache-images no >/dev/null 2>"$tmp/log5.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log5.txt" >&2; fail "fifth scan: exit $code"; }
grep -qF "cache: its images are not loaded (--cache-images no)" "$tmp/log5.txt" ||
	{ grep "cache:" "$tmp/log5.txt" >&2; fail "--cache-images no: not said"; }
! grep -q "cache: loaded " "$tmp/log5.txt" || fail "--cache-images no: an image was loaded"
docker image inspect "$target" >/dev/null 2>&1 || fail "$target was not built instead"
note "--cache-images no: no cached image loaded, $target built"
# (c) a cache folder that is a link
ln -s "$cache" "$tmp/cache-link"
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --harness fuzz_records --timeout 10m \
	--cache-dir "$tmp/cache-link" --work-dir "$tmp/work3" --out "$tmp/out3" \
	>/dev/null 2>"$tmp/log3.txt"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/log3.txt" >&2; fail "a linked --cache-dir: exit $code, want 2"; }
grep -q -- "--cache-dir .*cache-link is a link" "$tmp/log3.txt" || { cat "$tmp/log3.txt" >&2; fail "no reason given"; }
note "a --cache-dir that is a link: exit 2"
