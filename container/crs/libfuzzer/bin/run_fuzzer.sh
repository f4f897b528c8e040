#!/bin/bash
# run_fuzzer.sh - the "fuzzer" run module of crs-libfuzzer: fuzz one harness
# with libFuzzer until FUZZ_TIME runs out and submit what it finds.
#
#   run_fuzzer.sh [HARNESS]
#
# HARNESS defaults to $OSS_CRS_TARGET_HARNESS (exit 2 when neither is set).
# Steps:
#   1. the build output: /OSS_CRS_BUILD_OUT_DIR/build read in place when
#      it holds the harness (no copy before the first execution), else
#      `libCRS download-build-output build /out` (e.g. for a rebuild);
#   2. corpus = HARNESS_seed_corpus.zip, plus `libCRS fetch seed` from
#      OSS_CRS_FETCH_DIR before every run, plus (once libFuzzer runs) a
#      `libCRS register-fetch-dir seed` daemon that copies every seed another
#      CRS shares into the corpus as it arrives, where libFuzzer (-reload=1,
#      its default) picks it up within a second; shared seeds are never
#      submitted back;
#   2b. direction, in a change scan (FETCH_DIR/diffs/change.json, see
#      docs/change-file.md): the change's literals (diffs/change.dict,
#      merged with the harness's own dictionary: HARNESS.dict or the dict
#      of HARNESS.options) as -dict, -use_value_profile=1 when the change
#      adds comparisons, and -focus_function on the touched functions the
#      binary defines (most changed lines first, one per run, rotating;
#      dropped when libFuzzer cannot set it). The log says what was used.
#      Direction is hedged so that it never loses much to no direction
#      (-focus_function sets aside every input that does not reach the
#      function, the seeds too): the first run starts at once with the
#      dictionary only, while llvm-nm lists the focus functions; with one
#      worker, when the list has one, that run is ended after
#      DIRECTED_WARMUP seconds (default: 10% of FUZZ_TIME, at most 10)
#      and the directed runs go on from its corpus, when it has none it
#      goes on to the end; with two or more, worker 1 fuzzes with the
#      dictionary only beside the directed ones (the first run always,
#      later runs when there is a focus function). DIRECTED_WARMUP=0:
#      every worker directed from the start (the policy before);
#   3. libFuzzer runs one after another until FUZZ_TIME seconds have passed,
#      each as FUZZ_WORKERS processes side by side on the one corpus (default:
#      one per CPU the container may use, `nproc`: crs-ci lends its own
#      cores at a low weight while harnesses fuzz), all stopped when the
#      first of them stops; each stops at its first crash, timeout or
#      out-of-memory, whose artifact
#      is submitted at once (`libCRS submit pov`) unless its DEDUP_TOKEN was
#      already submitted; new corpus files are submitted as seeds every
#      SEED_SUBMIT_EVERY seconds while it runs and after each run (one
#      `libCRS submit seed` call for all of them), so crs-ci's replays of
#      the shared corpus see it grow (--saturation);
#   4. with STOP_ON_FIRST_POV=1, exit 0 right after the first submitted
#      crash (a crash-* or leak-* artifact). A timeout or out-of-memory is
#      submitted and fuzzing goes on: in a real library such an input is
#      often old (libwebp 1.2.4's advanced_api_fuzzer allocates past
#      libFuzzer's malloc limit within 30 s on its release tree), and
#      stopping at it would leave the change unfuzzed; crs-ci still cuts
#      the run soon after one that it proves new (--after-finding).
# Log lines carry the seconds since the script started; "first execution"
# marks libFuzzer's INITED (the start-up cost).
# Environment: FUZZ_TIME (seconds, default 3600), STOP_ON_FIRST_POV (0),
# FUZZ_WORKERS (libFuzzer processes per run, default `nproc`, at most 16),
# SEED_SUBMIT_EVERY (seconds, default 10; 0: only after each run),
# OSS_CRS_LOG_DIR (libFuzzer output goes to fuzzer.log there, else stderr;
# the fetch daemon's log to fetch-seeds.log there),
# FUZZER_EXTRA_ARGS (more libFuzzer flags, split on spaces), DIRECTED (0:
# ignore the change file), DIRECTED_WARMUP (seconds, see 2b).
# Exit: 0 when the time ran out or after the first PoV (STOP_ON_FIRST_POV),
# 1 when the harness keeps failing without an artifact or libCRS fails,
# 2 for usage errors. SIGTERM/SIGINT stop libFuzzer, submit, and exit 0.
set -u

