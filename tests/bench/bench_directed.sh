#!/usr/bin/env bash
# bench_directed.sh - does aiming libFuzzer at the change find injected
# bugs sooner? Time to the first PoV with and without direction, on the
# real engine, through the libFuzzer CRS's own run_fuzzer.sh in its runner
# image:
#
#   tests/bench/bench_directed.sh [--cap SECONDS] [--seeds N] [--cpu CPU]
#                                 [--modes "bare old new"] [BUG...]
#
# Each BUG is a patch tests/bench/real/directed/cjson-BUG.patch: a pull
# request on cJSON 1.7.15 (tests/bench/real/make-cjson-repo.sh) that adds
# a bug. Two kinds, so both sides of direction's trade are measured:
#   hard    behind a constant the fuzzer has to guess (a decimal
#           sentinel, a keyword compared byte by byte, a strcmp'd key):
#           what direction is for;
#   easy-*  an off-by-one on a common path that bare libFuzzer finds in a
#           few seconds: direction must not lose there.
# Default: all of them. Per bug, `crs-ci prepare` and `crs-ci
# build-target` build the target, the CRS's build output and runner image
# and stage diffs/change.json and change.dict; then the runner image runs
# run_fuzzer.sh on cjson_read_fuzzer N times per mode (-seed=1..N, the
# same CPU, the same cap, STOP_ON_FIRST_POV=1), the modes interleaved
# (seed 1 of each mode, then seed 2, ...) so that the load of a shared
# machine hits them alike:
#   bare  DIRECTED=0: the harness's own dictionary (no direction)
#   old   DIRECTED_WARMUP=0: change.dict merged in, value profiling,
#         -focus_function on a touched function, from the first second
#         (the policy before issue 27)
#   new   the default: the same, hedged (run_fuzzer.sh's step 2b: with
#         one CPU the first 10% of FUZZ_TIME, at most 10 s, with the
#         dictionary only, then directed)
# The time to the first PoV is the "[X s] submitted PoV" line of
# run_fuzzer.sh's log (seconds since the container's script started; it
# includes the start-up). Prints one line per run, `uptime` per bug and a
# table of medians ("miss" counts as the cap; a median that is a miss
# prints ">CAP").
# Not part of `make test`; run it once (`make bench-directed`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=${CRS_CI:-$ROOT/build/crs-ci}
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
cap=120
seeds=3
cpu=1
modes=(bare old new)
bugs=()
while [ $# -gt 0 ]; do
	case $1 in
	--cap) cap=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--modes) read -ra modes <<<"$2"; shift 2 ;;
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
for mode in "${modes[@]}"; do
	case $mode in
	bare|old|new) ;;
	*) echo "bench: unknown mode '$mode' (bare, old, new)" >&2; exit 2 ;;
	esac
done
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
	local bug=$1 mode=$2 seed=$3 run=$tmp/$1/$2-$3 t warmup=
	[ "$mode" = old ] && warmup=0
	mkdir -p "$run/fetch/seeds" "$run/submit" "$run/log"
	cp -R "$diffs" "$run/fetch/diffs"
	# io.crs-ci.pid: a live owner, so tests running meanwhile
	# (tests/integration/lib.sh's engine_unchanged) leave it be
	docker run --rm --label "$label" --label "io.crs-ci.pid=$$" \
		--cpuset-cpus "$cpu" --memory 4g \
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
		-e DIRECTED="$([ "$mode" = bare ] && echo 0 || echo 1)" \
		${warmup:+-e DIRECTED_WARMUP="$warmup"} \
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
	echo "== $bug ($(uptime | sed 's/.*load/load/')): $(grep -o '"name": "[^"]*"' "$diffs/change.json" | cut -d'"' -f4 | paste -sd' ' -)" \
		"| change.dict: $(grep -c . "$diffs/change.dict" 2>/dev/null || echo 0) entries"
	declare -A times=()
	for seed in $(seq "$seeds"); do
		for mode in "${modes[@]}"; do
			t=$(fuzz "$bug" "$mode" "$seed")
			times[$mode]+=" $t"
			dir=$(grep -a '^run_fuzzer.sh: .*\(direction\|hedge\):' \
				"$tmp/$bug/$mode-$seed/stderr.log" |
				sed 's/.*\(direction\|hedge\): //' | paste -sd'|' - | cut -c1-120)
			[ "$t" = miss ] || t="$t s"
			echo "   $mode seed $seed: $t ($dir)"
		done
	done
	for mode in "${modes[@]}"; do
		# shellcheck disable=SC2086
		found=$(printf '%s\n' ${times[$mode]} | grep -vc miss || true)
		# shellcheck disable=SC2086
		results+=("$bug $mode $(median ${times[$mode]}) $found/$seeds")
	done
	unset times
done

echo
echo "time to first PoV, median of $seeds seeds (cap $cap s, CPU $cpu; seconds from container start)"
uptime | sed 's/^ *//'
printf '%-22s' bug
for mode in "${modes[@]}"; do printf ' %8s %5s' "$mode" found; done
echo
for bug in "${bugs[@]}"; do
	printf '%-22s' "$bug"
	for mode in "${modes[@]}"; do
		read -r median found < <(printf '%s\n' "${results[@]}" |
			awk -v b="$bug" -v m="$mode" '$1 == b && $2 == m { print $3, $4 }')
		printf ' %8s %5s' "$median" "$found"
	done
	echo
done
