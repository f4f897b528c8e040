# lib.sh - shared helpers of the integration tests (sourced, not run)
#
# Each test is a bash script that exits 0 on success. They drive the real
# crs-ci binary against the real Docker engine and real git repositories.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CRS_CI="$ROOT/build/crs-ci"
TMP_ROOT=${TMPDIR:-/tmp}
# The tests run offline: crs-ci maps the OSS-Fuzz and AIxCC base names to
# the Debian stand-ins of container/base-images/build.sh instead of pulling
# (docs/base-images.md). Tests that start the base runner themselves use
# its stand-in name. test_base_pull.sh tests the pull path.
export CRS_CI_BASE_IMAGES=stand-in
BASE_RUNNER_STAND_IN=crs-ci/base-runner:stand-in
BASE_BUILDER_STAND_IN=crs-ci/base-builder:stand-in

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  - $*" >&2; }

# A fresh temp dir in $TMP, removed when the test exits. Call it directly
# (not in $(...): a trap set in a subshell fires when the subshell ends).
mktemp_dir() {
	TMP=$(mktemp -d "$TMP_ROOT/crs-ci-it.XXXXXX")
	if [ "$BASH_SUBSHELL" -eq 0 ]; then
		[ -n "${KEEP_TMP:-}" ] || trap "rm -rf '$TMP'" EXIT
	else
		echo "$TMP"	# old style tmp=$(mktemp_dir): not removed
	fi
}

# Containers and networks on the engine, for before/after comparisons,
# leaving out those of a crs-ci that still runs (in_use_or_gone) and those
# gone before they could be inspected. With --crs-ci: only what carries
# crs-ci's owner label, so that a script can share the engine with others
# (what other scripts make themselves, as a test network, is not looked
# at); without, everything: for a solo script, which then also sees an
# object crs-ci made without its label.
engine_snapshot() {
	local id filter=()
	[ "${1:-}" = --crs-ci ] && filter=(--filter label=io.crs-ci.owner)
	{
		for id in $(docker ps -aq --no-trunc "${filter[@]}"); do
			in_use_or_gone container "$id" || echo "$id"
		done | sort
		echo --
		for id in $(docker network ls -q --no-trunc "${filter[@]}"); do
			in_use_or_gone network "$id" || echo "$id"
		done | sort
	}
}

# Fail naming what is on the engine now and was not in the snapshot $1
# (engine_snapshot's output; $2: --crs-ci when it was taken so): a
# leftover's name, image and crs-ci labels.
engine_unchanged() {
	local now id
	now=$(engine_snapshot "${2:-}")
	[ "$now" = "$1" ] && return 0
	for id in $(comm -13 <(printf '%s\n' "$1" | sort) \
	    <(printf '%s\n' "$now" | sort)); do
		[ "$id" = -- ] && continue
		docker inspect -f '{{.Name}} {{.Config.Image}} {{json .Config.Labels}}' \
			"$id" 2>/dev/null || docker network inspect -f \
			'network {{.Name}} {{json .Labels}}' "$id" 2>/dev/null ||
			echo "$id (gone since)"
	done >&2
	fail "containers or networks left behind"
}

# Is object $2 (container or network, $1) made by a crs-ci that still
# runs (its io.crs-ci.pid label names a live process), or gone already?
# Other scans on a shared engine are then not taken for this test's
# leftovers: every crs-ci a test starts has exited when it compares its
# snapshots, and one that exits removes what it made first.
in_use_or_gone() {
	local fmt='{{index .Config.Labels "io.crs-ci.pid"}}' pid
	[ "$1" = network ] && fmt='{{index .Labels "io.crs-ci.pid"}}'
	pid=$(docker "$1" inspect -f "$fmt" "$2" 2>/dev/null) || return 0
	[ -n "$pid" ] && [ "$pid" != "<no value>" ] && kill -0 "$pid" 2>/dev/null
}

# install_lock / install_unlock: one install into build/ at a time, when
# run-all.sh -j runs scripts side by side that install the same tool.
install_lock() {
	mkdir -p "$ROOT/build"
	exec {INSTALL_LOCK_FD}>"$ROOT/build/.integration-install.lock"
	flock "$INSTALL_LOCK_FD"
}
install_unlock() { exec {INSTALL_LOCK_FD}>&-; }

