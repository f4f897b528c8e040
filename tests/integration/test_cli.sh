#!/usr/bin/env bash
# test_cli.sh - the command line's conventions, read from the real binary:
# every command in `crs-ci help` answers `help CMD` (exit 0, its own
# usage), the phase commands list only their own options, a wrong command
# or option is one line and exit 2, the global options work after the
# command, and the bash completion made from the tables completes
# commands, each command's options and path values (COMP_WORDS driven in
# a real bash); "did you mean" for a misspelled option or command; a
# missing --compose named as such. Needs no engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP

# run ARGS...: sets out, err (texts), code
run() {
	set +e
	"$CRS_CI" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
	set -e
	out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
}
lines() { [ -z "$1" ] && echo 0 || printf '%s\n' "$1" | wc -l; }

# the commands, from the table as `crs-ci help` prints it
run help
[ "$code" -eq 0 ] || fail "crs-ci help: exit $code"
cmds=$(printf '%s\n' "$out" | sed -n '/^commands:/,/^$/p' | awk 'NF>1 {print $1}')
[ "$(lines "$cmds")" -ge 15 ] || fail "crs-ci help lists too few commands: $cmds"

# 1. help CMD for every command: exit 0, its own usage on stdout
for c in $cmds; do
	run help "$c"
	[ "$code" -eq 0 ] || fail "help $c: exit $code: $err"
	case $out in
	"usage: crs-ci $c"*) ;;
	*) fail "help $c does not print $c's usage: $(printf '%s' "$out" | head -2)" ;;
	esac
	help_out=$out
	run "$c" --help
	[ "$code" -eq 0 ] && [ "$out" = "$help_out" ] ||
		fail "$c --help differs from help $c"
done
note "help CMD answers for all $(lines "$cmds") commands"

# 2. only the command's own options
run help report
grep -q -- '--fail-on' <<<"$out" || fail "help report lacks --fail-on"
! grep -qE -- '--(harness|pov|keep-going|shard|compose)\b' <<<"$out" ||
	fail "help report lists options of other phases: $out"
run help prepare
! grep -qE -- '--(harness|fail-on|diff)\b' <<<"$out" ||
	fail "help prepare lists options of other phases"
run help scan
for o in compose harness pov fail-on shard base-images; do
	grep -q -- "--$o" <<<"$out" || fail "help scan lacks --$o"
done
# --harness's default is what select does (docs/select.md), not "all"
harness_help=$(printf '%s\n' "$out" | sed -n '/^  --harness/,/^  --[a-z]/p' | sed '$d')
! grep -q "default: all" <<<"$harness_help" &&
	grep -q "default: the" <<<"$harness_help" &&
	grep -q "harnesses whose corpus reaches the change" <<<"$harness_help" ||
	fail "help scan: --harness's default is not select's: $harness_help"

# 3. a wrong command, help topic or option: one line, exit 2
run help nosuch
[ "$code" -eq 2 ] && [ "$(lines "$err")" -eq 1 ] && [ -z "$out" ] ||
	fail "help nosuch: exit $code, $(lines "$err") lines: $err"
run nosuch
[ "$code" -eq 2 ] && [ "$(lines "$err")" -eq 1 ] || fail "nosuch: exit $code: $err"
run scan --x
[ "$code" -eq 2 ] && [ "$err" = "crs-ci: unknown option '--x' for 'scan' (crs-ci help scan)" ] ||
	fail "scan --x: exit $code: $err"
for c in $cmds; do
	run "$c" --no-such-option
	[ "$code" -eq 2 ] && [ "$(lines "$err")" -eq 1 ] ||
		fail "$c --no-such-option: exit $code, $(lines "$err") lines: $err"
done
run scan --timeout
[ "$code" -eq 2 ] && [ "$(lines "$err")" -eq 1 ] || fail "scan --timeout: $err"

# 3b. "did you mean": the nearest option of the command's own table, the
# nearest command; nothing when nothing is near
run scan --timout 5m
[ "$code" -eq 2 ] && [ "$err" = "crs-ci: unknown option '--timout' for 'scan'; did you mean '--timeout'? (crs-ci help scan)" ] ||
	fail "scan --timout: exit $code: $err"
run report --fial-on=any
case $err in *"'--fial-on' for 'report'; did you mean '--fail-on'?"*) ;; *) fail "report --fial-on=any: $err" ;; esac
run gateway --keys-dri x
case $err in *"did you mean '--keys-dir'? (crs-ci help gateway)") ;; *) fail "gateway --keys-dri: $err" ;; esac
run init --projetc x
case $err in *"did you mean '--project'? (crs-ci help init)") ;; *) fail "init --projetc: $err" ;; esac
run sacn
[ "$code" -eq 2 ] && [ "$err" = "crs-ci: 'sacn' is not a crs-ci command; did you mean 'scan'? (crs-ci help)" ] ||
	fail "sacn: exit $code: $err"
