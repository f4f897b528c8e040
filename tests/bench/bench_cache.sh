#!/usr/bin/env bash
# bench_cache.sh - what --cache-dir holds and saves on the recparse demo
# scan (issue 14, "caches that fit"), on the real engine:
#
#   tests/bench/bench_cache.sh           (needs build/crs-ci)
#
# Three scans of the same change, each with a fresh work dir:
#   fill   --cache-dir: fills the cache (may reuse images already built)
#   cold   crs-ci's images removed from the engine, no cache: builds all
#   warm   crs-ci's images removed again, --cache-dir: loads them
# and prints the cache's size (crs-ci's log line and du), what the old
# whole-engine archive (`docker save` of the same images with the base
# runner) would weigh, the cold and warm wall times and how many images
# each built or loaded. The warm scan must build none.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
# offline, on the Debian stand-ins (docs/base-images.md)
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"

now() { date +%s.%N; }
# scan NAME [ARGS...]: prints its wall seconds; log in $tmp/NAME.log
scan() {
	local name=$1 code t0 t1
	shift
	t0=$(now)
	set +e
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m \
		--work-dir "$tmp/work-$name" --out "$tmp/out-$name" "$@" \
		>/dev/null 2>"$tmp/$name.log"
	code=$?
	set -e
	t1=$(now)
	[ "$code" -eq 1 ] || { tail -20 "$tmp/$name.log" >&2; echo "bench: $name: exit $code (want 1: the bug found)" >&2; exit 1; }
	echo "$t1 - $t0" | bc
}
tags() {
	python3 -c 'import json,sys
for n in json.load(open(sys.argv[1]))["entries"]:
    if n.startswith("image:"): print(n[6:])' "$tmp/cache/index.json"
}

fill=$(scan fill --cache-dir "$tmp/cache")
tags >"$tmp/tags.txt"
size_line=$(grep -o 'cache: .* evicted [0-9]*' "$tmp/fill.log")
du_bytes=$(du -sb "$tmp/cache" | cut -f1)
old_bytes=$(docker save $(cat "$tmp/tags.txt") crs-ci/base-runner:stand-in | wc -c)

xargs docker rmi <"$tmp/tags.txt" >/dev/null
cold=$(scan cold)
cold_built=$(grep -c "building image" "$tmp/cold.log" || true)

xargs docker rmi <"$tmp/tags.txt" >/dev/null
warm=$(scan warm --cache-dir "$tmp/cache")
warm_built=$(grep -c "building image" "$tmp/warm.log" || true)
warm_loaded=$(grep -c "cache: loaded " "$tmp/warm.log" || true)

printf 'cache after the scan:   %s\n' "$size_line"
printf 'cache folder (du):      %s bytes (%s image archive(s), corpus and index)\n' \
	"$du_bytes" "$(wc -l <"$tmp/tags.txt")"
printf 'old whole-engine save:  %s bytes (same images with the base runner)\n' "$old_bytes"
printf 'fill scan, saves cache: %6.1f s (the images were on the engine)\n' "$fill"
printf 'cold scan, no cache:    %6.1f s, %s image(s) built\n' "$cold" "$cold_built"
printf 'warm scan, from cache:  %6.1f s, %s image(s) loaded, %s built\n' \
	"$warm" "$warm_loaded" "$warm_built"
[ "$warm_built" -eq 0 ] || { echo "bench: the warm scan built images" >&2; exit 1; }