# gitlab-ci-local (npm), installed once into build/npm-glci; sets GLCI to
# its path. It needs rsync.
GLCI_VERSION=4.70.1
glci_install() {
	command -v rsync >/dev/null ||
		fail "gitlab-ci-local needs rsync (container/setup-host.sh)"
	GLCI="$ROOT/build/npm-glci/node_modules/.bin/gitlab-ci-local"
	install_lock
	if [ ! -x "$GLCI" ] ||
	    [ "$("$GLCI" --version 2>/dev/null)" != "$GLCI_VERSION" ]; then
		mkdir -p "$ROOT/build/npm-glci"
		npm install --silent --prefix "$ROOT/build/npm-glci" \
			"gitlab-ci-local@$GLCI_VERSION" >/dev/null 2>&1 ||
			fail "npm install gitlab-ci-local@$GLCI_VERSION"
	fi
	install_unlock
}

# pre-commit 3.2 or later (the manifest's minimum_pre_commit_version: its
# stage names), installed once into build/pre-commit; puts it first on
# PATH and exports the PYTHONPATH its installed hooks need. Debian 12 has
# 3.0.4 and this machine reaches no Python registry, so it is Debian 13's
# package, fetched with a private apt state (the host's apt is untouched)
# and unpacked; it runs on the host's python3 with the libraries Debian's
# own pre-commit package brought (container/setup-host.sh).
pre_commit_install() {
	local d="$ROOT/build/pre-commit" pkgs="/usr/lib/python3/dist-packages"
	local apt=(-q -o "Dir::Etc::SourceList=$d/apt/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/apt/lists"
		-o "Dir::Cache=$d/apt" -o Debug::NoLocking=1)
	local v
	if v=$(pre_commit_version "$(command -v pre-commit)") &&
	    pre_commit_new_enough "$v"; then
		return 0	# the host's own is recent enough
	fi
	install_lock
	if ! [ -x "$d/bin/pre-commit" ]; then
		rm -rf "$d" && mkdir -p "$d/apt/lists/partial" "$d/apt/archives/partial" "$d/bin"
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"http://deb.debian.org/debian trixie main" >"$d/apt/sources.list"
		(cd "$d" && apt-get "${apt[@]}" update >apt/update.log 2>&1 &&
			apt-get "${apt[@]}" download pre-commit >apt/download.log 2>&1 &&
			dpkg-deb -x pre-commit_*_all.deb root) ||
			fail "could not fetch Debian 13's pre-commit (see $d/apt/*.log)"
		printf '#!/bin/sh\nexec /usr/bin/python3 -m pre_commit "$@"\n' >"$d/bin/pre-commit"
		chmod +x "$d/bin/pre-commit"
	fi
	install_unlock
	export PATH="$d/bin:$PATH" PYTHONPATH="$d/root$pkgs"
	v=$(pre_commit_version "$d/bin/pre-commit") && pre_commit_new_enough "$v" ||
		fail "pre-commit in $d: '$v' is not 3.2 or later"
}
pre_commit_version() {
	[ -n "$1" ] && "$1" --version 2>/dev/null | sed -n 's/^pre-commit //p' | grep .
}
pre_commit_new_enough() {	# VERSION: 3.2 or later
	[ "$(printf '3.2.0\n%s\n' "$1" | sort -V | head -1)" = 3.2.0 ]
}