run --verbos scan
case $err in *"did you mean '--verbose'?"*) ;; *) fail "--verbos: $err" ;; esac
run scan --zzzzzzzz
[ "$code" -eq 2 ] && ! grep -q "did you mean" "$tmp/err" || fail "scan --zzzzzzzz suggests: $err"
note "did you mean: options of scan, report, gateway, init; commands"

# 4. global options after the command
run scan -v --compose "$tmp/none.yaml"
[ "$code" -eq 2 ] || fail "scan -v: exit $code"
! grep -q "unknown option" "$tmp/err" || fail "scan -v is an unknown option: $err"
# a missing compose names the option and the path
grep -q "error: --compose '$tmp/none.yaml': no such file" "$tmp/err" ||
	fail "a missing compose does not name --compose and its path: $err"
run check --compose "$tmp"
[ "$code" -eq 2 ] && grep -q "error: --compose '$tmp': a folder" "$tmp/err" ||
	fail "check --compose FOLDER: exit $code: $err"
v=$ROOT/tests/fixtures/config/valid
run check --compose "$v/compose.yaml" --project "$v/project"
[ "$code" -eq 0 ] && [ -n "$err" ] || fail "check logs nothing at info: $err"
run check --compose "$v/compose.yaml" --project "$v/project" --quiet
[ "$code" -eq 0 ] && [ -z "$err" ] || fail "check --quiet still logs: $err"
[ -n "$out" ] || fail "check --quiet printed no verdict"
run check --compose "$v/compose.yaml" -h
[ "$code" -eq 0 ] && case $out in "usage: crs-ci check"*) ;; *) false ;; esac ||
	fail "check ... -h is not check's help"

# 5. bash completion, made from the same tables
run completion bash
[ "$code" -eq 0 ] || fail "completion bash: exit $code"
cp "$tmp/out" "$tmp/crs-ci.bash"
mkdir -p "$tmp/w/sub"; : >"$tmp/w/compose.yaml"
# complete WORDS...: the completions of the last word
complete_words() {
	bash --norc --noprofile -c '
		. "$1"; shift
		complete -p crs-ci >/dev/null || exit 9
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_crs_ci
		printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$tmp/crs-ci.bash" "$@"
}
cd "$tmp/w"
[ "$(complete_words crs-ci sc)" = scan ] || fail "crs-ci sc<TAB>: $(complete_words crs-ci sc)"
[ "$(complete_words crs-ci -v sc)" = scan ] || fail "crs-ci -v sc<TAB>"
[ "$(complete_words crs-ci scan --har)" = --harness ] ||
	fail "crs-ci scan --har<TAB>: $(complete_words crs-ci scan --har)"
[ -z "$(complete_words crs-ci report --har)" ] || fail "report completes --harness"
[ "$(complete_words crs-ci gateway --keys)" = --keys-dir ] || fail "gateway --keys<TAB>"
[ "$(complete_words crs-ci help vers)" = version ] || fail "help vers<TAB>"
[ "$(complete_words crs-ci hook "")" = "$(printf 'install\nuninstall')" ] ||
	fail "hook <TAB>: $(complete_words crs-ci hook "")"
[ "$(complete_words crs-ci scan --compose comp)" = compose.yaml ] ||
	fail "--compose FILE does not complete files"
[ "$(complete_words crs-ci scan --work-dir "")" = sub ] ||
	fail "--work-dir DIR does not complete folders: $(complete_words crs-ci scan --work-dir "")"
[ -z "$(complete_words crs-ci scan --timeout "")" ] || fail "--timeout completes files"
note "completion: commands, per-command options, files and folders"

# 6. a page per command, and the README's command list is the table
for c in $cmds; do
	[ -f "$ROOT/docs/cmd/$c.md" ] || fail "no docs/cmd/$c.md"
	grep -q "^| \[\`$c\`\](docs/cmd/$c.md) |" "$ROOT/README.md" ||
		fail "README's command list lacks $c"
done
[ "$(grep -c '^| \[`[a-z-]*`\](docs/cmd/' "$ROOT/README.md")" -eq "$(lines "$cmds")" ] ||
	fail "README lists commands that are not in the table"

# 7. make install puts the completion where bash-completion finds it
make -C "$ROOT" -s install PREFIX=/usr DESTDIR="$tmp/dest" >/dev/null
cmp -s "$tmp/dest/usr/share/bash-completion/completions/crs-ci" "$tmp/crs-ci.bash" ||
	fail "make install did not install the completion"
echo "ok: test_cli"
