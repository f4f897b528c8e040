# crs_submit.sh - the PoV submit step of crs-ci's fuzzer CRSs (bash, sourced)
#
# One copy for crs-libfuzzer's run_fuzzer.sh and crs-aflpp's run_afl.sh:
# `make` copies this file into each CRS's bin/ folder (the CRS folder is
# its image's build context, so the copy is hashed into the image tag),
# and each Dockerfile puts it beside the script.
#
# The sourcing script provides say(), $tokens (a file of the DEDUP_TOKENs
# of the PoVs submitted so far), $submitted (their count) and $start
# ($SECONDS when it started).

# submit_pov FILE NAME TOKEN: submits FILE (shown as NAME) with `libCRS
# submit pov` unless a PoV with the same DEDUP_TOKEN (TOKEN; empty: none
# known) was submitted already. 0: submitted; 1: a known bug, not
# submitted (a triage run would find nothing new); 2: libCRS failed.
submit_pov() {
	local f=$1 name=$2 token=$3
	if [ -n "$token" ] && grep -qxF -- "$token" "$tokens"; then
		say "$name: same DEDUP_TOKEN as a submitted PoV ($token); not submitted"
		return 1
	fi
	if ! libCRS submit pov "$f" >/dev/null; then
		say "libCRS submit pov $f failed"
		return 2
	fi
	say "submitted PoV $name${token:+ ($token)} at $((SECONDS - start)) s"
	if [ -n "$token" ]; then
		echo "$token" >> "$tokens"
	fi
	submitted=$((submitted + 1))
	return 0
}
