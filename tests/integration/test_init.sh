#!/usr/bin/env bash
# test_init.sh - `crs-ci init` on a fresh repository with a real-style
# .clusterfuzzlite/ (examples/make-repo.sh --clusterfuzzlite: the recparse
# example, its pull request planting a heap-buffer-overflow at
# src/recparse.c:39).
# Asserts: with no project it exits 2 naming what it looked for, once; --dry-run
# writes nothing; the first run writes the compose, the GitHub workflow,
# the scheduled corpus workflow (batch and prune), the baseline workflow
# (each push to main, code scanning's base analysis) and the GitLab
# include, crs-ci check accepts the compose (also with its LLM patcher
# block uncommented) and @action-validator/cli the three workflows; the
# baseline is made for the default branch, main; ClusterFuzzLite's own
# workflows get one line each saying what takes over (a link is passed
# over); --public lays the compose out for GitHub's 4-CPU runners;
# a second run writes nothing (same inodes and times); an edited file is
# kept, --force rewrites it; a .github that is a link elsewhere is refused
# before anything is written; a user's own .gitlab-ci.yml is never
# touched (the include goes to .crs-ci/gitlab-ci.yml and init prints the
# lines to add); an OSS-Fuzz folder given with --project is named from
# the repository's top. Then, with the files committed on the default branch:
# the local command init prints finds the bug as new, and the generated
# GitLab include's job, run by gitlab-ci-local (shell executor, the
# runner's engine), reports it. No container or network of either scan
# is left (by owner label).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
export PATH="$ROOT/build:$PATH"	# the printed command says `crs-ci`
repo=$tmp/repo
eval "$("$ROOT/examples/make-repo.sh" --clusterfuzzlite "$repo")"
g() { git -C "$repo" -c commit.gpgsign=false "$@"; }
init() { (cd "$1" && shift && "$CRS_CI" init "$@"); }
stamp() { (cd "$repo" && stat -c '%n %i %Y' .crs-ci/crs-compose.yaml \
	.github/workflows/crs-ci.yml .github/workflows/crs-ci-corpus.yml \
	.github/workflows/crs-ci-baseline.yml .gitlab-ci.yml); }

# no .clusterfuzzlite/ and no --project: exit 2, saying what it looked for
eval "$("$ROOT/examples/make-repo.sh" "$tmp/plain")"
set +e
init "$tmp/plain" >"$tmp/out.txt" 2>"$tmp/err.txt"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/out.txt" "$tmp/err.txt" >&2; fail "no project: exit $code, want 2"; }
grep -q "looked for $tmp/plain/.clusterfuzzlite/" "$tmp/err.txt" &&
	grep -q -- "--project DIR" "$tmp/err.txt" ||
	{ cat "$tmp/err.txt" >&2; fail "no project: message"; }
[ "$(grep -c "looked for" "$tmp/err.txt")" -eq 1 ] &&
	[ "$(grep -o "no project" "$tmp/err.txt" | wc -l)" -eq 1 ] &&
	[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] ||
	{ cat "$tmp/err.txt" >&2; fail "no project: the message is not said once"; }
[ -z "$(git -C "$tmp/plain" status --porcelain)" ] || fail "no project: files written"
note "no project: exit 2: $(head -c 160 "$tmp/err.txt")..."
# an empty .clusterfuzzlite/: what is wrong with it, once
mkdir "$tmp/plain/.clusterfuzzlite"
set +e
init "$tmp/plain" >"$tmp/out.txt" 2>"$tmp/err.txt"
code=$?
set -e
[ "$code" -eq 2 ] && grep -q "no Dockerfile" "$tmp/err.txt" &&
	[ "$(grep -o "looked for" "$tmp/err.txt" | wc -l)" -eq 1 ] ||
	{ cat "$tmp/err.txt" >&2; fail "empty .clusterfuzzlite: exit $code"; }
rmdir "$tmp/plain/.clusterfuzzlite"

