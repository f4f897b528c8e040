#!/usr/bin/env bash
# test_corpus_store.sh - a git storage repository of corpora (issue 41,
# parts 1 and 2): a batch run on the default branch grows it, a pull
# request's code-change run reads it and never writes it, and what a store
# holds besides plain files is passed over.
#
# The store is a bare repository made here (as ClusterFuzzLite's
# storage-repo, with crs-ci's branch crs-ci-corpus):
#  - `--mode batch` of the recparse example's main (the whole project)
#    commits each fuzzed harness's corpus as corpus/<harness>/<sha1> and
#    pushes it: every file named by the SHA-1 of its bytes;
#  - `--mode prune` replaces that folder with libFuzzer's merge of it on
#    the head build, one commit on the batch's;
#  - `--mode coverage`, twice: the project's coverage by that corpus in
#    <out>/coverage/ (lcov, index.html with the per-file table and the
#    trend picture), one history point per run kept in the store's
#    coverage/history.json, the corpus untouched;
#  - a hostile commit is laid on the branch (as anyone with push access,
#    or a compromised batch, could): a link to a host file, a submodule
#    entry and a 2 MiB blob in corpus/fuzz_records/;
#  - the pull request's code-change run reads the store first: the log
#    and results.json count what it kept, the three entries are passed
#    over, the inputs reach the CRS, and the branch does not move;
#  - --mode batch refuses --base (exit 2).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git init -q --bare "$tmp/store.git"
store=$tmp/store.git
common=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo"
	--corpus-store "$store" --harness fuzz_records)

scan_expect 2 "${common[@]}" --mode batch --base "$base" --head "$head"
grep -q -- "--mode batch works on the whole project: no --base or --diff" \
	"$tmp/log.txt" || fail "batch with --base is not refused"

# the batch run of main
scan_expect 0 "${common[@]}" --mode batch --head "$base" --fuzz-seconds 15 \
	--saturation off --timeout 4m --fail-on none
grep -q "corpus: store $store#crs-ci-corpus: pushed" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the batch run did not push"; }
tip=$(git -C "$store" rev-parse refs/heads/crs-ci-corpus)
[ "$(git -C "$store" log -1 --format=%an "$tip")" = crs-ci ] ||
	fail "the store's commit is not crs-ci's"
n=0
while read -r mode type oid name; do
	[ "$mode $type" = "100644 blob" ] || fail "store entry $name: $mode $type"
	[ "$(git -C "$store" cat-file blob "$oid" | sha1sum | cut -c1-40)" = "$name" ] ||
		fail "store entry $name is not named by its SHA-1"
	n=$((n + 1))
done < <(git -C "$store" ls-tree "$tip" corpus/fuzz_records/ | sed 's#\tcorpus/fuzz_records/# #')
[ "$n" -gt 0 ] || fail "the batch run stored no input"
note "batch: $n input(s) of fuzz_records in the store's commit ${tip:0:12}"

# prune: libFuzzer's merge on the head build replaces the folder
code=0
"$CRS_CI" scan --mode prune --head "$base" --source "$tmp/repo" \
	--compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
	--work-dir "$tmp/work" --out "$tmp/out" 2>"$tmp/log.txt" || code=$?
[ "$code" -eq 2 ] && grep -q "it needs --corpus-store" "$tmp/log.txt" ||
	fail "prune without a store: exit $code"
scan_expect 0 "${common[@]}" --mode prune --head "$base" --timeout 4m \
	--fail-on none
grep -q "prune: fuzz_records: $n input(s) merged into [0-9]*" "$tmp/log.txt" ||
	{ cat "$tmp/log.txt" >&2; fail "the prune is not logged"; }
pruned=$(git -C "$store" rev-parse refs/heads/crs-ci-corpus)
[ "$(git -C "$store" rev-parse "$pruned^")" = "$tip" ] ||
	fail "the prune's commit is not on the batch's"
git -C "$store" log -1 --format=%s "$pruned" | grep -q "^crs-ci prune of" ||
	fail "the prune's commit message"
m=$(git -C "$store" ls-tree "$pruned" corpus/fuzz_records/ | wc -l)
[ "$m" -gt 0 ] && [ "$m" -lt "$n" ] || fail "prune kept $m of $n"
grep -q "prune: fuzz_records: $n input(s) merged into $m " "$tmp/log.txt" ||
	fail "the prune's count is not the store's"
