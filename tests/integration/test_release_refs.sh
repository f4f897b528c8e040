#!/usr/bin/env bash
# test_release_refs.sh - one rule for every ref a user copies: the GitHub
# workflow `crs-ci init` writes, its GitLab include, the example workflows
# and pipelines, and the docs name crs-ci only at a tag the release
# process creates (container/release/release.sh --print-tags), and the
# action installs that release's binaries for it.
# Asserts: release.sh prints the release tag vX.Y.Z (v + runner/scan/
# ctx.h) and its image, and refuses a version that is not crs-ci's; in a
# fresh repository `crs-ci init` writes `uses: crs-ci/crs-ci/actions@TAG`
# and the GitLab `component: .../crs-ci@TAG` with the same TAG from that
# list, and no
# upload of crs-ci-out/ besides the action's own artifact;
# actions/release-version.sh answers TAG itself (the release install, not
# a build from source) and `source` for a moving major tag the release
# process does not create; every concrete ref in templates/, examples/,
# docs/, README.md, actions/ and gitlab/ (`.../actions@REF`, GitLab
# `component: .../crs-ci@REF`, the `ref:` of an include of crs-ci's
# project, the tag of a `.../crs-ci:TAG` image) is in the list, and the
# same check finds the refs of before (`actions@v1`, `crs-ci@0.1.0`).
# Needs no Docker engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
release=$ROOT/container/release/release.sh

# --- the release's tags ------------------------------------------------
version=$(sed -n 's/^#define CRS_CI_VERSION "\(.*\)"$/\1/p' "$ROOT/runner/scan/ctx.h")
"$release" --print-tags >"$tmp/tags.txt" || fail "release.sh --print-tags failed"
cat "$tmp/tags.txt" >&2
sed -n 's/^git //p' "$tmp/tags.txt" >"$tmp/git-tags.txt"
[ "$(cat "$tmp/git-tags.txt")" = "v$version" ] ||
	fail "release.sh git tags: $(cat "$tmp/git-tags.txt"), want v$version"
grep -qx "image crs-ci/crs-ci:v$version" "$tmp/tags.txt" || fail "release.sh: no image tag"
code=0
"$release" --print-tags --version v9.9.9 >/dev/null 2>"$tmp/bad.txt" || code=$?
[ "$code" -eq 2 ] && grep -q "does not match crs-ci $version" "$tmp/bad.txt" ||
	fail "release.sh --version v9.9.9: exit $code: $(cat "$tmp/bad.txt")"
note "release.sh --print-tags: $(tr '\n' ' ' <"$tmp/tags.txt")"

# --- the action installs the release of each tag ---------------------------
while read -r t; do
	got=$("$ROOT/actions/release-version.sh" "$t")
	[ "$got" = "$t" ] || fail "release-version.sh $t: $got, want $t"
done <"$tmp/git-tags.txt"
for ref in "v${version%%.*}" "v${version%.*}" v1 main ""; do
	got=$("$ROOT/actions/release-version.sh" "$ref")
	[ "$got" = source ] || fail "release-version.sh '$ref': $got, want source"
done
note "release-version.sh: every release tag installs itself; vX, vX.Y, branches build"

# --- what crs-ci init writes -----------------------------------------------
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$repo")"
(cd "$repo" && "$CRS_CI" init --cpus 2 >"$tmp/init.txt") ||
	fail "crs-ci init: $(cat "$tmp/init.txt")"
python3 - "$repo" "$tmp/git-tags.txt" <<'PY' || fail "init's refs"
import sys, yaml
repo, tags = sys.argv[1], open(sys.argv[2]).read().split()
w = yaml.safe_load(open(repo + "/.github/workflows/crs-ci.yml"))
steps = w["jobs"]["scan"]["steps"]
uses = [s["uses"] for s in steps if "uses" in s]
crs = [u for u in uses if u.startswith("crs-ci/crs-ci/actions@")]
assert len(crs) == 1, uses
gh = crs[0].split("@", 1)[1]
assert gh in tags, f"workflow uses {crs[0]}, release tags {tags}"
# the action uploads crs-ci's output (upload-artifacts: true by default):
# no second upload of it
extra = [u for u in uses if u.startswith("actions/upload-artifact")]
assert not extra, f"the workflow uploads crs-ci-out again: {extra}"
step = next(s for s in steps if s.get("uses") == crs[0])
assert str(step["with"].get("upload-artifacts", "true")) == "true", step
gl = yaml.safe_load(open(repo + "/.gitlab-ci.yml"))
inc = gl["include"][0]
comp, at = inc["component"].rsplit("@", 1)
assert comp == "$CI_SERVER_FQDN/ci/crs-ci/crs-ci", inc
assert at == gh, f"GitLab component @{at}, GitHub @{gh}"
print(f"  - init: uses crs-ci/crs-ci/actions@{gh}, GitLab component @{at}",
      file=sys.stderr)