# glci_pipeline REPO INPUTS [TEMPLATE]: REPO/.gitlab-ci.yml including a
# copy of the GitLab template (default gitlab/crs-ci.gitlab-ci.yml, copied
# to ci/ under its own name) with INPUTS (YAML mapping lines, indented 6),
# committed on the checked-out branch: gitlab-ci-local includes tracked
# files only. Fixed identity and dates: the same head, so the same images,
# on every run. Sets GLCI_HEAD to that commit.
glci_pipeline() {
	local repo=$1 inputs=$2
	local template=${3:-$ROOT/gitlab/crs-ci.gitlab-ci.yml}
	local name
	name=$(basename "$template")
	mkdir -p "$repo/ci"
	cp "$template" "$repo/ci/$name"
	printf 'include:\n  - local: ci/%s\n    inputs:\n%s\n' \
		"$name" "$inputs" > "$repo/.gitlab-ci.yml"
	git -C "$repo" add .gitlab-ci.yml ci
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.invalid \
	GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.invalid \
	GIT_AUTHOR_DATE="2024-03-04T16:00:00+00:00" \
	GIT_COMMITTER_DATE="2024-03-04T16:00:00+00:00" \
		git -C "$repo" -c commit.gpgsign=false commit -q -m "add the crs-ci pipeline"
	GLCI_HEAD=$(git -C "$repo" rev-parse HEAD)
}

# glci_run REPO BASE HEAD ARGS...: gitlab-ci-local (glci_install) in REPO
# with the shell executor and a runner's predefined variables for a
# merge-request pipeline from BASE to HEAD (gitlab-ci-local sets
# GITLAB_CI=false and a push pipeline).
glci_run() {
	local repo=$1 base=$2 head=$3
	shift 3
	(cd "$repo" && "$GLCI" "$@" --force-shell-executor --no-color \
		--ignore-predefined-vars GITLAB_CI,CI_PIPELINE_SOURCE,CI_COMMIT_SHA \
		--variable GITLAB_CI=true \
		--variable CI_PIPELINE_SOURCE=merge_request_event \
		--variable CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
		--variable CI_COMMIT_SHA="$head")
}

# action_step ID: the run: script of step ID in actions/action.yml (its
# inputs come through env:, never as ${{ }} inside the script)
action_step() {
	python3 - "$ROOT/actions/action.yml" "$1" <<'PY'
import sys, yaml
for st in yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]:
    if st.get("id") == sys.argv[2]:
        assert "${{" not in st["run"], "expression inside run:"
        print(st["run"])
        sys.exit(0)
sys.exit("no step " + sys.argv[2])
PY
}

# commit_hostile_state REPO BASE HEAD SENTINEL OTHER [CACHE]: a pull
# request's commit on REPO's branch of what would be crs-ci's own state in
# a checkout (issue 21): the cache's corpus folder of fuzz_records as a
# link to the folder SENTINEL (made, holding the file secret, whose text
# "host secret" must never reach the results); crs-ci-out/reports as a link to ../.git
# and crs-ci-out/povs as a link to OTHER; a "finished" export of BASE
# under crs-ci-work/source/ that is HEAD's tree (its bug "pre-existing").
# CACHE "restored": the cache folder is left untracked in the checkout,
# as GitLab's cache restore puts it there, not committed.
commit_hostile_state() {
	local repo=$1 base=$2 head=$3 sentinel=$4 other=$5 cache=${6:-commit}
	local forged=$repo/crs-ci-work/source/$base
	mkdir -p "$sentinel"
	echo "host secret $$" > "$sentinel/secret"
	mkdir -p "$repo/.crs-ci-cache/corpus/recparse" "$repo/crs-ci-out" \
		"$forged/src"
	ln -s "$sentinel" "$repo/.crs-ci-cache/corpus/recparse/fuzz_records"
	ln -s ../.git "$repo/crs-ci-out/reports"
	ln -s "$other" "$repo/crs-ci-out/povs"
	git -C "$repo" archive "$head" | tar -xf - -C "$forged/src"
	: > "$forged/.src-complete"
	git -C "$repo" add -f crs-ci-out crs-ci-work
	[ "$cache" = restored ] || git -C "$repo" add -f .crs-ci-cache
	git -C "$repo" -c user.name=pr -c user.email=pr@example.invalid \
		-c commit.gpgsign=false commit -qm "state of our own"
}

# commit_all REPO MESSAGE: commit everything in REPO's work tree as "t"
# on a fixed date (the same SHA on every machine); prints the commit
commit_all() {
	git -C "$1" add -A
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.invalid GIT_AUTHOR_DATE=2024-03-05T10:00:00Z \
	GIT_COMMITTER_DATE=2024-03-05T10:00:00Z \
		git -C "$1" -c commit.gpgsign=false commit -q -m "$2"
	git -C "$1" rev-parse HEAD
}

