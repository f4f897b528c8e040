#!/usr/bin/env bash
# bench_parbuild.sh - the time a pull-request scan spends before fuzzing
# (issue 13, items 2 and 3), on the recparse demo and on cJSON 1.7.15
# (tests/bench/real), on the real engine with warm images:
#
#   tests/bench/bench_parbuild.sh [demo|cjson]...   (needs build/crs-ci;
#                                   CRS_CI=PATH measures another binary)
#
# For each target, scans with fresh work dirs, each stopped (SIGINT) as
# soon as select has chosen the harnesses, i.e. when fuzzing would begin.
# PR2 is another change on PR1's base. Both are scanned once first so
# their images are warm (not measured); then:
#   pr1-fill     PR1 with --cache-dir (keeps the base build)
#   pr2-nocache  PR2 without a cache: every build of the scan
#   pr2-cache    PR2 with the same --cache-dir: the base build restored
# and prints for each: seconds from the start to the build-target line,
# to the end of build-target (the harness list) and to select's choice,
# and how many `compile` runs it made ("compiling" progress lines) or
# restored. No assertion: the numbers go into the issue's notes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=${CRS_CI:-$ROOT/build/crs-ci}
# offline, on the Debian stand-ins (docs/base-images.md)
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }

# until_select NAME ARGS...: a scan, stopped when select has chosen;
# its log, each line stamped with its second, in $tmp/NAME.log
until_select() {
	local name=$1 t0 pid line
	shift
	rm -f "$tmp/err"
	mkfifo "$tmp/err"
	t0=$(date +%s.%N)
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--timeout 10m --work-dir "$tmp/work-$name" --out "$tmp/out-$name" \
		"$@" >/dev/null 2>"$tmp/err" &
	pid=$!
	while IFS= read -r line; do
		printf '%.2f %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$line"
		case $line in
		*"harness(es) to fuzz"*|*"to fuzz (every harness"*) kill -INT "$pid" ;;
		esac
	done <"$tmp/err" >"$tmp/$name.log"
	wait "$pid" || true
}

# at LOG PATTERN: the second of the first line matching PATTERN
at() { grep -m1 -- "$2" "$1" | cut -d' ' -f1 || true; }

report() {
	local log=$tmp/$1.log
	printf '  %-12s build-target %6ss  harnesses %6ss  select done %6ss  compiles %s  restored %s\n' \
		"$1" "$(at "$log" 'build-target: ')" "$(at "$log" 'harnesses in the build')" \
		"$(at "$log" 'to fuzz')" "$(grep -c ': compiling ' "$log" || true)" \
		"$(grep -c 'restored from the cache' "$log" || true)"
}

# bench NAME PROJECT REPO BASE HEAD1 HEAD2
bench() {
	local name=$1 proj=$2 repo=$3 base=$4 h1=$5 h2=$6 cache=$tmp/cache-$1
	local common=(--project "$proj" --source "$repo" --base "$base")
	# warm the images (not measured)
	until_select "$name-warm1" "${common[@]}" --head "$h1"
	until_select "$name-warm2" "${common[@]}" --head "$h2"
	until_select "$name-pr1-fill" "${common[@]}" --head "$h1" --cache-dir "$cache"
	until_select "$name-pr2-nocache" "${common[@]}" --head "$h2"
	until_select "$name-pr2-cache" "${common[@]}" --head "$h2" --cache-dir "$cache"
	echo "$name ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)):"
	report "$name-pr1-fill"
	report "$name-pr2-nocache"
	report "$name-pr2-cache"
	grep -h 'side by side' "$tmp/$name-pr2-nocache.log" | sed 's/^[0-9.]* /  /' || true
}

# pr2 REPO BASE FILE: a second change on BASE (a comment added to FILE);
# prints its commit
pr2() {
	git -C "$1" checkout -q -b pr2 "$2"
	echo "/* another change */" >>"$1/$3"
	git -C "$1" -c user.name=bench -c user.email=bench@example.com \
		commit -q -am "pr2"
	git -C "$1" rev-parse HEAD
}

for t in "${@:-demo cjson}"; do
	for w in $t; do
		case $w in
		demo)
			eval "$("$ROOT/examples/make-repo.sh" "$tmp/demo")"
			h2=$(pr2 "$tmp/demo" "$base" src/recparse.h)
			bench demo "$ROOT/examples/projects/recparse" "$tmp/demo" \
				"$base" "$head" "$h2" ;;
		cjson)
			eval "$("$ROOT/tests/bench/real/make-cjson-repo.sh" "$tmp/cjson" \
				"$ROOT/tests/bench/real/clean-reject-nan.patch")"
			h2=$(pr2 "$tmp/cjson" "$base" cJSON.h)
			bench cjson "$ROOT/tests/bench/real/projects/cjson" "$tmp/cjson" \
				"$base" "$head" "$h2" ;;
		*) echo "bench: unknown target '$w' (demo, cjson)" >&2; exit 2 ;;
		esac
	done
done
