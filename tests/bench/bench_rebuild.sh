#!/usr/bin/env bash
# bench_rebuild.sh - what a patched rebuild costs, against a full rebuild,
# on the recparse example (issue 5), on the real engine:
#
#   tests/bench/bench_rebuild.sh [RUNS]      (default 3; needs build/crs-ci)
#
# `crs-ci build-target` gives the head image (cached when it exists); then,
# RUNS times each, median seconds:
#   full     `compile` of the head in a fresh container: what crs-ci's own
#            head build (target_compile) does;
#   patched  what patch validation does for a one-file patch (the correct
#            fix of tests/fixtures/crs-patcher): build the patched source
#            image (head tree + patch laid over the target image; the
#            Docker layer cache is warm after the first run) and
#            `compile` it in a fresh container;
#   warm     the patch applied inside a container that already compiled
#            the head, then `compile` again: the best a snapshot
#            (docker commit after the build) could give this project,
#            whose build.sh recompiles every file whatever changed.
# crs-ci has no incremental path yet: "patched" is a full compile plus an
# image build. Prints the times and the ratios patched/full, warm/full.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
runs=${1:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
images=()
cleanup() {
	# only images this script created without a tag (dangling)
	for i in "${images[@]}"; do
		[ -z "$(docker image inspect -f '{{join .RepoTags ","}}' "$i" 2>/dev/null)" ] &&
			docker rmi "$i" >/dev/null 2>&1 || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
patch=$ROOT/tests/fixtures/crs-patcher/patches/01-good-bounds-check.patch

"$CRS_CI" build-target --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo" \
	--base "$base" --head "$head" --work-dir "$tmp/work" \
	--out "$tmp/out" >/dev/null 2>"$tmp/build-target.log" ||
	{ cat "$tmp/build-target.log" >&2; exit 3; }
head_image=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["head_image"])' "$tmp/work/scan.json")
target_image=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target_image"])' "$tmp/work/scan.json")
env=(-e SANITIZER=address -e FUZZING_ENGINE=libfuzzer -e ARCHITECTURE=x86_64
     -e FUZZING_LANGUAGE=c -e PROJECT_NAME=recparse -e HELPER=True)
run_opts=(--rm --network none --cpuset-cpus 0 --shm-size 2g)

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# the patched source context, as validate.c writes it
ctx=$tmp/patched
mkdir -p "$ctx"
cp -a "$tmp/work/source/$head/src" "$ctx/src"
cp -a "$ROOT/examples/projects/recparse" "$ctx/proj"
git -C "$ctx/src" init -q 2>/dev/null || true
(cd "$ctx/src" && git apply -p1 "$patch" && rm -rf .git)
cat > "$ctx/Dockerfile" <<DF
FROM $target_image
RUN rm -rf '/src/recparse' && mkdir -p '/src/recparse'
COPY src/ /src/recparse/
COPY proj/ /OSS_CRS_PROJ_PATH/
WORKDIR /src/recparse
DF

: > "$tmp/full"; : > "$tmp/patched.t"; : > "$tmp/warm"
for i in $(seq "$runs"); do
	mkdir -p "$tmp/o-full-$i" "$tmp/o-patched-$i" "$tmp/o-warm-$i"
	t0=$(now)
	docker run "${run_opts[@]}" "${env[@]}" -v "$tmp/o-full-$i:/out" \
		"$head_image" compile >"$tmp/full-$i.log" 2>&1
	t1=$(now)
	id=$(docker build -q "$ctx")
	images+=("$id")
	docker run "${run_opts[@]}" "${env[@]}" -v "$tmp/o-patched-$i:/out" \
		"$id" compile >"$tmp/patched-$i.log" 2>&1
	t2=$(now)
	docker run "${run_opts[@]}" "${env[@]}" -v "$tmp/o-warm-$i:/out" \
		-v "$patch:/fix.patch:ro" "$head_image" bash -c \
		'compile >/dev/null 2>&1 && patch -p1 -s </fix.patch &&
		 s=$(date +%s.%N) && compile >/dev/null 2>&1 &&
		 e=$(date +%s.%N) && echo "$s $e"' >"$tmp/warm-$i.out"
	read -r ws we <"$tmp/warm-$i.out"
	echo "$t1 - $t0" | bc -l >>"$tmp/full"
	echo "$t2 - $t1" | bc -l >>"$tmp/patched.t"
	echo "$we - $ws" | bc -l >>"$tmp/warm"
done
full=$(median <"$tmp/full")
patched=$(median <"$tmp/patched.t")
warm=$(median <"$tmp/warm")
printf 'rebuild of recparse (address), median of %d run(s):\n' "$runs"
printf '  full     fresh container, compile:                  %6.2fs\n' "$full"
printf '  patched  image build + fresh container, compile:    %6.2fs  (%.2fx full)\n' \
	"$patched" "$(echo "$patched / $full" | bc -l)"
printf '  warm     compile again in the compiled container:   %6.2fs  (%.2fx full)\n' \
	"$warm" "$(echo "$warm / $full" | bc -l)"
echo "crs-ci has no incremental rebuild path yet: validation pays 'patched'."
