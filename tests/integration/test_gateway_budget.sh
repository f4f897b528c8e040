#!/usr/bin/env bash
# test_gateway_budget.sh - the LLM gateway container cannot be made to
# overspend or be starved by a hostile CRS.
#
# The gateway (the static crs-ci) joins two internal CRS networks and an
# egress network where the fake provider (tests/helper/fake_llm.c) bills
# ONE PROMPT TOKEN PER BYTE of every body it receives (no tokenizer bills
# more) plus 20 completion tokens, and logs its bill.
#  1. Budget: crsA ($0.05) runs 8 processes that send prompts of random
#     bytes, rare CJK and hex dumps until the gateway refuses even tiny
#     ones. The fake's own bill, at the configured prices, must be within
#     $0.05, and llm-spend.json must agree with it.
#  2. Starvation: crsA opens 1,000 connections that never finish their
#     headers; crsB's requests are still answered, each within a 10 s
#     client deadline; the gateway's idle timeout closes crsA's
#     connections (its default, 10 s, plus a grace).
#  3. The gateway stops on SIGTERM within its 3 s grace, exit 0.
# GATEWAY_BIN=path runs another static crs-ci (e.g. main's, to show the
# test fails there).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
tmp=$(mktemp_dir)
base_runner=$BASE_RUNNER_STAND_IN
fake_llm_names budget
owner=crs-ci-it-budget-$$
gw=$owner-gateway
netA=$owner-crsA
netB=$owner-crsB
budget_cleanup() {
	docker ps -aq --filter "label=io.crs-ci.owner=$owner" |
		xargs -r docker rm -f >/dev/null 2>&1 || true
	docker network rm "$netA" "$netB" >/dev/null 2>&1 || true
	fake_llm_cleanup
}
trap budget_cleanup EXIT

# --- the binaries ---------------------------------------------------------
build_static_fake_llm "$tmp/bin"
bin=${GATEWAY_BIN:-$ROOT/build/static/crs-ci}
[ -x "$bin" ] || fail "no static crs-ci at $bin (make static)"
user="$(id -u):$(id -g)"

# --- networks, provider, gateway -----------------------------------------
docker network create "$net" >/dev/null
docker network create --internal --label "io.crs-ci.owner=$owner" "$netA" >/dev/null
docker network create --internal --label "io.crs-ci.owner=$owner" "$netB" >/dev/null
mkdir -p "$tmp/llm/keys" "$tmp/bill"
: >"$tmp/bill/bill.txt"
docker run -d --name "$fake" --network "$net" --network-alias fake-llm \
	--user "$user" -v "$tmp/bin/fake-llm:/fake-llm:ro" -v "$tmp/bill:/bill" \
	--entrypoint /fake-llm "$base_runner" --any --port "$port" \
	--bill-bytes --completion-tokens 20 --bill-log /bill/bill.txt "$key" >/dev/null
cat >"$tmp/llm/config.yaml" <<EOF
model_list:
  - model_name: dense-model
    litellm_params:
      model: openai/dense-model
      api_base: http://fake-llm:$port/v1
      api_key: os.environ/FAKE_LLM_API_KEY
      input_cost_per_token: 0.000001
      output_cost_per_token: 0.000002
EOF
docker run -d --name "$gw" --label "io.crs-ci.owner=$owner" --network "$net" \
	--user "$user" -e FAKE_LLM_API_KEY="$key" \
	-v "$bin:/crs-ci:ro" -v "$tmp/llm:/llm" --entrypoint /crs-ci "$base_runner" \
	gateway --listen 0.0.0.0:4000 --keys-dir /llm/keys --config /llm/config.yaml \
	--budget crsA=0.05 --budget crsB=1 --report /llm/llm-spend.json \
	--report-interval 1 >/dev/null
docker network connect --alias litellm.oss-crs "$netA" "$gw"
docker network connect --alias litellm.oss-crs "$netB" "$gw"

