#!/usr/bin/env bash
# bench_regressions.sh - does crs-ci catch real regressions, and how soon?
# `make bench-regressions` (issue 23):
#
#   tests/bench/bench_regressions.sh [--deadline DUR] [--fuzz-seconds N]
#                                    [--cpu CPUS] [--scan-arg ARG]...
#                                    [--compose FILE] [--no-bare]
#                                    [--all-harnesses] [--table FILE]
#                                    [--campaign SECONDS] [NAME...]
#
# The bugs are tests/bench/real/regressions/bugs.tsv: fixes from a C
# library's history that OSS-Fuzz found, each reverted as a pull request
# on the Debian bookworm release tree (tests/bench/real/make-LIB-repo.sh
# makes the repository, regressions/NAME.patch is the pull request), plus
# a clean change per library. --table FILE runs another table of the same
# columns, its patches NAME.patch beside FILE (real/medium/bugs.tsv: guards
# weakened so that the crash needs a large count, length or size). Default:
# every row. For each, one at a time:
#   1. `crs-ci scan` of the pull request with the libFuzzer CRS
#      (container/crs/libfuzzer), --harness from the row (with
#      --all-harnesses none: the scan's select phase picks among all the
#      library's harnesses and shares the time, as a user's scan does), --timeout
#      DEADLINE (default 10m; with --fuzz-seconds N, also --fuzz-seconds N,
#      for a loaded machine where the builds eat the deadline), no cache
#      (a corpus carried from one bug to the next would help the second),
#      and each --scan-arg ARG (the same scan without a part of issue 23:
#      --scan-arg --until-deadline --scan-arg --lend-cores=no), with
#      --compose FILE in place of the libFuzzer CRS's own compose.yaml
#      (real/compose-undirected.yaml: the same CRS with DIRECTED=0, no
#      direction from the change):
#      its verdict, wall time and, from results.json, the scan second of
#      the first PoV (the run phase's start plus timings.first_pov_s);
#   2. bare libFuzzer, for a bug row: the harness of the scan's own head
#      build, in its runner image, with the harness's seed corpus when it
#      has one, -seed=1, until the first crash or DEADLINE (N seconds
#      with --fuzz-seconds): its time to that crash (container start to
#      exit) that does not reproduce on the base build (one that does is
#      not the bug: see bare()). A clean row has no bug to race for: "-";
#      --no-bare skips it for every row (a rerun of the scans alone, the
#      bare times measured already).
# With --campaign SECONDS (the corpus arm, issue 41): before the rows, per
# library, a bare git store ($BENCH_LOG_DIR/stores/LIB.git) is grown by a
# `crs-ci scan --mode batch` of the release tree (the base) fuzzing the
# library's row harnesses for SECONDS in all, then minimized by `--mode
# prune`; every row of that library then scans with --corpus-store (and
# bare libFuzzer starts from the same store corpus). The store's sizes
# before and after the prune, and the campaign's own verdict, are printed
# above the table.
# A bug counts as found when the scan's verdict is FAIL; a clean change
# passes when its verdict is PASS; an INCOMPLETE scan (the deadline left a
# harness less fuzzing than it was due, e.g. the builds ate it) counts as
# neither and says so. Prints one line per row and a Markdown
# table; logs and results stay in $BENCH_LOG_DIR (default a temporary
# folder, printed). Not part of `make test`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REAL=$ROOT/tests/bench/real
CRS_CI=${CRS_CI:-$ROOT/build/crs-ci}
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
deadline=10m
fuzz_seconds=
cpus=${BENCH_CPUS:-0-1}
names=()
extra=()
compose=$ROOT/container/crs/libfuzzer/compose.yaml
run_bare=yes
harnesses="the row's"
table=$REAL/regressions/bugs.tsv
campaign=

die() { printf 'bench-regressions: error: %s\n' "$*" >&2; exit 2; }
say() { printf 'bench-regressions: %s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--deadline) [ $# -ge 2 ] || die "--deadline needs a duration"; deadline=$2; shift 2 ;;
	--fuzz-seconds) [ $# -ge 2 ] || die "--fuzz-seconds needs a number"; fuzz_seconds=$2; shift 2 ;;
	--cpu) [ $# -ge 2 ] || die "--cpu needs a CPU list"; cpus=$2; shift 2 ;;
	--scan-arg) [ $# -ge 2 ] || die "--scan-arg needs an argument"; extra+=("$2"); shift 2 ;;
	--compose) [ $# -ge 2 ] || die "--compose needs a file"; compose=$(realpath -e "$2" 2>/dev/null) ||
		die "--compose $2: no such file"; shift 2 ;;
	--no-bare) run_bare=no; shift ;;
	--all-harnesses) harnesses=all; shift ;;
	--table) [ $# -ge 2 ] || die "--table needs a file"; table=$(realpath -e "$2" 2>/dev/null) ||
		die "--table $2: no such file"; shift 2 ;;
	--campaign) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] ||
		die "--campaign needs a number of seconds"; campaign=$2; shift 2 ;;
	-*) die "unknown option $1" ;;
	*) names+=("$1"); shift ;;
	esac
