#!/usr/bin/env bash
# test_standin_compat.sh - OSS-Fuzz project habits on the offline stand-ins,
# and build failures that read like build logs (issue 26). Three copies of
# the recparse project folder, built with `crs-ci build-target` on the
# stand-ins (CRS_CI_BASE_IMAGES=stand-in, lib.sh):
#   i386:    the Dockerfile installs zlib1g-dev:i386 and liblzma-dev:i386
#            as OSS-Fuzz projects do (base-builder has i386 enabled), and
#            build.sh uses $SRC, $WORK, $OUT, the default WORKDIR, `srcmap`
#            and the i386 library: exit 0, the harness built;
#   ubuntu:  the Dockerfile installs a package only Ubuntu has: exit 3, the
#            error names the Dockerfile line and suggests
#            --base-images pull, the failing step's lines as lines;
#   hostile: build.sh prints colour codes, "::error", "##[stop-commands]"
#            and a GitLab section marker, then fails: exit 3, its last lines
#            each on a line of their own under the error, the log's path,
#            no "\x1b[" text, and no runner command in crs-ci's output.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
head=''
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
compose=$ROOT/container/crs/libfuzzer/compose.yaml

# project NAME: a copy of the recparse folder in $tmp/NAME.
project() {
	cp -R "$ROOT/examples/projects/recparse" "$tmp/$1"
}
# build NAME: build-target it; exit code in $code, stderr in $tmp/NAME.err.
build() {
	set +e
	(cd "$tmp" && "$CRS_CI" build-target --compose "$compose" \
		--project "$tmp/$1" --source "$tmp/repo" --head "$head" \
		--work-dir "$tmp/work-$1" --timeout 15m >/dev/null 2>"$tmp/$1.err")
	code=$?
	set -e
}
# no_commands FILE: nothing in FILE a CI runner would run.
no_commands() {
	! grep -q $'\x1b' "$1" || fail "$1: a raw ESC byte"
	! grep -qF '\x1b[' "$1" || fail "$1: colour codes shown as \\x1b[ text"
	! grep -qE '^[[:space:]]*::' "$1" || fail "$1: a line starts with '::'"
	! grep -qF '##[' "$1" || fail "$1: '##[' in the output"
	! grep -q $'\r' "$1" || fail "$1: a raw CR (GitLab's section markers need one)"
}

# 1. i386 packages, the OSS-Fuzz paths and helpers
project i386
sed -i 's|^RUN mkdir -p \$SRC/recparse|RUN apt-get update \&\& apt-get install -y zlib1g-dev:i386 liblzma-dev:i386\n&|' \
	"$tmp/i386/Dockerfile"
grep -q 'zlib1g-dev:i386' "$tmp/i386/Dockerfile" || fail "the Dockerfile was not edited"
cat > "$tmp/i386/build.sh.new" <<'SH'
test -f /usr/lib/i386-linux-gnu/libz.a
test -f /usr/lib/i386-linux-gnu/liblzma.a
[ "$SRC" = /src ] && [ "$WORK" = /work ] && [ "$OUT" = /out ]
[ "$PWD" = /src/recparse ]
srcmap >"$WORK/srcmap.json"
jq -e 'type == "object"' "$WORK/srcmap.json" >/dev/null
SH
cat "$tmp/i386/build.sh" >>"$tmp/i386/build.sh.new"
mv "$tmp/i386/build.sh.new" "$tmp/i386/build.sh"
build i386
[ "$code" -eq 0 ] || { cat "$tmp/i386.err" >&2; fail "i386: exit $code, want 0"; }
find "$tmp/work-i386" -type f -name fuzz_records -perm -u+x | grep -q . ||
	fail "i386: no fuzz_records built"
note "zlib1g-dev:i386 installed, fuzz_records built"

# 2. an Ubuntu-only package: the Dockerfile's line and the hint
project ubuntu
sed -i 's|^RUN mkdir -p \$SRC/recparse|RUN apt-get update \&\& \\\n    apt-get install -y libstdc++-9-dev:i386\n&|' \
	"$tmp/ubuntu/Dockerfile"
line=$(grep -n '^RUN apt-get update' "$tmp/ubuntu/Dockerfile" | cut -d: -f1)
build ubuntu
[ "$code" -eq 3 ] || { cat "$tmp/ubuntu.err" >&2; fail "ubuntu: exit $code, want 3"; }
grep -qF "ubuntu/Dockerfile:$line: this step needs an Ubuntu package the offline stand-ins (Debian bookworm) lack (E: Unable to locate package libstdc++-9-dev:i386)" "$tmp/ubuntu.err" ||
	{ cat "$tmp/ubuntu.err" >&2; fail "ubuntu: the Dockerfile line is not named"; }
grep -qF 'try --base-images pull' "$tmp/ubuntu.err" || fail "ubuntu: no hint"
grep -qE '^crs-ci:   \| E: Unable to locate package libstdc\+\+-9-dev:i386$' "$tmp/ubuntu.err" ||
	{ cat "$tmp/ubuntu.err" >&2; fail "ubuntu: apt's line is not a line of its own"; }
no_commands "$tmp/ubuntu.err"
note "ubuntu: $(grep -c '' "$tmp/ubuntu.err") lines, Dockerfile:$line named"

# 3. a harness's hostile build output
project hostile
cat > "$tmp/hostile/build.sh" <<'SH'
printf '\033[1mcompiling\033[0m recparse\n'
printf '::error file=src/recparse.c,line=1::pwned\n'
printf '  ::add-mask::secret\n'
printf '##[stop-commands]tok1234\n'
printf '\033[0Ksection_start:1:evil\r\033[0Kfake section\n'
printf 'progress 10%%\rprogress 100%%\n'
printf '\033[91mrecparse.c:1: error: boom\033[0m\n'
exit 1
SH
build hostile
[ "$code" -eq 3 ] || { cat "$tmp/hostile.err" >&2; fail "hostile: exit $code, want 3"; }
cat "$tmp/hostile.err" >&2
grep -qE '^crs-ci:   \| recparse\.c:1: error: boom$' "$tmp/hostile.err" ||
	fail "hostile: the last line is not a line of its own"
grep -qE '^crs-ci:   \| compiling recparse$' "$tmp/hostile.err" ||
	fail "hostile: colour codes not stripped"
grep -qE '^crs-ci:   \| progress 100%$' "$tmp/hostile.err" ||
	fail "hostile: a redrawn line is not shown as a terminal shows it"
grep -qE '^crs-ci:   \| \\x3a:error file=src/recparse\.c,line=1::pwned$' "$tmp/hostile.err" ||
	fail "hostile: '::error' not neutralised on its own line"
log=$(grep -o 'log /[^ ;)]*\.log' "$tmp/hostile.err" | head -n1 | cut -c5-)
[ -f "$log" ] || fail "hostile: the log's path ($log) is not named"
grep -q 'recparse.c:1: error: boom' "$log" || fail "hostile: the full log lacks the output"
no_commands "$tmp/hostile.err"
n=$(wc -c <"$tmp/hostile.err")
[ "$n" -lt 8192 ] || fail "hostile: $n bytes of error"
note "hostile: $(grep -c '^crs-ci:   | ' "$tmp/hostile.err") output lines, $n bytes, no runner command"
