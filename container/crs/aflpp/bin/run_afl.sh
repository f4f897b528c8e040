#!/bin/bash
# run_afl.sh - the "fuzzer" run module of crs-aflpp: fuzz one harness with
# AFL++ until FUZZ_TIME runs out, sharing seeds with the other CRSs of the
# run and submitting what it finds.
#
#   run_afl.sh [HARNESS]
#
# HARNESS defaults to $OSS_CRS_TARGET_HARNESS (exit 2 when neither is set).
# Steps:
#   1. libCRS download-build-output build /out (the AFL++ build);
#   2. inputs = /out/HARNESS_seed_corpus.zip (one byte when it is missing or
#      empty); `libCRS register-fetch-dir seed` copies every seed shared in
#      the run as it arrives; each second the ones other CRSs submitted move
#      on to afl-fuzz's foreign dir (-M main -F dir), which afl-fuzz imports
#      from when it next syncs (AFL_SYNC_TIME, in minutes, paces that; 1
#      here, its minimum; AFL_IMPORT_FIRST=1 reads it at start). afl-fuzz
#      finds new foreign files by mtime in whole seconds, so each batch gets
#      an mtime later than the one before (libCRS keeps the submitter's);
#   3. afl-fuzz -M main -F FOREIGN -V FUZZ_TIME [-x HARNESS.dict]
#      [-x FETCH_DIR/diffs/change.dict: the change's literals, in a change
#      scan; DIRECTED=0 leaves it out] [-c cmplog/HARNESS: CmpLog, when the
#      build step made that binary];
#      `libCRS register-submit-dir seed` submits every queue entry at once;
#      every second each new crash is run once on the build for its ASan
#      DEDUP_TOKEN and submitted with `libCRS submit pov` unless a crash
#      with that token was submitted already;
#   4. with STOP_ON_FIRST_POV=1, stop right after the first submitted PoV.
# Environment: FUZZ_TIME (seconds, default 3600; crs-ci sets it to the
# harness's time share), MAX_FUZZ_TIME (seconds: fuzz no longer than this
# whatever FUZZ_TIME says; for compose files), STOP_ON_FIRST_POV (0),
# OSS_CRS_LOG_DIR (afl-fuzz output -> afl.log, the daemons' logs ->
# fetch-seeds.log and submit-seeds.log there), AFL_EXTRA_ARGS (more
# afl-fuzz flags, split on spaces), AFL_SYNC_TIME (minutes, default 1).
# Exit: 0 when the time ran out, after the first PoV (STOP_ON_FIRST_POV) or
# when stopped by SIGTERM/SIGINT; 1 when afl-fuzz or libCRS fails; 2 for
# usage errors. The last line on stderr says why and when it stopped.
set -u

say() { echo "run_afl.sh: $*" >&2; }

harness=${1:-${OSS_CRS_TARGET_HARNESS:-}}
if [ -z "$harness" ]; then
	say "no harness: pass one as argument 1 or set OSS_CRS_TARGET_HARNESS"
	exit 2