# an OSS-Fuzz project folder in the repository, named with --project from
# a subfolder: the CI files and the printed command name it from the top
mkdir -p "$tmp/plain/ci/oss-fuzz"
cp "$ROOT/examples/projects/recparse/"* "$tmp/plain/ci/oss-fuzz/"
init "$tmp/plain/src" --project ../ci/oss-fuzz --ci github --cpus 2 >"$tmp/ossfuzz.txt"
grep -q "^  cd $tmp/plain && crs-ci scan --source . --compose .crs-ci/crs-compose.yaml --project ci/oss-fuzz --base main --head HEAD " "$tmp/ossfuzz.txt" ||
	{ cat "$tmp/ossfuzz.txt" >&2; fail "--project: printed command"; }
grep -q "^          project: ci/oss-fuzz$" "$tmp/plain/.github/workflows/crs-ci.yml" || fail "--project: workflow"
grep -q "crs-ci init --project ci/oss-fuzz --ci github --cpus 2 --force" "$tmp/plain/.crs-ci/crs-compose.yaml" ||
	fail "--project: regenerate command"
[ ! -e "$tmp/plain/.gitlab-ci.yml" ] || fail "--ci github wrote .gitlab-ci.yml"
note "an OSS-Fuzz folder by --project: named from the top, in the command too"

# on the default branch, as a maintainer would set it up
g checkout -q main
init "$repo" --dry-run >"$tmp/dry.txt"
cat "$tmp/dry.txt" >&2
[ "$(grep -c "would write" "$tmp/dry.txt")" -eq 5 ] || fail "dry run: want 5 files"
[ -z "$(g status --porcelain)" ] || fail "--dry-run wrote files"

init "$repo" >"$tmp/first.txt"
for f in .crs-ci/crs-compose.yaml .github/workflows/crs-ci.yml \
	.github/workflows/crs-ci-corpus.yml .github/workflows/crs-ci-baseline.yml \
	.gitlab-ci.yml; do
	grep -q "^  wrote  *$f\$" "$tmp/first.txt" || { cat "$tmp/first.txt" >&2; fail "first run: $f not written"; }
	[ -f "$repo/$f" ] || fail "$f missing"
	head -n 5 "$repo/$f" | grep -q "Written by \`crs-ci init\`" || fail "$f: no header"
done
python3 - "$repo" "$(nproc)" <<'PY'
import sys, yaml
repo, cpus = sys.argv[1], int(sys.argv[2])
c = yaml.safe_load(open(repo + "/.crs-ci/crs-compose.yaml"))
assert c["oss_crs_infra"]["cpuset"] == "0", c
assert c["crs-libfuzzer"]["cpuset"] == ("1" if cpus > 1 else "0"), c
assert ("crs-aflpp" in c) == (cpus >= 3), c
for name, v in c.items():
    if isinstance(v, dict):
        assert "source" not in v, (name, v)   # registry names only
w = yaml.safe_load(open(repo + "/.github/workflows/crs-ci.yml"))
step = w["jobs"]["scan"]["steps"][1]["with"]
assert step["compose"] == ".crs-ci/crs-compose.yaml", step
assert step["project"] == ".clusterfuzzlite", step
gl = yaml.safe_load(open(repo + "/.gitlab-ci.yml"))
inputs = gl["include"][0]["inputs"]
assert inputs["compose"] == ".crs-ci/crs-compose.yaml", inputs
assert inputs["project"] == ".clusterfuzzlite", inputs
PY
# the compose, and its LLM patcher block uncommented as it says, pass check
python3 - "$repo/.crs-ci/crs-compose.yaml" "$tmp/patcher.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
mark = "To enable it, uncomment:\n#\n"
head, tail = text.split(mark)
lines = [l[2:] if l.startswith("# ") else l for l in tail.splitlines(True)]
open(sys.argv[2], "w").write(head + mark + "".join(lines))
PY
for c in "$repo/.crs-ci/crs-compose.yaml" "$tmp/patcher.yaml"; do
	OPENAI_API_KEY=unused "$CRS_CI" check --compose "$c" --source "$repo" \
		>"$tmp/check.txt" 2>&1 || { cat "$tmp/check.txt" >&2; fail "check $c"; }