note "prune: $n input(s) merged into $m"
tip=$pruned
n=$m

# coverage, twice: the project's coverage by the store's corpus, its
# history kept in the store (one point per run), drawn in index.html
for run in 1 2; do
	scan_expect 0 "${common[@]}" --mode coverage --head "$base" \
		--timeout 4m --fail-on none
	grep -q "coverage: [0-9]* of [0-9]* instrumented line(s) run by the corpus" \
		"$tmp/log.txt" || { cat "$tmp/log.txt" >&2; fail "coverage run $run: not logged"; }
	python3 - "$tmp/out/coverage" "$run" <<'PY'
import json, sys
d, run = sys.argv[1], int(sys.argv[2])
h = json.load(open(d + "/history.json"))["points"]
assert len(h) == run, h
assert 0 < h[-1]["hit"] <= h[-1]["lines"] and h[-1]["inputs"] > 0, h
html = open(d + "/index.html").read()
assert "src/recparse.c" in html and "<svg" in html and html.count("<circle") == run, run
lcov = open(d + "/coverage.lcov").read()
assert "SF:src/recparse.c\n" in lcov and "end_of_record" in lcov, lcov[:200]
PY
done
cov=$(git -C "$store" rev-parse refs/heads/crs-ci-corpus)
[ "$(git -C "$store" rev-parse "$cov^^")" = "$tip" ] ||
	fail "the coverage runs' commits are not on the prune's"
[ "$(git -C "$store" rev-parse "$cov:corpus")" = "$(git -C "$store" rev-parse "$tip:corpus")" ] ||
	fail "a coverage run changed the corpus"
git -C "$store" show "$cov:coverage/history.json" | grep -q '"points"' ||
	fail "the store holds no coverage history"
note "coverage: $(grep -o '[0-9]* of [0-9]* instrumented line(s)' "$tmp/log.txt"), 2 points in the store's history"
tip=$cov

# a hostile commit on the branch: a link, a submodule, a 2 MiB blob
big=$(head -c 2097152 /dev/zero | git -C "$store" hash-object -w --stdin)
link=$(printf '/etc/shadow' | git -C "$store" hash-object -w --stdin)
sub=$(git -C "$store" rev-parse "$tip")
ht=$(git -C "$store" rev-parse "$tip:corpus/fuzz_records")
ht=$({ git -C "$store" ls-tree "$ht"
	printf '100644 blob %s\tbig\n' "$big"
	printf '120000 blob %s\tlink\n' "$link"
	printf '160000 commit %s\tmodule\n' "$sub"; } | git -C "$store" mktree)
ct=$(printf '040000 tree %s\tfuzz_records\n' "$ht" | git -C "$store" mktree)
rt=$(printf '040000 tree %s\tcorpus\n' "$ct" | git -C "$store" mktree)
hostile=$(GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x \
	GIT_COMMITTER_EMAIL=x@x git -C "$store" commit-tree "$rt" -p "$tip" -m hostile)
git -C "$store" update-ref refs/heads/crs-ci-corpus "$hostile"

# the pull request's run: reads the store first, never writes it
scan_expect 1 "${common[@]}" --base "$base" --head "$head" --timeout 4m \
	--fuzz-seconds 15
grep -q "corpus: fuzz_records: $n new input(s) from $store#crs-ci-corpus ($((n + 1)) read, 0 duplicate, 3 passed over" \
	"$tmp/log.txt" || { cat "$tmp/log.txt" >&2; fail "the store's inputs are not logged"; }
grep -q "imported input(s) of fuzz_records handed to the CRSs" "$tmp/log.txt" ||
	fail "the store's inputs did not reach the CRS"
[ "$(git -C "$store" rev-parse refs/heads/crs-ci-corpus)" = "$hostile" ] ||
	fail "a code-change run moved the store's branch"
! grep -q "pushed" "$tmp/log.txt" || fail "a code-change run pushed"
python3 - "$tmp/out/results.json" "$n" <<'PY'
import json, sys
res, n = sys.argv[1], int(sys.argv[2])
src = json.load(open(res))["corpus"]["harnesses"][0]["sources"][0]
assert src["source"].endswith("#crs-ci-corpus"), src
assert src["kept"] == n and src["passed_over"] == 3 and src["error"] is None, src
PY
