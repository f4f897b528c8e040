#!/usr/bin/env bash
# test_corpus_import.sh - a scan's corpus sources (issue 41, part 3):
# OSS-Fuzz's public corpus backups (--oss-fuzz-corpus, served here in
# their real layout by a local HTTP server, never the network) and a
# store-like folder (--corpus DIR, one <harness>/ folder per harness),
# read as hostile input, merged and deduplicated per harness, handed to
# the CRS.
#
# The change plants a heap overflow that only one exact input reaches:
# a 32-bit hash of the whole input must match, which no fuzzer finds in
# the scan's seconds. That input is in fuzz_records' public.zip.
#  - without the sources the scan proves nothing (exit 0), and an OSS-Fuzz
#    project without a public.zip (HTTP 404) adds nothing and is no error;
#  - with them it proves the bug (exit 1), and the log and results.json
#    say per harness how many inputs came from where: the public.zip's
#    link, its "../" name and its 8 MiB entry (past the 1 MiB input cap)
#    never become files; the folder's link to a host file is passed over,
#    and the public.zip's copy of one of its inputs is a duplicate;
#  - a source that is no archive is refused with a warning naming it,
#    and a URL's password never reaches the log or results.json;
#  - a --corpus path inside the checkout is walked without following a
#    link the pull request planted there (one to a host folder): it is
#    refused by name, and nothing of the host folder is read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
git -C "$tmp/repo" checkout -q -b planted "$base"

# the input only the corpus holds, and its FNV-1a hash
key=$(python3 - "$tmp/key" <<'PY'
import sys
data = b"RP\x01\x05\x0bonly-the-corpus-knows"
open(sys.argv[1], "wb").write(data)
h = 2166136261
for b in data:
    h = ((h ^ b) * 16777619) & 0xffffffff
print("0x%08xu" % h)
PY
)
python3 - "$tmp/repo/src/recparse.c" "$key" <<'PY'
import sys
p, key = sys.argv[1:]
s = open(p).read()
s = s.replace("int rp_parse(const uint8_t *buf, size_t len, struct rp_doc *doc)\n{",
"""static uint32_t rp_checksum(const uint8_t *buf, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ *buf++) * 16777619u;
	return h;
}

int rp_parse(const uint8_t *buf, size_t len, struct rp_doc *doc)
{
	if (len >= 16 && rp_checksum(buf, len) == %s) {
		/* volatile: clang would drop an unread malloc and free */
		volatile char *tag = malloc(8);

		tag[len / 2] = 1;	/* the planted bug: 8 to 13 of 8 */
		free((char *)tag);
	}""" % key, 1)
open(p, "w").write(s)
PY
grep -q '#include <stdint.h>' "$tmp/repo/src/recparse.c" ||
	sed -i '1i #include <stdint.h>' "$tmp/repo/src/recparse.c"
planted=$(commit_all "$tmp/repo" "records: a checksum")