done
grep -q "valid (2 CRS(s))" "$tmp/check.txt" || fail "patcher block: $(cat "$tmp/check.txt")"
grep -qx '    branches: \["main"\]' "$repo/.github/workflows/crs-ci-baseline.yml" ||
	fail "the baseline is not made on pushes to main"
for f in crs-ci.yml crs-ci-corpus.yml crs-ci-baseline.yml; do
	out=$(cd "$repo" && npx --yes @action-validator/cli ".github/workflows/$f" 2>&1) ||
		fail "action-validator $f: $out"
done
note "first run wrote 5 files; action-validator accepts the three workflows"

# a second run writes nothing
before=$(stamp)
init "$repo" >"$tmp/second.txt"
[ "$(grep -c "^  up to date" "$tmp/second.txt")" -eq 5 ] &&
	grep -q "nothing to write" "$tmp/second.txt" ||
	{ cat "$tmp/second.txt" >&2; fail "second run: not all up to date"; }
[ "$(stamp)" = "$before" ] || fail "second run touched a file"
note "second run: every file up to date, none touched"

# an edited file is kept; --force rewrites it
echo "# my edit" >>"$repo/.crs-ci/crs-compose.yaml"
init "$repo" >"$tmp/kept.txt"
grep -q "exists, kept  *.crs-ci/crs-compose.yaml" "$tmp/kept.txt" ||
	{ cat "$tmp/kept.txt" >&2; fail "edited compose not reported kept"; }
tail -n 1 "$repo/.crs-ci/crs-compose.yaml" | grep -q "# my edit" || fail "edited compose overwritten without --force"
init "$repo" --force >"$tmp/force.txt"
grep -q "overwrote  *.crs-ci/crs-compose.yaml" "$tmp/force.txt" ||
	{ cat "$tmp/force.txt" >&2; fail "--force did not overwrite"; }
! grep -q "# my edit" "$repo/.crs-ci/crs-compose.yaml" || fail "--force kept the edit"
[ "$(grep -c "^  up to date" "$tmp/force.txt")" -eq 4 ] || fail "--force rewrote unchanged files"
note "an edited compose is kept, --force rewrites only it"

# a .github that links elsewhere is refused; nothing is written anywhere
git clone -q "$repo" "$tmp/linked"
rm -rf "$tmp/linked/.github" "$tmp/linked/.crs-ci" "$tmp/linked/.gitlab-ci.yml"
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/linked/.github"
set +e
init "$tmp/linked" >"$tmp/out.txt" 2>"$tmp/err.txt"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/out.txt" "$tmp/err.txt" >&2; fail "linked .github: exit $code, want 2"; }
grep -q "\.github: a link" "$tmp/err.txt" || { cat "$tmp/err.txt" >&2; fail "linked .github: message"; }
[ -z "$(ls -A "$tmp/elsewhere")" ] || fail "wrote through the linked .github"
[ ! -e "$tmp/linked/.crs-ci" ] && [ ! -e "$tmp/linked/.gitlab-ci.yml" ] ||
	fail "linked .github: other files written before the refusal"
note "linked .github: exit 2: $(cat "$tmp/err.txt")"

# a user's own .gitlab-ci.yml is never edited, not even with --force
git clone -q "$repo" "$tmp/own"
rm -rf "$tmp/own/.github" "$tmp/own/.crs-ci"
printf 'stages: [build]\nbuild:\n  script: [make]\n' >"$tmp/own/.gitlab-ci.yml"
cp "$tmp/own/.gitlab-ci.yml" "$tmp/own.orig"
init "$tmp/own" --force >"$tmp/own.txt"
cmp -s "$tmp/own/.gitlab-ci.yml" "$tmp/own.orig" || fail "the user's .gitlab-ci.yml was edited"
grep -q "wrote  *.crs-ci/gitlab-ci.yml" "$tmp/own.txt" &&
	grep -q "^  - local: .crs-ci/gitlab-ci.yml$" "$tmp/own.txt" ||
	{ cat "$tmp/own.txt" >&2; fail "own .gitlab-ci.yml: no include file or lines"; }