# Log lines carry the seconds since the script started (~ the container's
# start), from bash's clock in microseconds: no process per line.
t0=${EPOCHREALTIME:-0.0}
t0=${t0/[.,]/}
say() {
	local now=${EPOCHREALTIME:-0.0} cs
	now=${now/[.,]/}
	cs=$(((10#$now - 10#$t0) / 10000))
	printf 'run_fuzzer.sh: [%d.%02d s] %s\n' $((cs / 100)) $((cs % 100)) "$*" >&2
}

harness=${1:-${OSS_CRS_TARGET_HARNESS:-}}
if [ -z "$harness" ]; then
	say "no harness: pass one as argument 1 or set OSS_CRS_TARGET_HARNESS"
	exit 2
fi
case $harness in
*/*|.*) say "bad harness name '$harness'"; exit 2 ;;
esac
fuzz_time=${FUZZ_TIME:-3600}
stop_on_first=${STOP_ON_FIRST_POV:-0}
case $fuzz_time in
''|*[!0-9]*) say "FUZZ_TIME '$fuzz_time' is not a number of seconds"; exit 2 ;;
esac
warmup=${DIRECTED_WARMUP:-$((fuzz_time / 10 < 10 ? fuzz_time / 10 : 10))}
case $warmup in
''|*[!0-9]*) say "DIRECTED_WARMUP '$warmup' is not a number of seconds"; exit 2 ;;
esac

out=/out
work=/artifacts
povs=$work/povs
corpus=$work/corpus
known=$work/.known		# names of corpus files not to submit as seeds
tokens=$work/.tokens		# DEDUP_TOKENs of submitted PoVs
done_povs=$work/.done-povs	# names of artifacts already handled
mkdir -p "$out" "$povs" "$corpus" "$known" "$done_povs"
touch "$tokens"

log=/dev/stderr
fetch_log=/dev/null
if [ -n "${OSS_CRS_LOG_DIR:-}" ] && mkdir -p "$OSS_CRS_LOG_DIR" 2>/dev/null; then
	log=$OSS_CRS_LOG_DIR/fuzzer.log
	fetch_log=$OSS_CRS_LOG_DIR/fetch-seeds.log
fi

workers=${FUZZ_WORKERS:-$(nproc 2>/dev/null || echo 1)}
case $workers in
''|*[!0-9]*|0) say "FUZZ_WORKERS '$workers' is not a positive number"; exit 2 ;;
esac
[ "$workers" -gt 16 ] && workers=16
# the container's memory is shared: 2560 MB for one, 3584 MB for all
rss_mb=2560
[ "$workers" -gt 1 ] && rss_mb=$((3584 / workers))
[ "$rss_mb" -lt 1024 ] && rss_mb=1024

start=$SECONDS
stop=0
child=
children=()
trap 'stop=1; [ ${#children[@]} -gt 0 ] && kill -TERM "${children[@]}" 2>/dev/null' TERM INT

# 1. The build output: read in place when crs-ci mounted it (a copy of a
# large build costs seconds before the first execution), else downloaded.
if [ -z "${OSS_CRS_REBUILD_ID:-}" ] && [ -n "${OSS_CRS_BUILD_OUT_DIR:-}" ] &&
    [ -x "$OSS_CRS_BUILD_OUT_DIR/build/$harness" ] &&
    [ ! -L "$OSS_CRS_BUILD_OUT_DIR/build" ]; then
	out=$OSS_CRS_BUILD_OUT_DIR/build
	say "build output: in place ($out)"
elif ! libCRS download-build-output build "$out"; then
	say "libCRS download-build-output build $out failed"
	exit 1
fi
if [ ! -x "$out/$harness" ]; then
	say "harness '$harness' is not in the build output ($out/$harness)"
	exit 2
fi

# 2. The corpus: the seed corpus and any shared seeds, none resubmitted.
if [ -f "$out/${harness}_seed_corpus.zip" ]; then
	unzip -o -q -j "$out/${harness}_seed_corpus.zip" -d "$corpus" ||
		say "warning: could not unzip ${harness}_seed_corpus.zip"
fi
fetch_seeds() {
	if [ -n "${OSS_CRS_FETCH_DIR:-}" ] && [ -d "$OSS_CRS_FETCH_DIR/seeds" ]; then
		libCRS fetch seed "$corpus" >/dev/null 2>&1 ||
			say "warning: libCRS fetch seed failed"
	fi
	mark_corpus_known
}
mark_corpus_known() {
	local f
	for f in "$corpus"/*; do
		[ -f "$f" ] && : >"$known/${f##*/}"
	done
}

# Seeds other CRSs share from now on reach the corpus as they arrive; the
# daemon starts once libFuzzer runs (what was shared before is fetched
# before each run).
fetch_daemon=
# shellcheck disable=SC2317  # run by the EXIT trap
stop_fetch_daemon() {
	[ -n "$fetch_daemon" ] && kill -TERM "$fetch_daemon" 2>/dev/null
	fetch_daemon=
}
start_fetch_daemon() {
	local line
	[ -n "${OSS_CRS_FETCH_DIR:-}" ] && [ -z "$fetch_daemon" ] || return 0
	if line=$(libCRS register-fetch-dir --log "$fetch_log" seed "$corpus"); then
		fetch_daemon=${line##* }
		trap stop_fetch_daemon EXIT
	else
		say "warning: libCRS register-fetch-dir seed failed"
	fi
}

# The harness's own dictionary: HARNESS.dict, or the dict of the
# [libfuzzer] section of HARNESS.options (OSS-Fuzz's two ways).
harness_dict=
if [ -f "$out/$harness.dict" ]; then
	harness_dict=$out/$harness.dict
elif [ -f "$out/$harness.options" ]; then
	d=$(awk -F '=' '/^\[/ { sec = $0 } sec == "[libfuzzer]" &&
		$1 ~ /^[ \t]*dict[ \t]*$/ { gsub(/^[ \t]+|[ \t]+$/, "", $2);
		print $2; exit }' "$out/$harness.options")
	case $d in
	''|*/*|.*) ;;
	*) [ -f "$out/$d" ] && harness_dict=$out/$d ;;
	esac
fi
dict=()
[ -n "$harness_dict" ] && dict=("-dict=$harness_dict")

# 2b. Direction at the change (docs/change-file.md): crs-ci stages
# diffs/change.json and diffs/change.dict in a change scan; DIRECTED=0 or
# a full scan (no change file) fuzzes as before.
change=${OSS_CRS_FETCH_DIR:-/nonexistent}/diffs
focus=()		# candidate focus functions, most changed lines first
focus_job=		# 1: being listed into $work/focus.list
direct=()		# value profiling
if [ "${DIRECTED:-1}" != 0 ] && [ -f "$change/change.json" ]; then
	notes=()
	if [ -f "$change/change.dict" ]; then
		cat ${harness_dict:+"$harness_dict"} "$change/change.dict" \
			> "$work/direct.dict" 2>/dev/null
		dict=("-dict=$work/direct.dict")
		notes+=("dict=change.dict ($(grep -c '^"' "$change/change.dict")" \
			"entries${harness_dict:+, + ${harness_dict##*/}})")
	fi
	if [ "$(sed -n 's/^ *"comparisons": \([0-9]*\).*/\1/p' \
	    "$change/change.json" | head -n 1)" -gt 0 ] 2>/dev/null; then
		direct+=(-use_value_profile=1)
		notes+=("use_value_profile=1 (the change adds comparisons)")
	fi
	# Touched functions the binary defines (llvm-nm; without it, any
	# mention of the name in the binary), most changed lines first, from
	# jansson's indented layout: "name" and "changed_lines" keys, one
	# number per line in the ranges. Out of this shell's jobs (`wait -n`
	# waits for libFuzzer only); the first run does not wait for it.
	rm -f "$work/focus.list"
	( ( (
		{ llvm-nm --defined-only -j "$out/$harness" 2>/dev/null ||
		  echo "-"; echo "--- change.json"; cat "$change/change.json"; } |
		awk -v bin="$out/$harness" '
		!json && $0 == "--- change.json" { json = 1; next }
		!json { if ($0 == "-") nosym = 1; else sym[$0] = 1; next }
		/^ *"path": / { cur = ""; inl = 0 }
		/^ *"name": "[A-Za-z_][A-Za-z0-9_]*",?$/ {
			cur = $0; sub(/^ *"name": "/, "", cur); sub(/",?$/, "", cur)
			if (!(cur in n)) { order[++k] = cur; n[cur] = 0 }
			inl = 0
		}
		/^ *"changed_lines": \[/ { inl = cur != ""; first = -1 }
		inl && /^ *[0-9]+,?$/ {
			v = $1 + 0
			if (first < 0) first = v
			else { n[cur] += v - first + 1; first = -1 }
		}
		END {
			for (i = 1; i <= k; i++)
				if (nosym || (order[i] in sym))
					print n[order[i]], order[i]
		}' | sort -s -k1,1nr | cut -d' ' -f2 | head -n 32
	) > "$work/focus.list.new" 2>/dev/null
	  mv -f "$work/focus.list.new" "$work/focus.list"
	) </dev/null >/dev/null 2>&1 & )
	focus_job=1
	say "direction: ${notes[*]:+${notes[*]}, }focus_function: the touched functions the binary defines (being listed)"
	if [ "$warmup" = 0 ]; then
		say "hedge: none (DIRECTED_WARMUP=0): every worker directed"
	elif [ "$workers" -gt 1 ]; then
		say "hedge: worker 1 fuzzes with the dictionary only, from the start (later runs: with a focus function)"
	else
		say "hedge: the first $warmup s with the dictionary only, then directed (with a focus function; from the start, not waiting for the list)"
	fi
else
	if [ "${DIRECTED:-1}" = 0 ]; then
		say "direction: none (DIRECTED=0)"
	else
		say "direction: none (no change file: a full scan)"
	fi
fi
# shellcheck disable=SC2206
extra=(${FUZZER_EXTRA_ARGS:-})

# 0 while process $1 runs (not one that exited and was not waited for yet).
alive() {
	local st
	st=$(sed -n 's/.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# Waits for the list of focus functions, at most 2 minutes; returns 1
# early when the process $1 (if given) ends or a stop is requested.
focus_wait() {
	local _
	for _ in $(seq 2400); do
		[ -f "$work/focus.list" ] && return 0
		[ "$stop" = 1 ] && return 1
		[ -n "${1:-}" ] && ! alive "$1" && return 1
		sleep 0.05
	done
	return 0
}

# Logs the focus functions, its arguments (once: the warm-up timer below
# may have).
focus_said=$work/.focus-said
rm -f "$focus_said"
focus_say() {
	[ -e "$focus_said" ] && return 0
	: >"$focus_said"
	if [ $# -gt 0 ]; then
		say "direction: focus_function among $# touched function(s) in the binary: $*"
	else
		say "direction: no touched function in the binary: no focus_function"
	fi
}

# Waits for the list of focus functions (once; see focus_wait for $1) and
# logs it; returns 1 when it is not known yet.
focus_known() {
	[ -n "$focus_job" ] || return 0
	focus_wait "${1:-}" || return 1
	focus_job=
	mapfile -t focus < "$work/focus.list" 2>/dev/null
	focus_say "${focus[@]}"
}

submitted=0

# The PoV submit step shared with the other fuzzer CRS
# (container/crs-shared/crs_submit.sh): beside this script, else where the
# image installs it.
submit_sh=${BASH_SOURCE[0]%/*}/crs_submit.sh
[ -f "$submit_sh" ] || submit_sh=/usr/local/bin/crs_submit.sh
# shellcheck source=/dev/null
. "$submit_sh" || { say "cannot read $submit_sh"; exit 1; }

# Takes out of the corpus every file with the content of artifact $1 (a
# timeout or out-of-memory that fuzzing goes on past): a seed that does
# so would end every later run as it starts.
drop_from_corpus() {
	local sum
	sum=$(sha1sum < "$1" | cut -c1-40) || return 0
	find "$corpus" -maxdepth 1 -type f -exec sha1sum {} + 2>/dev/null |
		awk -v s="$sum" '$1 == s { sub(/^[0-9a-f]+  /, ""); print }' |
		while IFS= read -r f; do
			rm -f -- "$f"
			say "took ${f##*/} out of the corpus: it is the input of ${1##*/}"
		done
}

# The DEDUP_TOKEN of artifact $2 in run log $1: the token of the libFuzzer
# process that wrote it (each worker of a run has its own log, from its
# "INFO: Seed:" line; one artifact and one token each: a crash's token
# comes before the artifact is written, a timeout's after).
# A timeout's or a malloc limit's token names only libFuzzer's own frames
# (AlarmCallback, HandleMalloc), the same for every one of them; theirs is
# made of the first three frames of the stack outside libFuzzer, the
# sanitizers and the allocator, so two hangs in two places stay two.
token_of() {
	awk -v n="/$2" '
		/^INFO: Seed: / {
			if (hit)
				exit
			t = ""; nf = 0; own = ""
		}
		/^==[0-9]+== ?ERROR: / { nf = 0; own = "" }
		/^ *#[0-9]+ 0x[0-9a-f]+ in / {
			f = $0
			sub(/^ *#[0-9]+ 0x[0-9a-f]+ in /, "", f)
			sub(/ \(BuildId: [0-9a-f]+\)$/, "", f)
			sub(/ \(\/[^ ]*\)$/, "", f)
			sub(/ \/[^ ]*$/, "", f)
			if (nf < 3 && f !~ /^(__sanitizer|__asan|__lsan|__ubsan|__interceptor_|fuzzer::|malloc$|calloc$|realloc$|operator new|__libc_|_start$|main$)/) {
				own = own (nf ? "--" : "") f
				nf++
			}
		}
		/^DEDUP_TOKEN: / { t = substr($0, 14) }
		index($0, "Test unit written to ") &&
		    substr($0, length($0) - length(n) + 1) == n { hit = 1 }
		END {
			if (!hit)
				exit
			if (t ~ /^__sanitizer_print_stack_trace--fuzzer::/ &&
			    own != "")
				t = own
			print t
		}
	' "$1"
}

# Submits every new crash/timeout/oom artifact; returns 0 if one was
# submitted, and sets crashed=1 when one of them was a crash or a leak.
crashed=0
submit_povs() {
	local runlog=$1 f name token new=1
	for f in "$povs"/crash-* "$povs"/timeout-* "$povs"/oom-* "$povs"/leak-*; do
		[ -f "$f" ] || continue
		name=${f##*/}
		[ -e "$done_povs/$name" ] && continue
		touch "$done_povs/$name"
		case $name in timeout-*|oom-*) drop_from_corpus "$f" ;; esac
		token=$(token_of "$runlog" "$name")
		submit_pov "$f" "$name" "$token"
		case $? in
		0)
			new=0
			case $name in crash-*|leak-*) crashed=1 ;; esac
			;;
		2) exit 1 ;;
		esac
	done
	return $new
}

# Submits corpus files that were not there before (libFuzzer's finds), all
# in one libCRS call (xargs splits a huge list); when it refuses one, each
# is tried on its own, so only the refused ones are tried again next time.
submit_seeds() {
	local f name new=()
	for f in "$corpus"/*; do
		[ -f "$f" ] || continue
		name=${f##*/}
		[ -e "$known/$name" ] && continue
		if [ -n "${OSS_CRS_FETCH_DIR:-}" ] &&
		    [ -e "$OSS_CRS_FETCH_DIR/seeds/$name" ]; then
			: >"$known/$name"	# shared by a CRS: not ours
			continue
		fi
		new+=("$f")
	done
	[ ${#new[@]} -gt 0 ] || return 0
	# One libCRS process for all (it submits each file on its own). Its
	# status is the first failure's, and there is nearly always one: a
	# file libFuzzer replaced (REDUCE) after the listing above. The files
	# still here were submitted then; the gone ones are nothing to retry.
	# (Resubmitting each file in its own process took minutes on a busy
	# core, so crs-ci's replays saw the corpus grow only a few times per
	# run: issue 40.)
	local n=0 gone=0
	printf '%s\0' "${new[@]}" | xargs -0 libCRS submit seed >/dev/null 2>"$work/.submit-err"
	for f in "${new[@]}"; do
		if [ -f "$f" ]; then
			: >"$known/${f##*/}"
			n=$((n + 1))
		else
			gone=$((gone + 1))
		fi
	done
	if [ "$gone" -gt 0 ]; then
		say "submitted $n new seeds ($gone replaced by libFuzzer meanwhile)"
	elif [ "$n" -gt 0 ]; then
		say "submitted $n new seeds"
	fi
	# another failure (the exchange's caps): say it, once per call
	if grep -v "No such file" "$work/.submit-err" 2>/dev/null | grep -q .; then
		say "warning: libCRS submit seed: $(grep -v "No such file" "$work/.submit-err" | head -n 1)"
	fi
	return 0
}

# Logs when libFuzzer first ran an input (INITED, or a crash before it):
# the start-up cost, from the container's start to fuzzing.
first_exec() {
	local _
	for _ in $(seq 200); do
		if grep -qa 'INITED\|^==[0-9]*==ERROR\|DEDUP_TOKEN' "$1" 2>/dev/null; then
			say "first execution (libFuzzer INITED)"
			return 0
		fi
		kill -0 "$child" 2>/dev/null || return 0
		sleep 0.05
	done
}

# New corpus files go out as seeds every seed_every seconds while libFuzzer
# runs; disowned, so `wait -n` below waits for libFuzzer only.
seed_every=${SEED_SUBMIT_EVERY:-10}
case $seed_every in
''|*[!0-9]*) say "SEED_SUBMIT_EVERY '$seed_every' is not a number of seconds"; exit 2 ;;
esac
seed_pump=
start_seed_pump() {
	[ "$seed_every" -gt 0 ] || return 0
	( trap - TERM INT; while sleep "$seed_every"; do submit_seeds; done ) &
	seed_pump=$!
	disown "$seed_pump"
}
stop_seed_pump() {
	[ -n "$seed_pump" ] && kill "$seed_pump" 2>/dev/null
	seed_pump=
}

# The hedge's warm-up with one worker (2b): the first run starts with the
# dictionary only and no time limit of its own; once the focus list is
# known, when it has a function, this timer ends that run (SIGTERM:
# libFuzzer keeps its corpus) $1 seconds after its start ($2, in
# microseconds), unless it is reporting a crash (then it ends by itself
# and the artifact is submitted). It marks the run as cut ($cut_mark) so
# the loop starts the directed runs. Disowned, like the seed pump.
cut_mark=$work/.warmup-cut
rm -f "$cut_mark"
warm_timer=
start_warm_timer() {
	local cut=$1 started=$2 pid=$child
	(
		trap - TERM INT
		focus_wait "$pid" || exit 0
		local listed
		mapfile -t listed < "$work/focus.list" 2>/dev/null
		focus_say "${listed[@]}"
		if [ ${#listed[@]} -eq 0 ]; then
			say "hedge: no focus function: run 1 goes on with the dictionary only"
			exit 0
		fi
		local now=${EPOCHREALTIME/[.,]/} left
		left=$((cut * 1000000 - (10#$now - 10#$started)))
		[ "$left" -gt 0 ] &&
			sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
		grep -qa '^==[0-9]*==ERROR\|DEDUP_TOKEN\|deadly signal' \
			"$runlog.1" 2>/dev/null && exit 0
		: >"$cut_mark"
		say "hedge: $cut s with the dictionary only are over: ending run 1 for the directed runs"
		kill -TERM "$pid" 2>/dev/null
	) &
	warm_timer=$!
	disown "$warm_timer"
}
stop_warm_timer() {
	[ -n "$warm_timer" ] && kill "$warm_timer" 2>/dev/null
	warm_timer=
}

# Starts worker $1 of this run with the flags after it (direction).
# Leaks are not looked for, but through ASAN_OPTIONS, not libFuzzer's
# -detect_leaks=0: that flag also drops libFuzzer's malloc hooks, and with
# them its malloc limit (the rss limit), so a single huge allocation (a
# size read from the input) would go unreported.
launch() {
	local w=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$out/$harness" -artifact_prefix="$povs/" \
		-max_total_time="$limit" -timeout=25 \
		-rss_limit_mb="$rss_mb" -close_fd_mask=3 \
		"${dict[@]}" "$@" "${extra[@]}" \
		"$corpus" < /dev/null > "$runlog.$w" 2>&1 &
	children+=($!)
}

# 3. Fuzz until the time is up.
failures=0
run=0
aimed=0		# directed runs so far
while [ "$stop" = 0 ]; do
	remaining=$((fuzz_time - (SECONDS - start)))
	[ "$remaining" -gt 0 ] || break
	run=$((run + 1))
	fetch_seeds
	runlog=$work/run-$run.log
	# the hedge (2b): worker 1 fuzzes with the dictionary only, at once
	# in the first run (the focus list comes meanwhile), in later ones
	# when there is a focus function (value profiling alone sets no
	# input aside, and `make bench-directed` measured a hedge without
	# one losing: the restart costs what the warm-up found)
	plain=0
	limit=$remaining
	early=0		# 1: the list comes while worker 1 runs
	hedged=
	if [ "$warmup" -gt 0 ] && [ -n "$focus_job" ] && [ "$run" = 1 ]; then
		early=1
		plain=1
	else
		focus_known
		[ "$warmup" -gt 0 ] && [ ${#focus[@]} -gt 0 ] &&
			[ "$workers" -gt 1 ] && plain=1
	fi
	[ "$plain" = 1 ] && [ "$workers" -gt 1 ] &&
		hedged=", worker 1 with the dictionary only"
	focus_arg=()	# one function per directed run, rotating
	children=()
	started=${EPOCHREALTIME/[.,]/}
	if [ "$plain" = 1 ]; then
		if [ "$workers" = 1 ]; then
			say "run $run: $harness for at most $limit s (1 process)" \
				"with the dictionary only (the hedge)"
		elif [ "$early" = 1 ]; then
			say "run $run: $harness worker 1 for at most $limit s" \
				"with the dictionary only (the hedge), the others once the focus list is known"
		fi
		launch 1
	fi
	# the directed workers, once the focus list is known (not when
	# worker 1 ended or a stop came meanwhile)
	if [ "$workers" -gt "$plain" ] && focus_known "${children[0]:-}"; then
		if [ ${#focus[@]} -gt 0 ]; then
			focus_arg=("-focus_function=${focus[$((aimed % ${#focus[@]}))]}")
			aimed=$((aimed + 1))
		fi
		say "run $run: $harness for at most $remaining s" \
			"($workers process(es))" "${focus_arg[@]/#-/with }" ${hedged:+"$hedged"}
		for w in $(seq $((plain + 1)) "$workers"); do
			launch "$w" "${direct[@]}" "${focus_arg[@]}"
		done
	fi
	child=${children[0]:-}
	[ "$early" = 1 ] && [ "$workers" = 1 ] &&
		start_warm_timer "$((warmup < remaining ? warmup : remaining + 1))" "$started"
	child=${children[0]}
	if [ "$run" = 1 ]; then
		first_exec "$runlog.1"
		start_fetch_daemon
	fi
	start_seed_pump
	# the first to stop (an artifact, or its time) stops the others
	wait -n
	rc=$?
	stop_warm_timer
	stop_seed_pump
	kill -TERM "${children[@]}" 2>/dev/null
	wait "${children[@]}" 2>/dev/null
	cut=0		# 1: the warm-up timer ended the run
	if [ -e "$cut_mark" ]; then
		rm -f "$cut_mark"
		cut=1
		rc=0
	fi
	if [ "$stop" = 1 ]; then
		rc=0
	fi
	child=
	children=()
	# the log of the one with an artifact first, for its DEDUP_TOKEN
	# (the directed workers may not have started)
	for w in $(seq "$workers"); do
		if grep -qa '^DEDUP_TOKEN: ' "$runlog.$w" 2>/dev/null; then
			cat "$runlog.$w"
		fi
	done > "$runlog"
	for w in $(seq "$workers"); do
		[ -f "$runlog.$w" ] || continue
		grep -qa '^DEDUP_TOKEN: ' "$runlog.$w" || cat "$runlog.$w"
		rm -f "$runlog.$w"
	done >> "$runlog"
	cat "$runlog" >> "$log"
	if [ ${#focus_arg[@]} -gt 0 ] &&
	    grep -qa 'ERROR: Failed to set focus function' "$runlog"; then
		say "libFuzzer could not set ${focus_arg[0]#-}: no focus from now on"
		focus=()
		rm -f "$runlog"
		continue
	fi
	if submit_povs "$runlog"; then
		failures=0
		if [ "$stop_on_first" = 1 ] && [ "$crashed" = 1 ]; then
			submit_seeds
			say "STOP_ON_FIRST_POV=1: stopping after the first crash" \
				"($((SECONDS - start)) s)"
			exit 0
		elif [ "$stop_on_first" = 1 ]; then
			say "STOP_ON_FIRST_POV=1: a timeout or out-of-memory" \
				"is not a crash: fuzzing on"
		fi
	elif [ "$rc" -ne 0 ] && [ "$stop" = 0 ] &&
	    ! grep -qa 'DEDUP_TOKEN: \|ERROR: libFuzzer: \(timeout\|out-of-memory\)' "$runlog"; then
		# A failure that left no artifact: a broken harness or engine.
		failures=$((failures + 1))
		say "run $run exited $rc without an artifact (see the log)"
		if [ "$failures" -ge 3 ]; then
			say "giving up after $failures such runs"
			submit_seeds
			exit 1
		fi
		sleep 1
	fi
	submit_seeds
	rm -f "$runlog"
	# libFuzzer exits 0 when -max_total_time is reached; the hedge's
	# first run, cut by the warm-up timer: the directed runs follow.
	[ "$rc" -eq 0 ] && [ "$cut" = 0 ] && break
done
say "done after $((SECONDS - start)) s and $run runs: $submitted PoVs submitted"
exit 0
