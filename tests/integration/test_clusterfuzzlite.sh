#!/usr/bin/env bash
# test_clusterfuzzlite.sh - a repository that carries a real-style
# .clusterfuzzlite/ (Dockerfile with `COPY . $SRC/recparse`, build.sh,
# project.yaml) is scanned with no --project: its Dockerfile is built
# from the head commit's tree (not the working directory, so one that is
# not committed is refused; a link in the tree stays a link), the pull
# request's bug is found as `new`, and the GitLab template's default
# project input scans it the same way under gitlab-ci-local.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$repo")"
# the pull request also commits a link to a host file: the build context
# must carry it as a link, never the file it names
printf 'cfl-sentinel-%s\n' "$$" > "$tmp/host-secret"
ln -s "$tmp/host-secret" "$repo/leak"
git -C "$repo" add leak
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
	git -C "$repo" -c commit.gpgsign=false commit -q -m "add a link"
head=$(git -C "$repo" rev-parse HEAD)
# uncommitted: in the working directory only, never in a build
echo "uncommitted" > "$repo/UNCOMMITTED"
# a .clusterfuzzlite/ that is not committed cannot be built: said clearly
eval "$("$ROOT/examples/make-repo.sh" "$tmp/plain" | sed 's/^/plain_/')"
cp -R "$repo/.clusterfuzzlite" "$tmp/plain/"
set +e
msg=$("$CRS_CI" build-target --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--source "$tmp/plain" --head "$plain_head" --work-dir "$tmp/plain-work" 2>&1 >/dev/null)
code=$?
set -e
[ "$code" -eq 2 ] || fail "uncommitted .clusterfuzzlite/: exit $code, want 2 ($msg)"
grep -qF "the head commit ${plain_head:0:12} has no .clusterfuzzlite/Dockerfile file" <<<"$msg" ||
	fail "uncommitted .clusterfuzzlite/: $msg"
note "uncommitted .clusterfuzzlite/: $(tail -n1 <<<"$msg")"
set +e
"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--source "$repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log.txt" "$tmp/verdict.txt" >&2; fail "exit $code, want 1"; }
grep -q "project: ClusterFuzzLite folder 'recparse'" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the layout was not recognised"; }
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
f = res["findings"]
assert len(f) == 1, f
assert f[0]["novelty"] == "new", f[0]
assert f[0]["function"] == "parse_extended", f[0]
PY
note "no --project: $(grep -m1 '\[new\]' "$tmp/verdict.txt" | sed 's/^ *//')"
# the project image: built from the head's tree with .clusterfuzzlite/'s
# Dockerfile, tagged after main_repo
target=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["target_image"])' "$tmp/work/scan.json")
case $target in crs-ci-target/recparse:*) ;; *) fail "target image '$target'" ;; esac
run_id=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
owner=crs-ci-test-cfl-$$
in_target() {
	docker run --rm --network none --label "io.crs-ci.owner=$owner" \
		--entrypoint /bin/sh "$target" -c "$1"
}
in_target 'test -f /src/build.sh && test -f /src/recparse/src/recparse.c' ||
	fail "the image lacks the COPY'd tree"
in_target 'test ! -e /src/recparse/UNCOMMITTED' ||
	fail "the working directory, not the commit, was the build context"
in_target 'test -L /src/recparse/leak && ! grep -rqs cfl-sentinel /src' ||
	fail "the link in the tree was followed out of the context"
note "target image $target: the head's tree, the link kept as a link"
left=$(docker ps -aq --filter "label=io.crs-ci.owner=crs-ci-${run_id#*-}"
	docker network ls -q --filter "label=io.crs-ci.owner=crs-ci-${run_id#*-}"
	docker ps -aq --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks left behind: $left"

# The GitLab template with its default project input (.clusterfuzzlite)
glci_install
rm "$repo/UNCOMMITTED"
glci_pipeline "$repo" "      image: crs-ci:unused-by-the-shell-executor
      compose: $ROOT/container/crs/libfuzzer/compose.yaml
      harnesses: fuzz_records
      timeout: 10m
      services: []
      docker-host: \"\"
      crs-ci-bin: $CRS_CI"
start=$(date +%s)
set +e
glci_run "$repo" "$base" "$GLCI_HEAD" crs-ci-scan >"$tmp/glci.log" 2>&1
code=$?
set -e
[ "$code" -eq 0 ] || { cat "$tmp/glci.log" >&2; fail "gitlab-ci-local exit $code"; }
out=$repo/.gitlab-ci-local/artifacts/crs-ci-scan/crs-ci-out
[ "$(cat "$out/exit-code")" = 1 ] ||
	{ cat "$tmp/glci.log" >&2; fail "crs-ci exit $(cat "$out/exit-code"), want 1"; }
python3 - "$out/results.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
PY
grep -q "project: ClusterFuzzLite folder 'recparse'" "$tmp/glci.log" ||
	{ cat "$tmp/glci.log" >&2; fail "the template did not use .clusterfuzzlite/"; }
note "GitLab template default: the finding is new ($(( $(date +%s) - start )) s)"