[ ! -e "$tmp/own/.github" ] || fail "--ci detection: wrote GitHub files into a GitLab repository"
set +e
init "$tmp/own" --compose .gitlab-ci.yml --force >/dev/null 2>"$tmp/err.txt"
code=$?
set -e
[ "$code" -eq 2 ] && cmp -s "$tmp/own/.gitlab-ci.yml" "$tmp/own.orig" ||
	{ cat "$tmp/err.txt" >&2; fail "--compose .gitlab-ci.yml: exit $code, want 2, file kept"; }
note "a user's .gitlab-ci.yml is kept; the include is .crs-ci/gitlab-ci.yml"

# a ClusterFuzzLite user's workflows: a line each on what takes over (a
# link is passed over); --public lays the compose out for 4 CPUs
git clone -q "$repo" "$tmp/cfl"
mkdir -p "$tmp/cfl/.github/workflows"
: >"$tmp/cfl/.github/workflows/cflite_pr.yml"
: >"$tmp/cfl/.github/workflows/cflite_batch.yml"
ln -s /etc/passwd "$tmp/cfl/.github/workflows/cflite_cron.yml"
init "$tmp/cfl" --public >"$tmp/cfl.txt"
grep -q "^  .github/workflows/cflite_pr.yml: fuzzes pull requests as crs-ci.yml now does" "$tmp/cfl.txt" &&
	grep -q "^  .github/workflows/cflite_batch.yml: grows a corpus on the default branch: crs-ci-corpus.yml" "$tmp/cfl.txt" ||
	{ cat "$tmp/cfl.txt" >&2; fail "ClusterFuzzLite's workflows: no line on what takes over"; }
! grep -q "cflite_cron" "$tmp/cfl.txt" || fail "a linked cflite_cron.yml was listed"
grep -q "^compose laid out for 4 CPUs (--public: GitHub's runners for public repositories)" "$tmp/cfl.txt" ||
	{ cat "$tmp/cfl.txt" >&2; fail "--public: not laid out for 4 CPUs"; }
python3 - "$tmp/cfl/.crs-ci/crs-compose.yaml" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
assert c["crs-libfuzzer"]["cpuset"] == "1" and c["crs-aflpp"]["cpuset"] == "2-3", c
PY
note "ClusterFuzzLite's workflows: what takes over each; --public: 4 CPUs"

# the files on the default branch, the pull request on top
g add .crs-ci .github .gitlab-ci.yml
GIT_AUTHOR_DATE="2024-03-03T10:00:00+00:00" GIT_COMMITTER_DATE="2024-03-03T10:00:00+00:00" \
	g commit -q -m "crs-ci init"
g checkout -q pr
GIT_COMMITTER_DATE="2024-03-04T15:30:00+00:00" g rebase -q main
init "$repo" >"$tmp/pr.txt"
cat "$tmp/pr.txt" >&2
grep -q "nothing to write" "$tmp/pr.txt" || fail "init on the pull request wrote files"
cmd=$(grep -A1 "^Try it" "$tmp/pr.txt" | tail -n 1 | sed 's/^  //')
case "$cmd" in
"cd $repo && crs-ci scan --source . --compose .crs-ci/crs-compose.yaml --base main --head HEAD "*) ;;
*) fail "unexpected local command: $cmd" ;;
esac

