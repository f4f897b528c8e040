#!/usr/bin/env bash
# bench_overhead.sh - what crs-ci costs around the fuzzing (issue 13):
# `make bench-overhead`, on the real engine, with the base images built.
#
#   tests/bench/bench_overhead.sh [SEED]        (default seed 1)
#
# Three targets, each through crs-ci and through bare libFuzzer:
#   recparse  the bundled example (examples/make-repo.sh: the PR adds a
#             heap-buffer-overflow), harness fuzz_records;
#   cjson     cJSON 1.7.15 (tests/bench/real/make-cjson-repo.sh) with the
#             PR tests/bench/real/cjson-formfeed-overflow.patch (a string
#             with two \f escapes overflows parse_string's buffer),
#             harness cjson_read_fuzzer;
#   expat     expat 2.5.0 (tests/bench/real/make-expat-repo.sh), a build of
#             realistic size (the library and OSS-Fuzz's twelve harnesses)
#             with the PR tests/bench/real/expat-charref-overflow.patch (a
#             character reference beyond U+FFFF in an attribute value
#             overflows appendAttributeValue's buffer), harness
#             xml_parse_fuzzer_UTF-8.
# crs-ci: `crs-ci scan` with the libFuzzer CRS on one harness. A first
# scan warms the images and the base build; before the measured scan the
# head build is removed, so it compiles the head once, as a new PR on a
# known base does. libFuzzer gets -seed=SEED (FUZZER_EXTRA_ARGS).
# Bare: the head build's harness in the same base-runner image on the
# same core (docker run --cpuset-cpus, the CRS's cpuset), the same seed,
# seed corpus, dictionary and flags as the CRS passes; its time to the
# crash is the fuzzer process's own run time inside the container.
# Prints, per target: the scan's wall time by phase (results.json
# "timings"), its builds, the time to first PoV of crs-ci (first_pov_s,
# from the run phase's start) and of bare libFuzzer, their difference and
# ratio, and everything but fuzzing against one head compile. Targets
# (issue 13): first PoV <= bare + 2 s; everything but fuzzing <= 1.5x
# one head compile. Numbers only: nothing here passes or fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
SEED=${1:-1}
# offline, on the Debian stand-ins (docs/base-images.md)
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
command -v docker >/dev/null || { echo "bench: needs the docker CLI" >&2; exit 2; }

# The libFuzzer CRS with a fixed seed; its cores as in its compose.
crs_core=1
cat >"$tmp/compose.yaml" <<EOF
run_env: local
docker_registry: local
oss_crs_infra:
  cpuset: "0"
  memory: "2G"
crs-libfuzzer:
  cpuset: "$crs_core"
  memory: "4G"
  source:
    local_path: "$ROOT/container/crs/libfuzzer"
  additional_env:
    FUZZER_EXTRA_ARGS: "-seed=$SEED"
EOF

# scan NAME PROJECT HARNESS: one crs-ci scan of $repo base..head; its
# log in $tmp/NAME.log, results in $tmp/out-NAME (work folder: $work)
scan() {
	set +e
	"$CRS_CI" scan --compose "$tmp/compose.yaml" --project "$2" \
		--source "$repo" --base "$base" --head "$head" \
		--harness "$3" --timeout 10m --work-dir "$work" \
		--out "$tmp/out-$1" >"$tmp/$1.verdict" 2>"$tmp/$1.log"
	code=$?
	set -e
	if [ "$code" -ne 1 ]; then
		tail -n 20 "$tmp/$1.log" >&2
		echo "bench: scan $1 exited $code (want 1: the PR's bug)" >&2
		exit 3
	fi
}

# bare HARNESS: bare libFuzzer on the head build; prints its seconds
bare() {
	local h=$1 runner
	runner=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["runner_image"])' "$tmp/out-measured/results.json")
	docker run --rm --network none --cpuset-cpus "$crs_core" \
		-v "$work/builds/address/head/out:/out:ro" \
		"$runner" bash -c '
		h=$1; seed=$2
		mkdir -p /tmp/corpus /tmp/povs
		[ -f "/out/${h}_seed_corpus.zip" ] &&
			unzip -o -q -j "/out/${h}_seed_corpus.zip" -d /tmp/corpus
		dict=(); [ -f "/out/$h.dict" ] && dict=("-dict=/out/$h.dict")
		t0=$(date +%s.%N)
		"/out/$h" -seed="$seed" -artifact_prefix=/tmp/povs/ \
			-timeout=25 -rss_limit_mb=2560 -detect_leaks=0 \
			-close_fd_mask=3 -max_total_time=600 "${dict[@]}" \
			/tmp/corpus </dev/null >/tmp/log 2>&1
		t1=$(date +%s.%N)
		ls /tmp/povs | grep -q . || { tail -n 5 /tmp/log >&2; exit 1; }
		execs=$(grep -ao "^#[0-9]*" /tmp/log | tail -n 1)
		echo "$t0 $t1 ${execs#\#}" |
			awk "{printf \"%.2f %s\\n\", \$2 - \$1, \$3}"
		' bare "$h" "$SEED"
}