# client NET ARGS...: tests/fixtures/gateway-budget/client.pl in a
# container on NET (a CRS's network), the keys mounted read-only
client() {
	local n=$1
	shift
	docker run --rm --label "io.crs-ci.owner=$owner" --network "$n" --user "$user" \
		-v "$ROOT/tests/fixtures/gateway-budget/client.pl:/client.pl:ro" \
		-v "$tmp/llm/keys:/keys:ro" --entrypoint perl "$base_runner" /client.pl "$@"
}
for _ in $(seq 100); do
	[ -s "$tmp/llm/keys/crsA.key" ] && [ -s "$tmp/llm/keys/crsB.key" ] && break
	sleep 0.1
done
up=0
for _ in $(seq 20); do
	if client "$netB" ask /keys/crsB.key 1 | grep -q "^status 200 "; then
		up=1
		break
	fi
	sleep 0.5
done
[ "$up" = 1 ] || { docker logs "$gw" >&2; fail "crsB got no answer through the gateway"; }
note "gateway $(basename "$bin") up on two CRS networks"

# --- 1. dense prompts against a $0.05 budget ------------------------------
# bill FROM TO: what the provider billed for lines FROM..TO of its log
bill() {
	awk -v a="$1" -v b="$2" 'NR >= a && NR <= b {i += $1; o += $2}
		END {printf "%.9f", i * 0.000001 + o * 0.000002}' "$tmp/bill/bill.txt"
}
first=$(($(wc -l <"$tmp/bill/bill.txt") + 1))
out=$(client "$netA" dense /keys/crsA.key 8) || fail "dense client failed: $out"
note "crsA: $out"
last=$(wc -l <"$tmp/bill/bill.txt")
requests=$((last - first + 1))
billed=$(bill "$first" "$last")
note "provider billed \$$billed for $requests request(s) against a \$0.05 budget (ratio $(awk "BEGIN {printf \"%.3f\", $billed / 0.05}"))"
awk "BEGIN {exit !($billed <= 0.05)}" || fail "billed \$$billed, over the \$0.05 budget"

# --- 2. 1,000 idle connections from crsA, crsB still served ---------------
docker run -d --name "$owner-idle" --label "io.crs-ci.owner=$owner" --network "$netA" \
	--user "$user" -v "$ROOT/tests/fixtures/gateway-budget/client.pl:/client.pl:ro" \
	--entrypoint perl "$base_runner" /client.pl idle 1000 25 >/dev/null
for _ in $(seq 200); do
	docker logs "$owner-idle" 2>&1 | grep -q "^opened" && break
	sleep 0.1
done
opened=$(docker logs "$owner-idle" 2>&1 | sed -n 's/^opened //p')
[ -n "$opened" ] || fail "the idle client opened nothing"
asks=$(client "$netB" ask /keys/crsB.key 5)
note "crsB while crsA holds $opened idle connections: $(echo "$asks" | awk '{printf "%s(%ss) ", $2, $4}')"
[ "$(echo "$asks" | grep -c '^status 200 ')" = 5 ] || fail "crsB was starved: $asks"
docker wait "$owner-idle" >/dev/null
idle=$(docker logs "$owner-idle" 2>&1 | tail -n 1)
note "crsA's idle connections: $idle"
set -- $idle
[ "$6" = 0 ] || fail "the gateway left $6 idle connection(s) open: $idle"

# --- 3. stop on time, the report agrees with the provider's bill ----------
ts=$(date +%s.%N)
docker stop -t 10 "$gw" >/dev/null
stop_s=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $ts}")
code=$(docker inspect -f '{{.State.ExitCode}}' "$gw")
[ "$code" = 0 ] || { docker logs "$gw" 2>&1 | tail -n 20 >&2; fail "gateway exit $code"; }
awk "BEGIN {exit !($stop_s < 8)}" || fail "the gateway took ${stop_s}s to stop"
python3 - "$tmp/llm/llm-spend.json" "$billed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["crs"]["crsA"]
billed = float(sys.argv[2])
assert a["dollars"] <= 0.05, a
assert abs(a["dollars"] - billed) < 1e-9, (a, billed)
assert a["overruns"] == 0, a
print("  - llm-spend.json: crsA $%.6f in %d request(s), %d refused, "
      "%d overrun(s); crsB %d request(s)" %
      (a["dollars"], a["requests"], a["refusals"], a["overruns"],
       r["crs"]["crsB"]["requests"]), file=sys.stderr)
PY
note "gateway stopped in ${stop_s}s; whole test $(($(date +%s) - t0))s"