# sentinel_tag_make: the stand-in base runner tagged as a fresh
# crs-ci-it-sentinel/<random>:before; sets SENTINEL_TAG and SENTINEL_ID
# (the image it names). The caller removes the tag (sentinel_tag_remove).
sentinel_tag_make() {
	SENTINEL_TAG="crs-ci-it-sentinel/$(od -An -tx4 -N4 /dev/urandom | tr -d ' '):before"
	docker tag "$BASE_RUNNER_STAND_IN" "$SENTINEL_TAG"
	SENTINEL_ID=$(docker image inspect -f '{{.Id}}' "$SENTINEL_TAG")
}
# sentinel_tag_check: fails unless SENTINEL_TAG still names SENTINEL_ID
sentinel_tag_check() {
	local got
	got=$(docker image inspect -f '{{.Id}}' "$SENTINEL_TAG" 2>/dev/null || echo gone)
	[ "$got" = "$SENTINEL_ID" ] ||
		fail "a cache archive retagged $SENTINEL_TAG ($SENTINEL_ID -> $got)"
}
# sentinel_tag_remove: the tag of sentinel_tag_make removed, if made
sentinel_tag_remove() {
	[ -z "${SENTINEL_TAG:-}" ] || docker rmi "$SENTINEL_TAG" >/dev/null 2>&1 || true
}

# archive_retag ARCHIVE TAG: the `docker save` ARCHIVE rewritten with TAG
# as the only tag its manifest.json gives the image (an engine loading it
# as it is would move TAG to that image).
archive_retag() {
	python3 - "$1" "$2" <<'PY'
import io, json, sys, tarfile
path, tag = sys.argv[1], sys.argv[2]
with tarfile.open(path) as t:
    members = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
with tarfile.open(path, "w") as out:
    for m, data in members:
        if m.name == "manifest.json":
            man = json.loads(data)
            man[0]["RepoTags"] = [tag]
            data = json.dumps(man).encode()
            m.size = len(data)
        out.addfile(m, io.BytesIO(data) if data is not None else None)
PY
}

# cache_forge_tagging DIR TAG: a cache folder DIR (made, or its
# index.json added to) listing an image of crs-ci's own that no engine
# has, crs-ci-target/recparse:forged-<random>, whose archive is a
# one-file image (imported, saved, removed again) with the tag TAG in its
# manifest. Sets FORGED_TAG to the listed tag.
cache_forge_tagging() {
	local dir=$1 tag=$2 img rel id
	FORGED_TAG="crs-ci-target/recparse:forged-$(od -An -tx4 -N4 /dev/urandom | tr -d ' ')"
	img="crs-ci-it-forged/${FORGED_TAG##*:}:x"
	rel="images/$(printf '%s' "$FORGED_TAG" | sha256sum | cut -c1-64).tar"
	mkdir -p "$dir/images"
	echo forged > "$dir/images/file"
	tar -C "$dir/images" -cf - file | docker import - "$img" >/dev/null
	rm "$dir/images/file"
	id=$(docker image inspect -f '{{.Id}}' "$img")
	docker save -o "$dir/$rel" "$img"
	docker rmi "$img" >/dev/null
	archive_retag "$dir/$rel" "$tag"
	python3 - "$dir/index.json" "image:$FORGED_TAG" "$rel" "$id" \
		"$(stat -c %s "$dir/$rel")" <<'PY'
import json, sys, time
f, name, rel, id_, size = sys.argv[1:]
ix = {"version": 2, "entries": {}}
try:
    ix = json.load(open(f))
except FileNotFoundError:
    pass
ix["entries"][name] = {"path": rel, "id": id_, "size": int(size),
                       "last_used": int(time.time())}
json.dump(ix, open(f, "w"))
PY
}

