#!/usr/bin/env bash
# bench_directed.sh - does aiming libFuzzer at the change find injected
# bugs sooner? Time to the first PoV with and without direction, on the
# real engine, through the libFuzzer CRS's own run_fuzzer.sh in its runner
# image:
#
#   tests/bench/bench_directed.sh [--cap SECONDS] [--seeds N] [--cpu CPU] [BUG...]
#
# Each BUG is a patch tests/bench/real/directed/cjson-BUG.patch: a pull
# request on cJSON 1.7.15 (tests/bench/real/make-cjson-repo.sh) that adds
# a bug behind a constant the fuzzer has to guess (a decimal sentinel, a
# keyword compared byte by byte, a strcmp'd key). Default:
# all of them. Per bug, `crs-ci prepare` and `crs-ci build-target` build
# the target, the CRS's build output and runner image and stage
# diffs/change.json and change.dict; then the runner image runs
# run_fuzzer.sh on cjson_read_fuzzer N times per mode (-seed=1..N, the
# same CPU, the same cap, STOP_ON_FIRST_POV=1):
#   undirected  DIRECTED=0: the harness's own dictionary, as before
#   directed    the change file: change.dict merged in, value profiling,
#               -focus_function on a touched function
# The time to the first PoV is the "[X s] submitted PoV" line of
# run_fuzzer.sh's log (seconds since the container's script started; it
# includes the start-up). Prints one line per run and a table of medians
# ("miss" counts as the cap; a median that is a miss prints ">CAP").
# Not part of `make test`; run it once (`make bench-directed`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=${CRS_CI:-$ROOT/build/crs-ci}
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
cap=120
seeds=3
cpu=1
bugs=()
while [ $# -gt 0 ]; do
	case $1 in
	--cap) cap=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	-*) echo "bench: unknown option $1" >&2; exit 2 ;;
	*) bugs+=("$1"); shift ;;
	esac