# report NAME HARNESS BARE_S BARE_EXECS: the numbers of the measured scan
report() {
	local run
	run=$(ls -t "$work/runs" | head -n 1)
	python3 - "$tmp/out-measured/results.json" "$1" "$2" "$3" "$4" \
		"$work/runs/$run/crs/crs-libfuzzer/LOG_DIR/$2/fuzzer.log" <<'PY'
import json, re, sys
res, name, harness = sys.argv[1], sys.argv[2], sys.argv[3]
bare, bare_execs, fuzzer_log = float(sys.argv[4]), sys.argv[5], sys.argv[6]
t = json.load(open(res))["timings"]
spans = t["spans"]
print(f"== {name}: harness {harness}, warm images and base build, head compiled")
print(f"crs-ci scan wall time {t['total_s']:.1f} s on {t['cores']} cores, by phase:")
for s in spans:
    if s["kind"] == "phase":
        print(f"  {s['name']:<13} {s['end_s'] - s['start_s']:7.1f} s")
for s in spans:
    if s["kind"] in ("image", "compile", "crs-build", "replay"):
        print(f"  {s['kind']} {s['name']}: {s['end_s'] - s['start_s']:.1f} s")
fuzz = t["fuzz_s"]
print(f"  fuzzing {fuzz:.1f} s")
pov = t.get("first_pov_s")
if pov is None:
    print("time to first PoV: crs-ci none (no PoV reached crs-ci)")
else:
    verdict = "met" if pov <= bare + 2 else f"missed by {pov - bare - 2:.1f} s"
    ratio = f"{pov / bare:.1f}x" if bare > 0 else "n/a"
    print(f"time to first PoV: crs-ci {pov:.2f} s (from the run phase's "
          f"start), bare libFuzzer {bare:.2f} s: {pov - bare:+.2f} s, "
          f"ratio {ratio} (target <= bare + 2 s: {verdict})")
run = next(s for s in spans if s["kind"] == "phase" and s["name"] == "run")
f0 = min((s["start_s"] for s in spans if s["kind"] == "fuzz"), default=None)
if f0 is not None:
    print(f"  the CRS's modules ran {f0 - run['start_s']:.2f} s after the run "
          f"phase began (networks, sidecar, containers)")
try:
    execs = re.findall(r"^#(\d+)", open(fuzzer_log, errors="replace").read(),
                       re.M)
except OSError:
    execs = []
print(f"  libFuzzer executions to the crash: crs-ci "
      f"{execs[-1] if execs else '?'}, bare {bare_execs or '?'}")
head = sum(s["end_s"] - s["start_s"] for s in spans
           if s["kind"] == "compile" and s["name"].startswith("head "))
rest = t["total_s"] - fuzz
if head > 0:
    verdict = ("met" if rest <= 1.5 * head else
               f"missed by {rest - 1.5 * head:.1f} s")
    print(f"everything but fuzzing {rest:.1f} s vs one head compile "
          f"{head:.1f} s: {rest / head:.1f}x (target <= 1.5x: {verdict})")
else:
    print(f"everything but fuzzing {rest:.1f} s; no head compile recorded")
print()
PY
}

# bench NAME PROJECT HARNESS: warm-up scan, measured scan, bare run
bench() {
	local name=$1 project=$2 h=$3 secs
	work=$tmp/work-$name
	scan warmup "$project" "$h"
	# a new PR on a known base: its head is compiled, the rest is warm
	rm -rf "$work/builds/address/head"
	scan measured "$project" "$h"
	read -r secs execs < <(bare "$h")
	report "$name" "$h" "$secs" "${execs:-}"
	rm -rf "$tmp/out-warmup" "$tmp/out-measured"
}

eval "$("$ROOT/examples/make-repo.sh" "$tmp/recparse")"
repo=$tmp/recparse
bench recparse "$ROOT/examples/projects/recparse" fuzz_records

eval "$("$ROOT/tests/bench/real/make-cjson-repo.sh" "$tmp/cjson" \
	"$ROOT/tests/bench/real/cjson-formfeed-overflow.patch")"
repo=$tmp/cjson
bench cjson "$ROOT/tests/bench/real/projects/cjson" cjson_read_fuzzer

eval "$("$ROOT/tests/bench/real/make-expat-repo.sh" "$tmp/expat" \
	"$ROOT/tests/bench/real/expat-charref-overflow.patch")"
repo=$tmp/expat
bench expat "$ROOT/tests/bench/real/projects/expat" xml_parse_fuzzer_UTF-8