done
[ -x "$CRS_CI" ] || die "build crs-ci first (make)"
command -v docker >/dev/null || die "docker not found"

# seconds DUR: 90, 90s, 3m, 1h as seconds
seconds() {
	case $1 in
	*h) echo $(( ${1%h} * 3600 )) ;;
	*m) echo $(( ${1%m} * 60 )) ;;
	*s) echo "${1%s}" ;;
	*) echo "$1" ;;
	esac
}
[[ $deadline =~ ^[0-9]+[smh]?$ ]] || die "--deadline $deadline: not a duration (90, 90s, 3m, 1h)"
cap=$(seconds "$deadline")
scan_fuzz=()
if [ -n "$fuzz_seconds" ]; then
	[[ $fuzz_seconds =~ ^[0-9]+$ ]] || die "--fuzz-seconds $fuzz_seconds: not a number of seconds"
	cap=$fuzz_seconds
	scan_fuzz=(--fuzz-seconds "$fuzz_seconds")
fi

mapfile -t rows < <(grep -v '^#' "$table" | grep .)
if [ ${#names[@]} -gt 0 ]; then
	picked=()
	for n in "${names[@]}"; do
		row=$(printf '%s\n' "${rows[@]}" | awk -F'\t' -v n="$n" '$1 == n') ||
			true
		[ -n "$row" ] || die "$n: no such row in $table"
		picked+=("$row")
	done
	rows=("${picked[@]}")
fi

logs=${BENCH_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-regressions.XXXXXX")}
mkdir -p "$logs"
label=io.crs-ci.owner=bench-regressions-$$
# bare libFuzzer's containers: labelled for the cleanup, on the row's
# CPUs, no network, no capabilities
sandbox=(docker run --rm --label "$label" --cpuset-cpus "$cpus" --memory 4g
	--network none --cap-drop ALL --security-opt no-new-privileges)
cleanup() {
	docker ps -aq --filter "label=$label" | xargs -r docker rm -f >/dev/null
}
trap cleanup EXIT
# the run's settings, said at the start and above the table
run_desc="table ${table#"$ROOT"/}, deadline $deadline, fuzz-seconds ${fuzz_seconds:-none}, CPUs $cpus${extra[*]:+, scan ${extra[*]}}, compose ${compose#"$ROOT"/}, harnesses $harnesses${campaign:+, campaign ${campaign}s per library}"
say "logs in $logs; $run_desc"

# json FILE EXPR: a value from a JSON file (python3, as bench_directed.sh)
json() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("timings") or {}
s = d.get("summary") or {}
run = [x for x in t.get("spans", []) if x.get("kind") == "phase" and x.get("name") == "run"]
v = {
    "verdict": d.get("verdict") or "-",
    "findings": len(d.get("findings") or []),
    "pov": ("%.0f" % (run[0]["start_s"] + t["first_pov_s"]))
           if run and t.get("first_pov_s") is not None else "-",
    "head_build": s.get("head_build") or "",
    "runner_image": s.get("runner_image") or "",
}[sys.argv[2]]
print(v)
EOF
}

# crashes IMAGE BUILD HARNESS DIR: 0 when the harness of BUILD fails on
# the artifacts in DIR, in the runner IMAGE (-timeout=25, 2560 MB)
crashes() {
	# shellcheck disable=SC2016
	! "${sandbox[@]}" -v "$2:/out:ro" -v "$4:/crash:ro" "$1" \
		bash -c '"/out/$1" -timeout=25 -rss_limit_mb=2560 /crash/*' \
		bare "$3" >>"$4.log" 2>&1
}

# bare DIR HARNESS: bare libFuzzer on the scan's head build; prints the
# seconds to its first crash, timeout or out-of-memory that reproduces on
# the head build and not on the base build, or "miss". Any other is not
# the bug: an out-of-memory of memory grown over many inputs (its
# artifact, the last input, runs fine alone), or one the release tree
# has too (libwebp 1.2.4 allocates 12 GB on inputs of its unchanged
# tree). Then libFuzzer is started again, with the next -seed, on the
# corpus it has made, until the cap.
bare() {
	local dir=$1 harness=$2 build image base t0 rc seed=1 left why
	build=$(json "$dir/out/results.json" head_build)
	image=$(json "$dir/out/results.json" runner_image)
	base=$dir/work/builds/address/base/out
	if [ -z "$build" ] || [ -z "$image" ] || [ ! -x "$build/$harness" ]; then
		echo "n/a"
		return
	fi
	rm -rf "$dir/bare-corpus" "$dir/bare-crash"
	mkdir -p "$dir/bare-corpus" "$dir/bare-crash"
	# the corpus arm: bare libFuzzer starts from the store's corpus too
	if [ -n "$campaign" ] && git -C "$logs/stores/$lib.git" rev-parse -q \
	    --verify "refs/heads/crs-ci-corpus:corpus/$harness" >/dev/null; then
		git -C "$logs/stores/$lib.git" archive refs/heads/crs-ci-corpus \
			"corpus/$harness" | tar -x -C "$dir/bare-corpus" \
			--strip-components=2
	fi
	: >"$dir/bare.log"
	t0=$(date +%s)
	while left=$((cap - ($(date +%s) - t0))); [ "$left" -gt 0 ]; do
		rm -f "$dir"/bare-crash/*
		rc=0
		# shellcheck disable=SC2016
		"${sandbox[@]}" -v "$build:/out:ro" \
			-v "$dir/bare-corpus:/corpus" -v "$dir/bare-crash:/crash" \
			"$image" bash -c '
			if [ "$3" = 1 ] && [ -f "/out/$1_seed_corpus.zip" ]; then
				unzip -q -o "/out/$1_seed_corpus.zip" -d /corpus
			fi
			dict=()
			[ -f "/out/$1.dict" ] && dict=(-dict="/out/$1.dict")
			exec "/out/$1" -seed="$3" -max_total_time="$2" -timeout=25 \
				-rss_limit_mb=2560 -artifact_prefix=/crash/ \
				"${dict[@]}" /corpus' \
			bare "$harness" "$left" "$seed" >>"$dir/bare.log" 2>&1 || rc=$?
		if ! ls "$dir"/bare-crash/* >/dev/null 2>&1; then
			[ "$rc" -eq 0 ] && break	# its time is up
			echo "bare: exit $rc without an artifact" >>"$dir/bare.log"
			break
		fi
		# not the bug: it does not fail alone, or the base build has
		# it too (a base build without the harness: new)
		if ! crashes "$image" "$build" "$harness" "$dir/bare-crash"; then
			why="does not fail on its own"
		elif [ -x "$base/$harness" ] &&
		    crashes "$image" "$base" "$harness" "$dir/bare-crash"; then
			why="fails on the base build too"
		else
			echo $(( $(date +%s) - t0 ))
			return
		fi
		echo "bare: $(ls "$dir/bare-crash") $why: on" >>"$dir/bare.log"
		seed=$((seed + 1))
	done
	echo miss
}

# store_count STORE REV HARNESS: inputs in corpus/HARNESS of the store's REV
store_count() {
	git -C "$1" ls-tree "$2" "corpus/$3/" 2>/dev/null | wc -l
}

# The corpus arm: per library, a batch campaign of the release tree into
# a bare store, then a prune; campaign_notes says what each made.
campaign_notes=()
if [ -n "$campaign" ]; then
	for lib in $(printf '%s\n' "${rows[@]}" | cut -f2 | sort -u); do
		dir=$logs/campaign-$lib
		store=$logs/stores/$lib.git
		rm -rf "$dir" "$store"
		mkdir -p "$dir" "$(dirname "$store")"
		git init -q --bare "$store"
		first=$(printf '%s\n' "${rows[@]}" | awk -F'\t' -v l="$lib" '$2 == l {print $1; exit}')
		base=''
		eval "$("$REAL/make-$lib-repo.sh" "$dir/repo" "$(dirname "$table")/$first.patch")" ||
			die "$lib: cannot make the repository"
		hs=()
		for h in $(printf '%s\n' "${rows[@]}" | awk -F'\t' -v l="$lib" '$2 == l {print $3}' | sort -u); do
			hs+=(--harness "$h")
		done
		say "campaign $lib: batch of ${campaign}s (${hs[*]}) into $store"
		for mode in batch prune; do
			rc=0
			nice "$CRS_CI" scan --compose "$compose" \
				--project "$REAL/projects/$lib" --source "$dir/repo" \
				--head "$base" "${hs[@]}" --mode "$mode" \
				--corpus-store "$store" --fail-on none \
				--fuzz-seconds "$campaign" --saturation off \
				--timeout "$((campaign + 900))" \
				--out "$dir/out-$mode" --work-dir "$dir/work" \
				>"$dir/$mode.log" 2>&1 || rc=$?
			[ "$rc" -eq 0 ] || say "campaign $lib: $mode exit $rc (log $dir/$mode.log)"
		done
		tip=$(git -C "$store" rev-parse -q --verify refs/heads/crs-ci-corpus || true)
		for h in "${hs[@]}"; do
			[ "$h" = --harness ] && continue
			if [ -n "$tip" ]; then
				note="$lib/$h: $(store_count "$store" "$tip^" "$h") input(s) after the batch, $(store_count "$store" "$tip" "$h") after the prune"
			else
				note="$lib/$h: the campaign stored nothing"
			fi
			say "campaign $note"
			campaign_notes+=("$note; the batch's verdict $(json "$dir/out-batch/results.json" verdict 2>/dev/null || echo -)")
		done
	done
fi

results=()
for row in "${rows[@]}"; do
	IFS=$'\t' read -r name lib harness kind _ <<<"$row"
	dir=$logs/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	base='' head=''
	eval "$("$REAL/make-$lib-repo.sh" "$dir/repo" "$(dirname "$table")/$name.patch")" ||
		die "$name: cannot make the repository"
	pick=(--harness "$harness")
	[ "$harnesses" = all ] && pick=()
	[ -n "$campaign" ] && pick+=(--corpus-store "$logs/stores/$lib.git")
	t0=$(date +%s)
	rc=0
	nice "$CRS_CI" scan --compose "$compose" \
		--project "$REAL/projects/$lib" --source "$dir/repo" \
		--base "$base" --head "$head" "${pick[@]}" \
		--timeout "$deadline" "${scan_fuzz[@]}" "${extra[@]}" \
		--out "$dir/out" --work-dir "$dir/work" \
		>"$dir/scan.log" 2>&1 || rc=$?
	wall=$(( $(date +%s) - t0 ))
	if [ -f "$dir/out/results.json" ]; then
		verdict=$(json "$dir/out/results.json" verdict)
		nfind=$(json "$dir/out/results.json" findings)
		pov=$(json "$dir/out/results.json" pov)
		b=-
		[ "$kind" = clean ] || [ $run_bare = no ] || b=$(bare "$dir" "$harness")
	else
		verdict="error(exit $rc)" nfind=- pov=- b=n/a
	fi
	case $kind:$verdict in
	bug:FAIL) outcome=found ;;
	*:INCOMPLETE) outcome="incomplete" ;;
	bug:*) outcome=missed ;;
	clean:PASS) outcome=clean ;;
	clean:*) outcome="false alarm" ;;
	esac
	say "$name: $outcome, verdict $verdict after ${wall}s (exit $rc), first PoV ${pov}s, findings $nfind, bare libFuzzer $b"
	results+=("$name|$lib|$kind|$outcome|$verdict|$wall|$pov|$b")
done

echo
echo "$run_desc; seconds; bare = libFuzzer -seed=1 on the head build, cap ${cap}s"
for n in "${campaign_notes[@]}"; do
	echo "campaign: $n"
done
echo
echo "| bug | library | kind | outcome | verdict | time to verdict | first PoV (scan) | bare libFuzzer first PoV |"
echo "|---|---|---|---|---|---|---|---|"
for r in "${results[@]}"; do
	echo "| ${r//|/ | } |"
done
found=$(printf '%s\n' "${results[@]}" | awk -F'|' '$3 == "bug" && $4 == "found"' | wc -l)
bugs=$(printf '%s\n' "${results[@]}" | awk -F'|' '$3 == "bug"' | wc -l)
clean=$(printf '%s\n' "${results[@]}" | awk -F'|' '$3 == "clean" && $4 == "clean"' | wc -l)
cleans=$(printf '%s\n' "${results[@]}" | awk -F'|' '$3 == "clean"' | wc -l)
echo
incomplete=$(printf '%s\n' "${results[@]}" | awk -F'|' '$4 == "incomplete"' | wc -l)
echo "found $found of $bugs bugs; $clean of $cleans clean changes PASS; $incomplete incomplete"