fi
case $harness in
*/*|.*) say "bad harness name '$harness'"; exit 2 ;;
esac
fuzz_time=${FUZZ_TIME:-3600}
max_time=${MAX_FUZZ_TIME:-$fuzz_time}
stop_on_first=${STOP_ON_FIRST_POV:-0}
for t in "FUZZ_TIME=$fuzz_time" "MAX_FUZZ_TIME=$max_time"; do
	case ${t#*=} in
	''|*[!0-9]*|0) say "${t%%=*} '${t#*=}' is not a positive number of seconds"
		exit 2 ;;
	esac
done
[ "$max_time" -lt "$fuzz_time" ] && fuzz_time=$max_time

out=/out
work=/artifacts
in=$work/in
sync=$work/sync
fetched=$work/fetched		# filled by the libCRS fetch daemon
foreign=$work/foreign		# afl-fuzz -F: what others shared
stage=$work/.stage		# files on their way into $foreign
handled=$work/.handled		# names of fetched seeds already looked at
queue=$sync/main/queue
crashes=$sync/main/crashes
tokens=$work/.tokens		# DEDUP_TOKENs of submitted PoVs
done_crashes=$work/.done	# names of crashes already handled
mkdir -p "$out" "$in" "$sync" "$fetched" "$foreign" "$stage" "$handled" \
	"$done_crashes"
touch "$tokens"
imported=0
last_stamp=0

logdir=$work/logs
if [ -n "${OSS_CRS_LOG_DIR:-}" ] && mkdir -p "$OSS_CRS_LOG_DIR" 2>/dev/null; then
	logdir=$OSS_CRS_LOG_DIR
fi
mkdir -p "$logdir"
afl_log=$logdir/afl.log

start=$SECONDS
stop=0
afl_pid=
daemons=()
submitted=0
trap 'stop=1' TERM INT

# Ends afl-fuzz and the libCRS daemons (they drain their queues first).
cleanup() {
	local i
	if [ -n "$afl_pid" ] && kill -0 "$afl_pid" 2>/dev/null; then
		kill -TERM "$afl_pid" 2>/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$afl_pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -KILL "$afl_pid" 2>/dev/null
		wait "$afl_pid" 2>/dev/null
	fi
	afl_pid=
	for i in "${daemons[@]}"; do
		kill -TERM "$i" 2>/dev/null
	done
	daemons=()
}

# A few numbers from afl-fuzz's fuzzer_stats, for the log.
afl_stats() {
	local f=$sync/main/fuzzer_stats
	[ -f "$f" ] || return 0
	grep -E '^(execs_done|corpus_count|corpus_found|corpus_imported|saved_crashes) ' \
		"$f" | tr -s ' ' | sed 's/ : /=/' | paste -sd' ' -
}

# finish CODE REASON: the last word, then exit.
finish() {
	cleanup
	say "afl-fuzz stats: $(afl_stats) shared-seeds-offered=$imported"
	say "stopping: $2 after $((SECONDS - start)) s;" \
		"$submitted PoV(s) submitted"
	exit "$1"
}

# Starts a libCRS daemon and remembers its PID ("Started daemon with PID: N").
daemon() {
	local line
	if ! line=$(libCRS "$@"); then
		say "libCRS $* failed"
		return 1
	fi
	daemons+=("${line##* }")
}

# 1. The build output.
if ! libCRS download-build-output build "$out"; then
	say "libCRS download-build-output build $out failed"
	exit 1
fi
if [ ! -x "$out/$harness" ]; then
	say "harness '$harness' is not in the build output ($out/$harness)"
	exit 2
fi

# 2. The inputs, and every seed the other CRSs share, as they share them.
if [ -f "$out/${harness}_seed_corpus.zip" ]; then
	unzip -o -q -j "$out/${harness}_seed_corpus.zip" -d "$in" ||
		say "warning: could not unzip ${harness}_seed_corpus.zip"
fi
find "$in" -type f -empty -delete
if [ -z "$(ls -A "$in")" ]; then
	printf 'a' > "$in/default-seed"
fi
if [ -n "${OSS_CRS_FETCH_DIR:-}" ]; then
	daemon register-fetch-dir --log "$logdir/fetch-seeds.log" seed \
		"$fetched" >/dev/null || finish 1 "libCRS failed"
fi

# Moves seeds other CRSs shared into the foreign dir, stamped with an mtime
# later than the last batch's (afl-fuzz skips files not newer than the
# newest it has seen). Our own submissions come back too: skipped.
import_seeds() {
	local f name now batch=()
	while IFS= read -r -d '' f; do
		name=${f#"$fetched"/}
		name=${name//\//_}
		[ -e "$handled/$name" ] && continue
		touch "$handled/$name"
		if [ -n "${OSS_CRS_SUBMIT_DIR:-}" ] &&
		    [ -e "$OSS_CRS_SUBMIT_DIR/seeds/$name" ]; then
			continue
		fi
		cp "$f" "$stage/$name" && batch+=("$name")
	done < <(find "$fetched" -type f ! -name '.*' -print0 2>/dev/null)
	[ ${#batch[@]} -gt 0 ] || return 0
	now=$(date +%s)
	[ "$now" -gt "$last_stamp" ] || now=$((last_stamp + 1))
	last_stamp=$now
	for name in "${batch[@]}"; do
		touch -d "@$now" "$stage/$name"
		mv -f "$stage/$name" "$foreign/$name"
	done
	imported=$((imported + ${#batch[@]}))
}

# Runs a crash once on the build; prints its ASan/UBSan DEDUP_TOKEN.
dedup_token() {
	timeout 30 "$out/$harness" "$1" 2>&1 </dev/null |
		grep -a '^DEDUP_TOKEN: ' | head -n 1 | cut -d' ' -f2-
}

# The PoV submit step shared with the other fuzzer CRS
# (container/crs-shared/crs_submit.sh): beside this script, else where the
# image installs it.
submit_sh=${BASH_SOURCE[0]%/*}/crs_submit.sh
[ -f "$submit_sh" ] || submit_sh=/usr/local/bin/crs_submit.sh
# shellcheck source=/dev/null
. "$submit_sh" || { say "cannot read $submit_sh"; exit 1; }

# Submits every new crash; returns 0 if one was submitted.
submit_crashes() {
	local f name new=1
	for f in "$crashes"/id:*; do
		[ -f "$f" ] || continue
		name=${f##*/}
		[ -e "$done_crashes/$name" ] && continue
		touch "$done_crashes/$name"
		submit_pov "$f" "$name" "$(dedup_token "$f")"
		case $? in
		0) new=0 ;;
		2) finish 1 "libCRS failed" ;;
		esac
	done
	return $new
}

