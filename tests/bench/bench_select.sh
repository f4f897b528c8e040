#!/usr/bin/env bash
# bench_select.sh - what harness selection costs and saves on the recparse
# pull request (issue 3, scenario 5), on the real engine:
#
#   tests/bench/bench_select.sh [TIMEOUT]      (default 3m; needs build/crs-ci)
#
# Three scans of the same change in one work dir, with the same --timeout:
#   all     --harness fuzz_records --harness fuzz_text: every harness fuzzed,
#           as without selection (runs first, so it pays the shared builds)
#   select  no --harness: the select phase picks harnesses (pays the
#           coverage build of the head)
#   again   the same, with the coverage build cached
# and prints the select phase's time (cold and warm), each harness's
# fuzzing time in "all" (from time-stamped log lines), the scans' wall
# times, and the fuzzing time selection saved: the time "all" spent on
# harnesses that "select" skipped. Every scan must still find the bug.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRS_CI=$ROOT/build/crs-ci
# offline, on the Debian stand-ins (docs/base-images.md)
export CRS_CI_BASE_IMAGES=${CRS_CI_BASE_IMAGES:-stand-in}
timeout=${1:-3m}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crs-ci-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$CRS_CI" ] || { echo "bench: build crs-ci first (make)" >&2; exit 2; }
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"

# scan NAME [ARGS...]: stderr lines time-stamped into $tmp/NAME.log
scan() {
	local name=$1 code
	shift
	local t0
	t0=$(date +%s.%N)
	set +e
	"$CRS_CI" scan --compose "$ROOT/container/crs/libfuzzer/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--timeout "$timeout" --work-dir "$tmp/work" --out "$tmp/out-$name" \
		"$@" 2>&1 >"$tmp/$name.verdict" |
		while IFS= read -r line; do
			printf '%s %s\n' "$(date +%s.%N)" "$line"
		done >"$tmp/$name.log"
	code=${PIPESTATUS[0]}
	set -e
	echo "$t0 $(date +%s.%N)" >"$tmp/$name.wall"
	cp "$tmp/work/select.json" "$tmp/$name.select.json"
	if [ "$code" -ne 1 ]; then
		cat "$tmp/$name.log" >&2
		echo "bench: scan '$name' exited $code, want 1 (the bug found)" >&2
		exit 1
	fi
}

echo "bench: recparse PR, --timeout $timeout; three scans (a few minutes)" >&2
scan all --harness fuzz_records --harness fuzz_text
scan select
scan again

python3 - "$tmp" "$timeout" <<'PY'
import json, re, sys
tmp, timeout = sys.argv[1], sys.argv[2]

def lines(name):
    out = []
    for l in open(f"{tmp}/{name}.log"):
        t, _, msg = l.rstrip("\n").partition(" ")
        out.append((float(t), msg))
    return out

def wall(name):
    a, b = open(f"{tmp}/{name}.wall").read().split()
    return float(b) - float(a)

def fuzz_times(name):
    """Seconds from 'run H: N CRS(s)' to the next line: H's fuzzing."""
    log, times = lines(name), {}
    for i, (t, msg) in enumerate(log):
        m = re.match(r"crs-ci: run (\S+): \d+ CRS\(s\)", msg)
        if m:
            end = next((t2 for t2, m2 in log[i + 1:]
                        if not m2.startswith("crs-ci: warning")), t)
            times[m.group(1)] = end - t
    return times

sel = json.load(open(f"{tmp}/select.select.json"))
warm = json.load(open(f"{tmp}/again.select.json"))
assert sel["mode"] == "coverage" and warm["selected"] == sel["selected"]
skipped = [h["name"] for h in sel["harnesses"] if not h["selected"]]
all_t = fuzz_times("all")
sel_t = fuzz_times("select")
saved = sum(all_t.get(h, 0.0) for h in skipped)
print(f"bench_select: recparse PR, --timeout {timeout}")
print(f"  harnesses: {', '.join(sel['candidates'])}; selected: "
      f"{', '.join(sel['selected'])}; skipped: {', '.join(skipped) or '-'}")
print(f"  select phase: {sel['elapsed_s']:.1f}s cold (coverage build + "
      f"replays), {warm['elapsed_s']:.1f}s warm (replays only)")
for h, t in sorted(all_t.items()):
    print(f"  fuzzing without selection: {h} {t:.1f}s")
for h, t in sorted(sel_t.items()):
    print(f"  fuzzing with selection:    {h} {t:.1f}s")
print(f"  scan wall time: all harnesses {wall('all'):.1f}s (builds included), "
      f"selected {wall('select'):.1f}s cold, {wall('again'):.1f}s warm")
print(f"  fuzzing time saved: {saved:.1f}s (the skipped harnesses' share), "
      f"for {sel['elapsed_s']:.1f}s cold / {warm['elapsed_s']:.1f}s warm "
      f"of selection")
PY