# cache_scan N [ARGS...]: scan the demo PR ($tmp/repo, $base, $head) on
# fuzz_records with --cache-dir "$cache", work and output folders
# $tmp/workN and $tmp/outN (test_cache.sh, test_cache_hostile.sh).
cache_scan() {
	local n=$1; shift
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m --cache-dir "$cache" \
		--work-dir "$tmp/work$n" --out "$tmp/out$n" "$@"
}

# The SARIF validator (npm), installed once into build/npm.
sarif_validate() {
	local tool="$ROOT/build/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
	install_lock
	if [ ! -x "$tool" ]; then
		mkdir -p "$ROOT/build/npm"
		npm install --silent --prefix "$ROOT/build/npm" @microsoft/sarif-multitool >/dev/null 2>&1 || fail "npm install @microsoft/sarif-multitool"
		chmod u+x "$tool"
	fi
	install_unlock
	"$tool" validate --rule-kind "Gh;Sarif" "$@"
}

# fake_gitlab_build BIN: the fake of GitLab's API (tests/helper/
# fake_gitlab.c) built standalone as BIN: `BIN TOKEN PROJECT MR LOG`
# prints its API URL and, on SIGTERM, writes the requests to LOG.
fake_gitlab_build() {
	cc -std=c11 -D_GNU_SOURCE -DFAKE_GITLAB_MAIN -I"$ROOT" -o "$1" \
		"$ROOT/tests/helper/fake_gitlab.c" "$ROOT/tests/helper/mhd_fake.c" \
		$(pkg-config --cflags --libs libmicrohttpd jansson) -lpthread ||
		fail "building the fake GitLab"
}

# The static crs-ci (`make static`: the LLM gateway's binary in a scan)
# and the test fake of a model provider (tests/helper/fake_llm.c) built
# static as DIR/fake-llm in the same deps image, so it runs in any base
# image container. Sets STATIC_DEPS to that image's name.
build_static_fake_llm() {
	local dir=$1
	mkdir -p "$dir"
	(cd "$ROOT" && make static >/dev/null 2>"$dir/static.log") ||
		{ cat "$dir/static.log" >&2; fail "make static"; }
	STATIC_DEPS=$(docker images crs-ci/static-deps --format '{{.Repository}}:{{.Tag}}' | head -n 1)
	[ -n "$STATIC_DEPS" ] || fail "no crs-ci/static-deps image after make static"
	docker run --rm --network none --user "$(id -u):$(id -g)" \
		-v "$ROOT:/src:ro" -v "$dir:/out" "$STATIC_DEPS" sh -c '
		PATH=/opt/static/bin:$PATH
		cc -std=c11 -D_GNU_SOURCE -DFAKE_LLM_MAIN -O2 -static -I/src \
			$(pkg-config --cflags libmicrohttpd jansson) \
			-o /out/fake-llm /src/tests/helper/fake_llm.c \
			/src/tests/helper/mhd_fake.c \
			$(pkg-config --libs libmicrohttpd jansson) -lpthread' \
		>"$dir/fake-build.log" 2>&1 ||
		{ cat "$dir/fake-build.log" >&2; fail "building fake-llm"; }
}

# Names of a test's fake provider, from TAG: $net (the network the
# gateway leaves through, where the fake listens), $fake (its container),
# $port and a random provider $key. At exit both are removed, and $tmp.
fake_llm_names() {
	net=crs-ci-it-$1-$$
	fake=crs-ci-it-fake-$1-$$
	port=8099
	key="fake-provider-key-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	trap fake_llm_cleanup EXIT
}
fake_llm_cleanup() {
	docker rm -f "$fake" >/dev/null 2>&1 || true
	docker network rm "$net" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}

