#!/usr/bin/env bash
# llm-decision.sh - may LLM CRSs run on this event? (actions/README.md,
# "LLM CRSs on untrusted pull requests")
#
# Not on a pull request from a fork or from a first-time contributor
# (author_association FIRST_TIME_CONTRIBUTOR, FIRST_TIMER or NONE), unless
# a maintainer (only people with write access can) set the label
# LLM_LABEL on the head this run scans: the event is that label's
# `labeled` event. A label left on the pull request does not carry over
# to commits pushed after it (their `synchronize` runs get no LLM CRSs):
# a maintainer who has read the new commits sets it again. Other events
# and trusted authors keep LLM_BUDGET. Reads the event file with jq.
#
# Usage: llm-decision.sh EVENT_NAME EVENT_PATH REPOSITORY LLM_BUDGET LLM_LABEL
# Prints "llm=yes|no", "llm-budget=..." and "llm-reason=..." lines for
# GITHUB_OUTPUT, and the decision as a ::notice on stderr.
set -euo pipefail
[ $# -eq 5 ] || {
	echo "usage: $0 EVENT_NAME EVENT_PATH REPOSITORY LLM_BUDGET LLM_LABEL" >&2
	exit 2
}
event=$1 path=$2 repo=$3 budget=$4 label=$5

decide() {	# yes|no BUDGET REASON
	printf 'llm=%s\nllm-budget=%s\nllm-reason=%s\n' "$1" "$2" "$3"
	echo "::notice title=crs-ci LLM CRSs::$3" >&2
}

untrusted="" who="${event//[^a-z_]/} event"
shown=${label//[^A-Za-z0-9 ._:\/-]/?}	# the label as printed
case "$event" in
pull_request|pull_request_target)
	[ -f "$path" ] || { echo "llm-decision: no event file $path" >&2; exit 2; }
	head_repo=$(jq -r '.pull_request.head.repo.full_name // ""' "$path")
	assoc=$(jq -r '.pull_request.author_association // "NONE"' "$path")
	assoc=${assoc//[^A-Z_]/}	# GitHub's enum: nothing else gets out
	if [ "$head_repo" != "$repo" ]; then
		untrusted="a pull request from a fork"
	else
		case "$assoc" in
		OWNER|MEMBER|COLLABORATOR) who="pull request by a trusted author ($assoc)" ;;
		*) untrusted="a pull request by an author without write access (${assoc:-NONE})" ;;
		esac
	fi ;;
esac
if [ -z "$untrusted" ]; then
	decide yes "$budget" "$who: LLM CRSs may run${budget:+ (budget \$$budget)}"
elif [ -n "$label" ] &&
	jq -e --arg l "$label" '.action == "labeled" and .label.name == $l' \
		"$path" >/dev/null; then
	decide yes "$budget" "$untrusted, labelled '$shown' by a maintainer for this head: LLM CRSs may run${budget:+ (budget \$$budget)}"
elif [ -n "$label" ] &&
	jq -e --arg l "$label" 'any(.pull_request.labels[]?; .name == $l)' \
		"$path" >/dev/null; then
	head=$(jq -r '.pull_request.head.sha // ""' "$path")
	head=${head//[^0-9a-f]/}
	decide no "" "$untrusted: the maintainers' label '$shown' was set before this head (${head:0:12}); it counts only for the head it was set on: set it again to run LLM CRSs on this one"
elif [ -n "$label" ]; then
	decide no "" "$untrusted without the maintainers' label '$shown': no LLM CRSs"
else
	decide no "" "$untrusted and no llm-label input: no LLM CRSs"
fi