# 3. Fuzz. afl-fuzz insists on abort_on_error/symbolize=0 in the sanitizer
# options; the DEDUP_TOKEN runs use the runner's own (symbolized) ones.
dict=()
if [ -f "$out/$harness.dict" ]; then
	dict=(-x "$out/$harness.dict")
fi
# Direction at the change (docs/change-file.md): its literals as a second
# dictionary; CmpLog (-c) whenever the build made a CmpLog binary.
notes=()
change=${OSS_CRS_FETCH_DIR:-/nonexistent}/diffs
if [ "${DIRECTED:-1}" != 0 ] && [ -f "$change/change.dict" ]; then
	dict+=(-x "$change/change.dict")
	notes+=("-x change.dict ($(grep -c '^"' "$change/change.dict") entries)")
fi
cmplog=()
if [ -x "$out/cmplog/$harness" ]; then
	cmplog=(-c "$out/cmplog/$harness")
	notes+=("CmpLog (-c cmplog/$harness)")
fi
say "direction: ${notes[*]:-none}"
# shellcheck disable=SC2206
extra=(${AFL_EXTRA_ARGS:-})
import_seeds	# what was shared before we started: imported first
say "afl-fuzz on $harness for $fuzz_time s" \
	"($(find "$in" -type f | wc -l) input(s), $imported shared seed(s))"
ASAN_OPTIONS="abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1:detect_odr_violation=0:handle_abort=1:handle_segv=1:handle_sigill=1:malloc_context_size=0" \
UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:symbolize=0:print_stacktrace=0" \
MSAN_OPTIONS="exit_code=86:symbolize=0" \
AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
AFL_NO_UI=1 AFL_NO_CRASH_README=1 AFL_FAST_CAL=1 AFL_IGNORE_UNKNOWN_ENVS=1 \
AFL_IMPORT_FIRST=1 AFL_NO_COLOR=1 \
AFL_SYNC_TIME=${AFL_SYNC_TIME:-1} \
	afl-fuzz -i "$in" -o "$sync" -M main -F "$foreign" -V "$fuzz_time" \
	"${dict[@]}" "${cmplog[@]}" "${extra[@]}" -- "$out/$harness" \
	< /dev/null >> "$afl_log" 2>&1 &
afl_pid=$!

# Queue entries go out as seeds the moment afl-fuzz writes them.
for _ in $(seq 60); do
	[ -d "$queue" ] || ! kill -0 "$afl_pid" 2>/dev/null && break
	sleep 0.5
done
if [ -d "$queue" ]; then
	daemon register-submit-dir --log "$logdir/submit-seeds.log" seed \
		"$queue" >/dev/null || finish 1 "libCRS failed"
fi

while :; do
	import_seeds
	if submit_crashes && [ "$stop_on_first" = 1 ]; then
		finish 0 "STOP_ON_FIRST_POV=1, first PoV"
	fi
	[ "$stop" = 1 ] && { submit_crashes; finish 0 "signal"; }
	if ! kill -0 "$afl_pid" 2>/dev/null; then
		wait "$afl_pid"
		rc=$?
		afl_pid=
		submit_crashes
		if [ "$rc" -eq 0 ] &&
		    [ $((SECONDS - start)) -ge $((fuzz_time / 2)) ]; then
			finish 0 "time up"
		fi
		say "afl-fuzz exited $rc early; the end of $afl_log:"
		tail -n 20 "$afl_log" >&2
		finish 1 "afl-fuzz failed"
	fi
	if [ $((SECONDS - start)) -ge $((fuzz_time + 30)) ]; then
		submit_crashes
		finish 0 "time up (afl-fuzz did not stop by itself)"
	fi
	sleep 1 &
	wait $! 2>/dev/null
done
