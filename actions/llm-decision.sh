#!/usr/bin/env bash
# llm-decision.sh - may LLM CRSs run on this event? (actions/README.md,
# "LLM CRSs on untrusted pull requests")
#
# Not on a pull request from a fork or from a first-time contributor
# (author_association FIRST_TIME_CONTRIBUTOR, FIRST_TIMER or NONE), unless
# the pull request carries the label LLM_LABEL, which only people with
# write access (maintainers) can set. Other events and trusted authors
# keep LLM_BUDGET. Reads the event file with jq.
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
	jq -e --arg l "$label" 'any(.pull_request.labels[]?; .name == $l)' \
		"$path" >/dev/null; then
	decide yes "$budget" "$untrusted with the maintainers' label '$shown': LLM CRSs may run${budget:+ (budget \$$budget)}"
elif [ -n "$label" ]; then
	decide no "" "$untrusted without the maintainers' label '$shown': no LLM CRSs"
else
	decide no "" "$untrusted and no llm-label input: no LLM CRSs"
fi
