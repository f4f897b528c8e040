#!/usr/bin/env bash
# bench_rebuild.sh - a patched rebuild from the head build's snapshot
# against a full rebuild (issue 5), on the real engine:
#
#   tests/bench/bench_rebuild.sh [RUNS] [FILES]   (defaults 3, 200;
#                                                  needs build/crs-ci)
#
# Two projects: the recparse example (its build.sh compiles everything
# every time) and a generated one of FILES C files built by make with its
# objects in $WORK, as real projects are. For each, `crs-ci build-target`
# builds the head and commits the build's container as the snapshot
# (runner/exec/snapshot.h); then, RUNS times each, median seconds:
#   full         `compile` of the head in a fresh container from the head
#                image: every object compiled;
#   incremental  what crs-ci's rebuild does: a container from the
#                snapshot, the one-file patch applied with git apply,
#                `compile` again: make recompiles the patched file only.
# Prints both and the ratio incremental/full.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
# offline, on the Debian stand-ins (docs/base-images.md)
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
runs=${1:-3}
files=${2:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
state() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1/scan.json" "$2"; }

# many_project DIR: the generated project (DIR/proj) and repository
# (DIR/repo, commits base and head), and DIR/fix.patch touching one file.
many_project() {
	local d=$1 i
	mkdir -p "$d/proj" "$d/repo/src" "$d/repo/fuzz"
	cat >"$d/proj/Dockerfile" <<'DF'
FROM gcr.io/oss-fuzz-base/base-builder
RUN mkdir -p $SRC/many
WORKDIR $SRC/many
COPY build.sh $SRC/
DF
	cat >"$d/proj/build.sh" <<'SH'
#!/bin/bash -eu
# objects in $WORK: kept by the snapshot, so make rebuilds what changed
mkdir -p "$WORK/obj"
make -s -j"$(nproc)" OBJ="$WORK/obj"
$CC $CFLAGS fuzz/fuzz_many.c "$WORK"/obj/*.o $LIB_FUZZING_ENGINE -o "$OUT/fuzz_many"
SH
	printf 'language: c\nsanitizers:\n  - address\nfuzzing_engines:\n  - libfuzzer\n' \
		>"$d/proj/project.yaml"
	cat >"$d/repo/Makefile" <<'MK'
OBJS := $(patsubst src/%.c,$(OBJ)/%.o,$(wildcard src/*.c))
all: $(OBJS)
$(OBJ)/%.o: src/%.c
	$(CC) $(CFLAGS) -c $< -o $@
MK
	for i in $(seq -w 1 "$files"); do
		{
			echo "#include <stddef.h>"
			echo "#include <stdint.h>"
			for f in $(seq 1 40); do
				echo "int f${i}_$f(const uint8_t *d, size_t n)"
				echo "{ int s = 0; for (size_t k = 0; k < n; k++)"
				echo "  s += (d[k] ^ $f) * (int)(k % 7 + $f); return s; }"
			done
		} >"$d/repo/src/f$i.c"
	done
	cat >"$d/repo/fuzz/fuzz_many.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int f1_1(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	return f1_1(d, n) == -1;
}
C
	sed -i "s/f1_1/f$(printf '%0*d' ${#files} 1)_1/" "$d/repo/fuzz/fuzz_many.c"
	git -C "$d/repo" init -q -b main
	git -C "$d/repo" add -A && git -C "$d/repo" commit -q -m base
	echo "/* head */" >>"$d/repo/src/f$(printf '%0*d' ${#files} 2).c"
	git -C "$d/repo" commit -q -am head
	local one="src/f$(printf '%0*d' ${#files} 3).c"
	cp "$d/repo/$one" "$d/one.c"
	sed -i '4s/s = 0/s = 1/' "$d/repo/$one"
	git -C "$d/repo" diff >"$d/fix.patch"
	[ -s "$d/fix.patch" ] || { echo "bench: empty patch" >&2; exit 4; }
	git -C "$d/repo" checkout -q -- "$one"
}

# bench NAME PROJECT REPO PATCH: build-target, then the two timings.
bench() {
	local name=$1 proj=$2 repo=$3 patch=$4 w=$tmp/work-$1
	local base head i t0 t1 t2
	base=$(git -C "$repo" rev-parse HEAD~1)
	head=$(git -C "$repo" rev-parse HEAD)
	"$CRS_CI" build-target --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$proj" --source "$repo" --base "$base" --head "$head" \
		--work-dir "$w" --out "$tmp/out-$name" >/dev/null 2>"$tmp/bt-$name.log" ||
		{ cat "$tmp/bt-$name.log" >&2; exit 3; }
	local image snap
	image=$(state "$w" head_image)
	snap=$(python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["images"]; print([v for k,v in i.items() if k.startswith("snapshot/head/")][0])' "$w/scan.json")
	local env=(-e SANITIZER=address -e FUZZING_ENGINE=libfuzzer
		   -e ARCHITECTURE=x86_64 -e FUZZING_LANGUAGE=c -e HELPER=True
		   -e PROJECT_NAME="$name")
	local opts=(--rm --network none --shm-size 2g)
	: >"$tmp/full-$name"; : >"$tmp/incr-$name"
	for i in $(seq "$runs"); do
		mkdir -p "$tmp/o-$name-full-$i" "$tmp/o-$name-incr-$i"
		t0=$(now)
		docker run "${opts[@]}" "${env[@]}" -v "$tmp/o-$name-full-$i:/out" \
			"$image" compile >"$tmp/full-$name-$i.log" 2>&1
		t1=$(now)
		docker run "${opts[@]}" "${env[@]}" -v "$tmp/o-$name-incr-$i:/out" \
			-v "$patch:/crs-ci/patch.diff:ro" "$snap" bash -c \
			'git apply /crs-ci/patch.diff && exec compile' \
			>"$tmp/incr-$name-$i.log" 2>&1 ||
			{ tail -20 "$tmp/incr-$name-$i.log" >&2; echo "bench: incremental build failed" >&2; exit 4; }
		t2=$(now)
		echo "$t1 - $t0" | bc -l >>"$tmp/full-$name"
		echo "$t2 - $t1" | bc -l >>"$tmp/incr-$name"
	done
	local full incr
	full=$(median <"$tmp/full-$name")
	incr=$(median <"$tmp/incr-$name")
	printf '%-22s full %6.2fs   incremental %6.2fs   ratio %.2f\n' \
		"$name" "$full" "$incr" "$(echo "$incr / $full" | bc -l)"
}

echo "rebuild after a one-file patch, SANITIZER=address, median of $runs run(s):"
mkdir -p "$tmp/recparse"
eval "$("$ROOT/examples/make-repo.sh" "$tmp/recparse/repo")"
bench recparse "$ROOT/examples/projects/recparse" "$tmp/recparse/repo" \
	"$ROOT/tests/fixtures/crs-patcher/patches/01-good-bounds-check.patch"
many_project "$tmp/many"
bench "many-$files-files" "$tmp/many/proj" "$tmp/many/repo" "$tmp/many/fix.patch"