# OSS-Fuzz's layout: <bucket>/corpus/libFuzzer/<project>_<harness>/public.zip
srv=$tmp/srv
pub=$srv/recparse-backup.clusterfuzz-external.appspot.com/corpus/libFuzzer/recparse_fuzz_records
mkdir -p "$pub"
python3 - "$pub/public.zip" "$tmp/key" <<'PY'
import sys, zipfile
out, key = sys.argv[1:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("0a1b2c", open(key, "rb").read())
    z.writestr("benign", b"RP\x01\x01\x02hi")
    z.writestr("../../../../escaped", b"RP\x01\x01\x03dot")
    z.writestr("bomb", b"\0" * (8 << 20))
    link = zipfile.ZipInfo("link")
    link.external_attr = (0o120777 << 16)
    z.writestr(link, "/etc/passwd")
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$srv" "$port" \
	>"$tmp/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do
	curl -fs -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done

# a store-like folder: a copy of a public.zip input, a link, a new input
store=$tmp/store
mkdir -p "$store/fuzz_records"
printf 'RP\001\001\002hi' >"$store/fuzz_records/same-as-benign"
printf 'RP\001\001\005store' >"$store/fuzz_records/new"
ln -s /etc/shadow "$store/fuzz_records/link"
printf 'no archive at all\n' >"$tmp/junk.zip"

args=(--compose "$ROOT/container/crs/libfuzzer/compose.yaml"
	--project "$ROOT/examples/projects/recparse" --source "$tmp/repo"
	--base "$base" --head "$planted" --harness fuzz_records
	--fuzz-seconds 15 --saturation off --timeout 4m)

# blank: the seeds and the fuzzer's seconds do not reach it, and an
# OSS-Fuzz project without public corpora (HTTP 404) adds nothing, and
# is no error
scan_expect 0 "${args[@]}" --oss-fuzz-corpus nosuchproject \
	--oss-fuzz-mirror "http://127.0.0.1:$port"
! grep -q "warning: corpus" "$tmp/log.txt" || fail "a 404 is a warning"
python3 - "$tmp/out/results.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["corpus"]["harnesses"]
assert [x["harness"] for x in h] == ["fuzz_records"], h
s = h[0]["sources"]
assert len(s) == 1 and s[0]["read"] == 0 and s[0]["error"] is None, s
PY
note "without the sources: $(tail -n 1 "$tmp/verdict.txt")"

# what the pull request planted in the checkout: a link to a host folder
mkdir -p "$tmp/host/fuzz_records"
printf 'RP\001\001\013host-secret' >"$tmp/host/fuzz_records/stolen"
ln -s "$tmp/host" "$tmp/repo/seeds"

scan_expect 1 "${args[@]}" --oss-fuzz-corpus recparse \
	--oss-fuzz-mirror "http://user:SECRET-PASS@127.0.0.1:$port" \
	--corpus "$store" --corpus "$tmp/junk.zip" --corpus "$tmp/repo/seeds"
log=$tmp/log.txt
grep -q 'Heap-buffer-overflow WRITE .* in rp_parse' "$tmp/verdict.txt" ||
	fail "the planted bug was not proved"
grep -q "corpus: fuzz_records: 2 new input(s) from http://\*\*\*@127.0.0.1:$port/recparse-backup.clusterfuzz-external.appspot.com/corpus/libFuzzer/recparse_{harness}/public.zip" "$log" ||
	{ cat "$log" >&2; fail "the public.zip's inputs are not logged"; }
grep -q "corpus: fuzz_records: 2 new input(s) from $store (2 read, 0 duplicate" "$log" ||
	{ cat "$log" >&2; fail "the folder's inputs are not logged"; }
grep -q "corpus: fuzz_records: $tmp/junk.zip: .*" "$log" ||
	{ cat "$log" >&2; fail "the refused source is not named"; }
grep -q "corpus: fuzz_records: $tmp/repo/seeds: .*a link inside the checkout" "$log" ||
	{ cat "$log" >&2; fail "the planted link is not refused by name"; }
! grep -rq host-secret "$tmp/work/corpus-in" ||
	fail "the planted link was followed to the host folder"
grep -q "corpus: 4 input(s) imported for 1 of 1 harness(es)" "$tmp/verdict.txt" ||
	fail "the verdict does not say what was imported"
! grep -rq SECRET-PASS "$log" "$tmp/verdict.txt" "$tmp/out" ||
	fail "the mirror's password reached the log or the output"
[ ! -e "$tmp/escaped" ] && [ ! -e "$tmp/work/escaped" ] ||
	fail "a ../ name became a file"
python3 - "$tmp/out/results.json" "$tmp/work/corpus-in" <<'PY'
import json, os, sys
res, root = sys.argv[1:]
c = {h["harness"]: h["sources"] for h in json.load(open(res))["corpus"]["harnesses"]}
# in the order given, OSS-Fuzz's last
store, junk, planted, pub = c["fuzz_records"]
assert planted["kept"] == 0 and "link" in planted["error"], planted
assert store["kept"] == 2 and store["passed_over"] == 1, store
# the key and the escaped name's bytes (benign is the store's copy); the
# bomb is too big, the link no regular file
assert pub["kept"] == 2 and pub["duplicate"] == 1 and pub["passed_over"] == 2, pub
assert pub["error"] is None, pub
assert junk["error"] and "junk.zip" in junk["error"], junk
names = os.listdir(os.path.join(root, "fuzz_records"))
assert len(names) == 4 and all(len(n) == 40 for n in names), names
for n in names:
    assert os.path.isfile(os.path.join(root, "fuzz_records", n))
    assert not os.path.islink(os.path.join(root, "fuzz_records", n))
PY
grep -q 'imported input(s) of fuzz_records handed to the CRSs' "$log" ||
	fail "the CRS was not given the imported inputs"
note "with them: $(grep -o 'corpus: [0-9]* input(s) imported[^.]*' "$tmp/verdict.txt")"