# the printed command finds the bug; run with a shorter deadline, since
# the demo's second harness (its binary holds a changed function) gets
# the time the first leaves after its PoV (docs/select.md). 3 minutes
# leave the builds room when run-all.sh -j's other script loads the
# machine; the run ends soon after the PoV (--after-finding), not at it.
case "$cmd" in
*" --timeout 10m"*) ;;
*) fail "the printed command has no --timeout 10m: $cmd" ;;
esac
t0=$SECONDS
set +e
bash -c "${cmd/ --timeout 10m/ --timeout 3m}" >"$tmp/verdict.txt" 2>"$tmp/log.txt"
code=$?
set -e
cat "$tmp/verdict.txt" >&2
[ "$code" -eq 1 ] || { tail -n 40 "$tmp/log.txt" >&2; fail "local command: exit $code, want 1"; }
grep -q "\[new\] Heap-buffer-overflow" "$tmp/verdict.txt" || fail "local command: finding not new"
# run in the checkout without --work-dir/--out: crs-ci's folders go
# outside it, and the scan says where
outdir=$(sed -n 's/^crs-ci: work folder .*, results in //p' "$tmp/log.txt")
workdir=$(sed -n 's/^crs-ci: work folder \(.*\), results in .*/\1/p' "$tmp/log.txt")
case "$outdir" in ""|"$repo"/*) fail "local command: results in '$outdir', not outside the checkout" ;; esac
python3 - "$outdir/results.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
assert f[0]["function"] == "parse_extended", f[0]
PY
run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$workdir/scan.json")
owner=crs-ci-${run#*-}
left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
note "the printed command found the bug as new in $((SECONDS - t0)) s"
rm -rf "$outdir" "$workdir"
rmdir "$(dirname "$outdir")" 2>/dev/null || true

# the generated GitLab include's job, by gitlab-ci-local: the component
# becomes a local copy of the template (gitlab-ci-local resolves no
# component, and there is no GitLab to fetch it from) and a shell
# runner's inputs are added; init's own inputs stay
glci_install
mkdir -p "$repo/ci"
cp "$ROOT/gitlab/crs-ci.gitlab-ci.yml" "$repo/ci/crs-ci.gitlab-ci.yml"
python3 - "$repo/.gitlab-ci.yml" "$CRS_CI" <<'PY'
import sys, yaml
path, crs_ci = sys.argv[1:]
doc = yaml.safe_load(open(path))
inc = doc["include"][0]
assert inc.pop("component").startswith("$CI_SERVER_FQDN/ci/crs-ci/crs-ci@v"), inc
inc["local"] = "ci/crs-ci.gitlab-ci.yml"
inc["inputs"].update({"image": "crs-ci:unused-by-the-shell-executor",
                      "services": [], "docker-host": "",
                      "crs-ci-bin": crs_ci, "timeout": "3m"})
text = open(path).read()
header = text[:text.index("\ninclude:") + 1]
open(path, "w").write(header + yaml.safe_dump(doc, sort_keys=False))
PY
g add ci .gitlab-ci.yml
GIT_AUTHOR_DATE="2024-03-04T16:00:00+00:00" GIT_COMMITTER_DATE="2024-03-04T16:00:00+00:00" \
	g commit -q -m "the pipeline, for a shell runner"
t0=$SECONDS
set +e
glci_run "$repo" "$(g rev-parse main)" "$(g rev-parse HEAD)" crs-ci-scan >"$tmp/glci.log" 2>&1
code=$?
set -e
glci_fail() { tail -n 60 "$tmp/glci.log" >&2; fail "gitlab-ci-local: $*"; }
[ "$code" -eq 0 ] || glci_fail "exit $code, want 0"
out=$repo/.gitlab-ci-local/artifacts/crs-ci-scan/crs-ci-out
[ "$(cat "$out/exit-code" 2>/dev/null)" = 1 ] || glci_fail "crs-ci exit $(cat "$out/exit-code" 2>/dev/null), want 1"
grep -q "compose, CRSs and LLM config from the base commit" "$tmp/glci.log" || glci_fail "compose not read from the base"
python3 - "$out/results.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["novelty"] == "new", f
PY
note "gitlab-ci-local ran the generated include's job in $((SECONDS - t0)) s: the bug, new"
