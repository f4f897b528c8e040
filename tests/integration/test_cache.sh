#!/usr/bin/env bash
# test_cache.sh - --cache-dir carries images and corpora between runs:
# a scan fills the cache with the images crs-ci built, each without its
# base image's layers, far under the cap, and no base image in it; with
# those images gone from the engine (a fresh CI runner) and a fresh work
# dir, the next scan loads them, builds no image, and hands the kept
# corpus to the CRSs; with a tiny --cache-max it evicts the least
# recently used entries and logs it.
# solo: removes crs-ci's shared runner and target images from the engine (run-all.sh runs it alone)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
cache=$tmp/cache
# cache_check LOG: every indexed file exists; every image archive holds
# one of crs-ci's own images (no base image) and leaves layers out;
# prints the cached image tags
cache_check() {
	python3 - "$cache" <<'PY'
import json, os, sys, tarfile
cache = sys.argv[1]
ix = json.load(open(os.path.join(cache, "index.json")))
own = ("crs-ci-target/", "crs-ci-builder/", "crs-ci-runner/")
for name, e in ix["entries"].items():
    p = os.path.join(cache, e["path"])
    if not os.path.exists(p):
        sys.exit(f"{name}: {e['path']} is missing")
    if not name.startswith("image:"):
        continue
    with tarfile.open(p) as t:
        names = set(t.getnames())
        man = json.load(t.extractfile("manifest.json"))
    for m in man:
        for tag in m["RepoTags"]:
            if not tag.startswith(own):
                sys.exit(f"{e['path']}: holds {tag}, not one of crs-ci's own images")
        kept = [l for l in m["Layers"] if l in names]
        if len(kept) >= len(m["Layers"]):
            sys.exit(f"{e['path']}: every layer of {m['RepoTags']} is in it, the base's too")
    print(name[len("image:"):])
PY
}
set +e
cache_scan 1 >/dev/null 2>"$tmp/log1.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log1.txt" >&2; fail "first scan: exit $code"; }
[ ! -e "$cache/images/images.tar" ] || fail "the whole-engine archive is still written"
cache_check >"$tmp/tags.txt" || fail "bad cache after the first scan"
grep -q '^crs-ci-runner/' "$tmp/tags.txt" || fail "no CRS runner image cached"
grep -q '^crs-ci-target/' "$tmp/tags.txt" || fail "no target image cached"
line=$(grep -o 'cache: .* in [0-9]* entries (cap 2 GiB), evicted 0' "$tmp/log1.txt") \
	|| { grep "cache:" "$tmp/log1.txt" >&2; fail "no cache size line"; }
bytes=$(du -sb "$cache" | cut -f1)
# the base images alone are ~1.2 GB; crs-ci's own layers are a few MB
[ "$bytes" -lt $((64 << 20)) ] || fail "cache is $bytes bytes"
n=$(ls "$cache/corpus/recparse/fuzz_records" | wc -l)
[ "$n" -ge 1 ] || fail "no corpus kept"
note "$line; $(wc -l <"$tmp/tags.txt") image(s), $n corpus file(s), du $bytes bytes"
# a fresh CI runner: crs-ci's images are gone from the engine, a new
# work dir; the scan loads every image and builds none. A tiny cap then
# evicts the least recently used entries.
xargs docker rmi <"$tmp/tags.txt" >/dev/null
set +e
cache_scan 2 --cache-max 1M >/dev/null 2>"$tmp/log2.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { cat "$tmp/log2.txt" >&2; fail "second scan: exit $code"; }
while read -r tag; do
	grep -qF "cache: loaded $tag " "$tmp/log2.txt" || { grep "cache:" "$tmp/log2.txt" >&2; fail "$tag not loaded from the cache"; }
done <"$tmp/tags.txt"
if grep -q "building image" "$tmp/log2.txt"; then
	grep "building image" "$tmp/log2.txt" >&2; fail "second scan built images"
fi
grep -q "corpus file(s) of fuzz_records handed to the CRSs" "$tmp/log2.txt" \
	|| fail "cached corpus not handed to the CRSs"
line=$(grep -o 'cache: .* in [0-9]* entries (cap 1 MiB), evicted [1-9][0-9]*' "$tmp/log2.txt") \
	|| { grep "cache:" "$tmp/log2.txt" >&2; fail "no eviction under --cache-max 1M"; }
grep -q "cache: evicted images/.* (least recently used)" "$tmp/log2.txt" || fail "evicted entries not named"
cache_check >/dev/null || fail "bad cache after eviction"
total=$(python3 -c "import json,sys; print(sum(e['size'] for e in json.load(open(sys.argv[1]))['entries'].values()))" "$cache/index.json")
[ "$total" -le $((1 << 20)) ] || fail "cache holds $total bytes over the 1 MiB cap"
[ "$(ls "$cache/images" | wc -l)" -eq "$(grep -c '"images/' "$cache/index.json" || true)" ] \
	|| fail "evicted archives left on disk"
sarif_validate "$tmp/out2/results.sarif" >"$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt" >&2; fail "SARIF does not validate"; }
note "fresh engine: $(wc -l <"$tmp/tags.txt") image(s) loaded, none built; $line"