done
if [ ${#bugs[@]} -eq 0 ]; then
	for p in "$ROOT"/tests/bench/real/directed/cjson-*.patch; do
		b=${p##*/cjson-}
		bugs+=("${b%.patch}")
	done
fi
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
harness=cjson_read_fuzzer
label=io.crs-ci.owner=bench-directed-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench-directed.XXXXXX")
cleanup() {
	docker ps -aq --filter "label=$label" | xargs -r docker rm -f >/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# build BUG: sets image, build_out and diffs for the bug's pull request.
build() {
	local bug=$1 dir=$tmp/$1 opts
	mkdir -p "$dir"
	eval "$("$ROOT/tests/bench/real/make-cjson-repo.sh" "$dir/repo" \
		"$ROOT/tests/bench/real/directed/cjson-$bug.patch")"
	opts=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	      --project "$ROOT/tests/bench/real/projects/cjson"
	      --source "$dir/repo" --base "$base" --head "$head"
	      --harness "$harness" --timeout 20m --work-dir "$dir/work")
	if ! "$CRS_CI" prepare "${opts[@]}" >"$dir/build.log" 2>&1 ||
	   ! "$CRS_CI" build-target "${opts[@]}" >>"$dir/build.log" 2>&1; then
		tail -n 20 "$dir/build.log" >&2
		echo "bench: $bug does not build" >&2
		exit 1
	fi
	image=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["images"]["crs-libfuzzer/fuzzer"])' \
		"$dir/work/scan.json")
	build_out=$dir/work/builds/address/crs/crs-libfuzzer/BUILD_OUT_DIR/build
	diffs=$dir/work/builds/address/FETCH_DIR/diffs
	if [ ! -x "$build_out/$harness" ] || [ ! -f "$diffs/change.json" ]; then
		echo "bench: $bug: no build output or change file" >&2
		exit 1
	fi
}

# fuzz BUG MODE SEED: prints the seconds to the first PoV, or "miss".
fuzz() {
	local bug=$1 mode=$2 seed=$3 run=$tmp/$1/$2-$3 t
	mkdir -p "$run/fetch/seeds" "$run/submit" "$run/log"
	cp -R "$diffs" "$run/fetch/diffs"
	docker run --rm --label "$label" --cpuset-cpus "$cpu" --memory 4g \
		--network none --cap-drop ALL \
		--cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add FOWNER \
		--security-opt no-new-privileges \
		-v "$build_out:/OSS_CRS_BUILD_OUT_DIR/build:ro" \
		-v "$run/fetch:/OSS_CRS_FETCH_DIR:ro" \
		-v "$run/submit:/OSS_CRS_SUBMIT_DIR" \
		-v "$run/log:/OSS_CRS_LOG_DIR" \
		-e OSS_CRS_BUILD_OUT_DIR=/OSS_CRS_BUILD_OUT_DIR \
		-e OSS_CRS_FETCH_DIR=/OSS_CRS_FETCH_DIR \
		-e OSS_CRS_SUBMIT_DIR=/OSS_CRS_SUBMIT_DIR \
		-e OSS_CRS_LOG_DIR=/OSS_CRS_LOG_DIR \
		-e OSS_CRS_TARGET_HARNESS="$harness" \
		-e FUZZ_TIME="$cap" -e STOP_ON_FIRST_POV=1 \
		-e FUZZER_EXTRA_ARGS="-seed=$seed" \
		-e DIRECTED="$([ "$mode" = directed ] && echo 1 || echo 0)" \
		"$image" >"$run/stdout.log" 2>"$run/stderr.log" || true
	t=$(sed -n 's/^run_fuzzer.sh: \[\([0-9.]*\) s\] submitted PoV.*/\1/p' \
		"$run/stderr.log" | head -n 1)
	echo "${t:-miss}"
}

# median of three or more times ("miss" = the cap, flagged)
median() {
	printf '%s\n' "$@" | sed "s/^miss$/$cap.001/" | sort -g |
		awk -v cap="$cap" '{ v[NR] = $1 } END {
			m = v[int((NR + 1) / 2)]
			if (m > cap) printf ">%d", cap; else printf "%.1f", m }'
}

results=()
for bug in "${bugs[@]}"; do
	build "$bug"
	echo "== $bug: $(grep -o '"name": "[^"]*"' "$diffs/change.json" | cut -d'"' -f4 | paste -sd' ' -)" \
		"| change.dict: $(grep -c . "$diffs/change.dict" 2>/dev/null || echo 0) entries"
	for mode in undirected directed; do
		times=()
		for seed in $(seq "$seeds"); do
			t=$(fuzz "$bug" "$mode" "$seed")
			times+=("$t")
			dir=$(grep -a '^run_fuzzer.sh: .*direction:' \
				"$tmp/$bug/$mode-$seed/stderr.log" | head -n 1 |
				sed 's/.*direction: //' | cut -c1-160)
			[ "$t" = miss ] || t="$t s"
			echo "   $mode seed $seed: $t ($dir)"
		done
		found=$(printf '%s\n' "${times[@]}" | grep -vc miss || true)
		results+=("$bug $mode $(median "${times[@]}") $found/$seeds")
	done
done

echo
echo "time to first PoV, median of $seeds seeds (cap $cap s, CPU $cpu; seconds from container start)"
printf '%-20s %14s %8s %14s %8s\n' bug undirected found directed found
for bug in "${bugs[@]}"; do
	u=$(printf '%s\n' "${results[@]}" | awk -v b="$bug" '$1 == b && $2 == "undirected" { print $3, $4 }')
	d=$(printf '%s\n' "${results[@]}" | awk -v b="$bug" '$1 == b && $2 == "directed" { print $3, $4 }')
	# shellcheck disable=SC2086
	printf '%-20s %14s %8s %14s %8s\n' "$bug" $u $d
done