PY
out=$(cd "$repo" && npx --yes @action-validator/cli .github/workflows/crs-ci.yml 2>&1) ||
	fail "action-validator: $out"

# --- every ref in the repository's files -----------------------------------
# refs.py DIR...: "file:line: kind ref" for every concrete crs-ci ref
cat >"$tmp/refs.py" <<'PY'
import os, re, sys
ACTION = re.compile(r"[\w.-]+/[\w.-]+/actions@([^\s'\"`)]+)")
COMPONENT = re.compile(r"component:\s*\S*/crs-ci@([^\s'\"`]+)")
IMAGE = re.compile(r"[\w.${}/<>-]*/crs-ci:([\w.<>-]+)")
PROJECT = re.compile(r"^(\s*)-?\s*project:\s*\S*crs-ci\s*$")
REF = re.compile(r"^\s*ref:\s*(\S+)")
PLACEHOLDER = re.compile(r"^(<.*>|vX(\.Y(\.Z)?)?|VERSION|\$.*)$")
def out(path, n, kind, ref):
    if not PLACEHOLDER.match(ref):
        print(f"{path}:{n}: {kind} {ref}")
def scan(path):
    lines = open(path, errors="replace").read().splitlines()
    for i, l in enumerate(lines, 1):
        for m in ACTION.finditer(l):
            out(path, i, "git", m.group(1))
        for m in COMPONENT.finditer(l):
            out(path, i, "git", m.group(1))
        for m in IMAGE.finditer(l):
            out(path, i, "image", m.group(1))
        m = PROJECT.match(l.lstrip("#").rstrip())
        if m:	# an include of crs-ci's project: its ref
            for k in range(i, min(i + 4, len(lines))):
                r = REF.match(lines[k].lstrip("#"))
                if r:
                    out(path, k + 1, "git", r.group(1))
                    break
for top in sys.argv[1:]:
    if os.path.isfile(top):
        scan(top)
        continue
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != ".git")
        for f in sorted(files):
            if f.endswith((".md", ".yml", ".yaml", ".sh")):
                scan(os.path.join(d, f))
PY
# check REFS-FILE: refs not made by the release, one per line
check() {
	local kind ref where
	while read -r where kind ref; do
		case $kind in
		git) grep -qx -- "$ref" "$tmp/git-tags.txt" || echo "$where $ref" ;;
		image) [ "$ref" = latest ] || grep -qx -- "$ref" "$tmp/git-tags.txt" ||
			echo "$where crs-ci:$ref" ;;
		esac
	done <"$1"
}
(cd "$ROOT" && python3 "$tmp/refs.py" templates examples docs actions gitlab \
	README.md) >"$tmp/refs.txt"
check "$tmp/refs.txt" >"$tmp/stray.txt"
[ ! -s "$tmp/stray.txt" ] || fail "refs that no release creates (release.sh --print-tags: $(tr '\n' ' ' <"$tmp/git-tags.txt")):
$(cat "$tmp/stray.txt")"
# the scan saw each kind: the four example workflows and the README's,
# the GitLab examples' includes, the component and the images
for want in "actions/examples/pr-scan.yml:.* git" "actions/README.md:.* git" \
    "gitlab/examples/.gitlab-ci.yml:.* git" "gitlab/examples/shell-runner.gitlab-ci.yml:.* git" \
    "gitlab/README.md:.* git" "gitlab/crs-ci.gitlab-ci.yml:.* image"; do
	grep -q "^$want" "$tmp/refs.txt" || fail "no ref found in ${want%%:*}"
done
[ "$(grep -c "^actions/examples/.* git " "$tmp/refs.txt")" -ge 4 ] ||
	fail "fewer than 4 example workflow refs: $(cat "$tmp/refs.txt")"
note "$(wc -l <"$tmp/refs.txt") refs in templates, examples, docs, actions, gitlab, README: all release tags"

# the same check on the refs of before finds each of them
mkdir -p "$tmp/old"
cat >"$tmp/old/old.yml" <<'EOF'
      - uses: crs-ci/crs-ci/actions@v1
include:
  - project: ci/crs-ci
    ref: v0
  # - component: $CI_SERVER_FQDN/ci/crs-ci/crs-ci@0.1.0
      image: $CI_REGISTRY/ci/crs-ci:0.1.0
EOF
python3 "$tmp/refs.py" "$tmp/old" >"$tmp/old-refs.txt"
check "$tmp/old-refs.txt" >"$tmp/old-stray.txt"
[ "$(wc -l <"$tmp/old-stray.txt")" -eq 4 ] ||
	fail "the old refs: $(cat "$tmp/old-stray.txt")"
note "the refs of before are refused: $(cut -d' ' -f2 "$tmp/old-stray.txt" | tr '\n' ' ')"
