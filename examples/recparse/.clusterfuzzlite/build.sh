#!/bin/bash -eu
# build.sh - ClusterFuzzLite's build of recparse (run by `compile` in
# $SRC/recparse): the library once, then each fuzz/fuzz_NAME.c linked
# against it into $OUT/fuzz_NAME, with fuzz/corpus/fuzz_NAME/ zipped beside
# it as the seed corpus.

# CFLAGS and LIB_FUZZING_ENGINE hold several flags: unquoted on purpose.
# shellcheck disable=SC2086
$CC $CFLAGS -Isrc -c src/recparse.c -o "$WORK/recparse.o"
for f in fuzz/fuzz_*.c; do
	t=$(basename "$f" .c)
	$CC $CFLAGS -Isrc "$f" "$WORK/recparse.o" $LIB_FUZZING_ENGINE -o "$OUT/$t"
	if [ -d "fuzz/corpus/$t" ]; then
		rm -f "$OUT/${t}_seed_corpus.zip"
		(cd "fuzz/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	fi
done