# fake_llm_start BIN REPLIES LOGDIR: (re)start the fake provider BIN/fake-llm
# (build_static_fake_llm BIN) as $fake on $net, alias fake-llm, port $port,
# key $key, answering from the reply set REPLIES and logging every request
# body to LOGDIR/requests.jsonl; returns once it is reachable on $net.
fake_llm_start() {
	docker rm -f "$fake" >/dev/null 2>&1 || true
	mkdir -p "$3"
	docker run -d --name "$fake" --network "$net" --network-alias fake-llm \
		--user "$(id -u):$(id -g)" \
		-v "$1/fake-llm:/fake-llm:ro" -v "$2:/replies:ro" -v "$3:/log" \
		"$BASE_RUNNER_STAND_IN" /fake-llm --any --port "$port" \
		--replies /replies --log-requests /log/requests.jsonl "$key" \
		>/dev/null
	docker run --rm --network "$net" "$BASE_RUNNER_STAND_IN" timeout 10 \
		bash -c "until exec 3<>/dev/tcp/fake-llm/$port; do sleep 0.2; done" \
		2>/dev/null || fail "fake-llm ($2) is not reachable on $net"
}

# scan_expect WANT ARGS...: `crs-ci scan ARGS --work-dir $tmp/work --out
# $tmp/out`; the verdict goes to $tmp/verdict.txt (and stderr), the log
# to $tmp/log.txt (shown when the exit status is not WANT, which fails).
scan_expect() {
	local want=$1 code
	shift
	set +e
	"$CRS_CI" scan "$@" --work-dir "$tmp/work" --out "$tmp/out" \
		>"$tmp/verdict.txt" 2>"$tmp/log.txt"
	code=$?
	set -e
	cat "$tmp/verdict.txt" >&2
	[ "$code" -eq "$want" ] ||
		{ cat "$tmp/log.txt" >&2; fail "exit $code, want $want"; }
}

# compose_without_llm DEST [CRS_DIR]: tests/fixtures/crs-sleeper's compose
# without its LLM gateway and budget (a CRS that needs no provider), its
# CRS path made absolute, or CRS_DIR (a changed copy of the fixture).
compose_without_llm() {
	python3 - "$ROOT/tests/fixtures/crs-sleeper/compose.yaml" "$1" "${2:-}" <<'PY'
import os, sys, yaml
src, dst, crs = sys.argv[1:]
c = yaml.safe_load(open(src))
c.pop("llm_config", None)
s = c["crs-sleeper"]
s.pop("llm_budget", None)
s["source"]["local_path"] = crs or os.path.normpath(
    os.path.join(os.path.dirname(src), s["source"]["local_path"]))
yaml.safe_dump(c, open(dst, "w"))
PY
}

# assert_change_files WORK_DIR HARNESS: the demo's change reached the CRS
# as diffs/change.json and change.dict, in the build steps' fetch folder
# and in HARNESS's run fetch folder: parse_extended's changed lines (line
# 39 among them), the "RP" literal, a comparison (docs/change-file.md).
assert_change_files() {
	local run_dir
	run_dir=$(ls -d "$1"/runs/*/ | head -n 1)
	python3 - "$run_dir/EXCHANGE_DIR/$2/diffs/change.json" \
		"$1/builds/address/FETCH_DIR/diffs/change.json" <<'PY' ||
import json, sys
for path in sys.argv[1:]:
    c = json.load(open(path))
    assert c["version"] == 1, c
    f = [f for f in c["files"] if f["path"] == "src/recparse.c"][0]
    fn = [g for g in f["functions"] if g["name"] == "parse_extended"][0]
    assert any(a <= 39 <= b for a, b in fn["changed_lines"]), fn
    assert "RP" in c["literals"] and c["comparisons"] > 0, c
PY
		fail "change.json is not the demo's change"
	grep -qx '"RP"' "$run_dir/EXCHANGE_DIR/$2/diffs/change.dict" &&
		grep -qx '"RP"' "$1/builds/address/FETCH_DIR/diffs/change.dict" ||
		fail "change.dict lacks the change's \"RP\""
}

# assert_no_leftovers WORK_DIR: no container or network of the scan whose
# work folder is WORK_DIR is left (by its owner label, so other scans on
# the shared engine do not matter).
assert_no_leftovers() {
	local run owner left
	run=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["run_id"])' "$1/scan.json")
	owner=crs-ci-${run#*-}
	left=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner"; docker network ls -q --filter "label=io.crs-ci.owner=$owner")
	[ -z "$left" ] || fail "containers or networks of $owner left behind: $left"
}
