#!/usr/bin/env bash
# test_cache.sh - --cache-dir carries images and corpora between runs:
# a scan fills the cache; an image missing from the engine is loaded
# back from it instead of being rebuilt; the harness's corpus is kept and
# handed to the CRSs of the next scan.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
scan() {
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m --cache-dir "$tmp/cache" \
		--work-dir "$tmp/work" --out "$tmp/out"
}
set +e
scan >/dev/null 2>"$tmp/log1.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log1.txt" >&2; fail "first scan: exit $code"; }
[ -s "$tmp/cache/images/images.tar" ] || fail "no image archive in the cache"
runner=$(python3 -c "
import json,sys
tags=json.load(open('$tmp/cache/images/index.json'))['images']
print([t for t in tags if t.startswith('crs-ci-runner/')][0])")
n=$(ls "$tmp/cache/corpus/recparse/fuzz_records" | wc -l)
[ "$n" -ge 1 ] || fail "no corpus kept"
note "cache: $(du -sh "$tmp/cache/images/images.tar" | cut -f1) of images, $n corpus file(s)"
# the engine loses an image: the next scan loads it back, builds nothing
docker rmi "$runner" >/dev/null
set +e
scan >/dev/null 2>"$tmp/log2.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log2.txt" >&2; fail "second scan: exit $code"; }
grep -q "cache: loading 1 missing image" "$tmp/log2.txt" || { cat "$tmp/log2.txt" >&2; fail "image not loaded from the cache"; }
if grep -q "building image" "$tmp/log2.txt"; then
	grep "building image" "$tmp/log2.txt" >&2; fail "second scan rebuilt images"
fi
grep -q "corpus file(s) of fuzz_records handed to the CRSs" "$tmp/log2.txt" \
	|| fail "cached corpus not handed to the CRSs"
sarif_validate "$tmp/out/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "a removed image came back from the cache; the corpus was reused"
