#!/usr/bin/env bash
# test_release_image.sh - the release workflow's steps, run here in order
# by the one script it calls (container/release/release.sh, without
# --push): the assets (static crs-ci and libCRS, libCRS-install.sh,
# SHA256SUMS that checks; from a clean checkout both name its commit, and
# the release's `crs-ci init` pins crs-ci's action by it) and the image (make install's layout on a
# Debian root file system with /bin/sh, git and the CA bundle). Then the
# image's own crs-ci scans the demo through the mounted engine socket,
# finds the pull request's heap-buffer-overflow, and leaves no container
# or network with the scan's owner label. Warm (static-deps, the image's
# base and the demo's CRS and target images present) it takes about a
# minute.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
rel=$tmp/release
version=v$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' "$ROOT/runner/scan/ctx.h")
image=crs-ci/crs-ci:$version
extra=crs-ci-it/release:$$
trap 'docker rmi "$extra" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# usage errors come before any work
code=0
"$ROOT/container/release/release.sh" --push >/dev/null 2>&1 || code=$?
[ "$code" -eq 2 ] || fail "--push without --tag: exit $code, want 2"
code=0
"$ROOT/container/release/release.sh" --version v999.0.0 >/dev/null 2>&1 || code=$?
[ "$code" -eq 2 ] || fail "a version that is not crs-ci's: exit $code, want 2"

t0=$SECONDS
RELEASE_OUT=$rel "$ROOT/container/release/release.sh" --tag "$extra" \
	>"$tmp/release.log" 2>&1 || { cat "$tmp/release.log" >&2; fail "release.sh"; }
note "release.sh took $((SECONDS - t0))s"
grep -q '^release: \[[0-9]*s\] 5/5 no --push: nothing pushed' "$tmp/release.log" ||
	fail "release.sh pushed or did not finish"

# the assets: exactly these four, SHA256SUMS checks, static programs
[ "$(ls "$rel" | sort | tr '\n' ' ')" = "SHA256SUMS crs-ci libCRS libCRS-install.sh " ] ||
	fail "assets: $(ls "$rel")"
(cd "$rel" && sha256sum --check --strict --quiet SHA256SUMS) || fail "SHA256SUMS"
[ "$(wc -l <"$rel/SHA256SUMS")" -eq 3 ] || fail "SHA256SUMS: $(cat "$rel/SHA256SUMS")"
for b in crs-ci libCRS; do
	if readelf -lW "$rel/$b" | grep -q 'INTERP\|DYNAMIC'; then
		fail "$b is not static"
	fi
done
# the assets install through the action's install step
"$ROOT/actions/install-release.sh" "file://$rel" "$tmp/bin" 2>/dev/null ||
	fail "the action's install step refuses the assets"
note "assets: $(cd "$rel" && stat -c '%n %s' crs-ci libCRS | tr '\n' ' ')"

# the image: the same binaries, make install's layout, a shell and git
docker image inspect "$extra" >/dev/null 2>&1 || fail "no --tag $extra"
[ "$(docker image inspect -f '{{.Id}}' "$image")" = \
  "$(docker image inspect -f '{{.Id}}' "$extra")" ] || fail "$extra is not $image"
docker run --rm "$image" sh -c '
	set -e
	cd /usr/local/bin
	sha256sum crs-ci libCRS libCRS-install.sh
	test -f /usr/local/share/crs-ci/registry/crs-libfuzzer.yaml
	test -f /usr/local/share/crs-ci/container/crs/libfuzzer/oss-crs/crs.yaml
	test -s /etc/ssl/certs/ca-certificates.crt
	git --version >/dev/null' >"$tmp/image-sums" 2>"$tmp/image.log" ||
	{ cat "$tmp/image.log" >&2; fail "image layout"; }
diff <(sed 's/ \*\?/  /' "$rel/SHA256SUMS" | tr -s ' ') \
	<(tr -s ' ' <"$tmp/image-sums") >&2 ||
	fail "the image's binaries are not the assets"
# a checkout without changes to its tracked files (CI's) names its commit,
# and the release's own `crs-ci init` pins crs-ci's action and GitLab
# component by it (the tag as a comment); a changed tree names none
want="crs-ci ${version#v}"
pin=$version
if git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null; then
	commit=$(git -C "$ROOT" rev-parse HEAD)
	want="$want (commit $commit)"
	pin="$commit # $version"
fi
out=$(docker run --rm "$image" crs-ci version) || fail "crs-ci version in the image"
[ "${out%%$'\n'*}" = "$want" ] || fail "crs-ci version: $out, want $want"
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$tmp/init-repo")"
(cd "$tmp/init-repo" && "$rel/crs-ci" init --cpus 2 >"$tmp/init.txt" 2>&1) ||
	fail "the release's crs-ci init: $(cat "$tmp/init.txt")"
grep -qxF "      - uses: crs-ci/crs-ci/actions@$pin" \
	"$tmp/init-repo/.github/workflows/crs-ci.yml" ||
	fail "init's workflow does not pin @$pin: $(grep -n 'crs-ci/actions@' "$tmp/init-repo/.github/workflows/crs-ci.yml")"
grep -qxF "  - component: \$CI_SERVER_FQDN/ci/crs-ci/crs-ci@$pin" \
	"$tmp/init-repo/.gitlab-ci.yml" ||
	fail "init's GitLab include does not pin @$pin: $(grep -n component "$tmp/init-repo/.gitlab-ci.yml")"
note "the release's init pins crs-ci at @$pin"
note "image $image: $(docker image inspect -f '{{.Size}}' "$image") bytes; ${out%%$'\n'*}"

# the demo, scanned by the image's crs-ci: the engine resolves bind
# mounts on the host, so the scan's folders are at the same path inside
# and outside; crs-libfuzzer has no source block, so a scan that runs at
# all found it in the image's registry (/usr/local/share/crs-ci/registry)
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
cp -R "$ROOT/examples/projects/recparse" "$tmp/project"
cat >"$tmp/compose.yaml" <<'YAML'
run_env: local
docker_registry: local
oss_crs_infra: { cpuset: "0", memory: "2G" }
crs-libfuzzer: { cpuset: "1", memory: "4G" }
YAML
t0=$SECONDS
code=0
# as the caller, with the socket's group: the files it writes are the
# caller's, and nothing in the image needs root but the socket
docker run --rm --name "crs-ci-it-release-$$" \
	--user "$(id -u):$(id -g)" --group-add "$(stat -c %g /var/run/docker.sock)" \
	-e HOME="$tmp" \
	-v /var/run/docker.sock:/var/run/docker.sock -v "$tmp:$tmp" \
	-e CRS_CI_BASE_IMAGES -w "$tmp" "$image" \
	crs-ci scan --compose "$tmp/compose.yaml" --project "$tmp/project" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" \
	>"$tmp/verdict.txt" 2>"$tmp/scan.log" || code=$?
note "scan in the image took $((SECONDS - t0))s"
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { cat "$tmp/scan.log" >&2; fail "scan exit $code, want 1"; }
grep -q "^verdict: FAIL" "$tmp/verdict.txt" || fail "no FAIL verdict"
grep -q "\[new\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "finding not labelled new"
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["function"] == "parse_extended", f
assert f[0]["novelty"] == "new", f
PY
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/work/scan.json")
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
[ -z "$(find "$tmp/out" "$tmp/work" -maxdepth 0 ! -user "$(id -u)")" ] ||
	fail "the scan's folders are not the caller's"
note "the image's crs-ci found the demo's bug; nothing of $owner left"
