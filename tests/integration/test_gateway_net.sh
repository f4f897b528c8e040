#!/usr/bin/env bash
# test_gateway_net.sh - the LLM gateway in a real scan: a CRS on its
# internal network reaches the model through the gateway (HTTP 200, spend
# booked against its budget, a request over budget refused with 429) and
# nothing else: the fake provider, on the gateway's egress network only,
# is unreachable from the CRS by name and by address. No key (provider or
# CRS) appears in any file under the work or output folder, and no
# container or network of the scan is left.
#
# The fake provider is tests/helper/fake_llm.c built static in the
# `make static` deps image, run in the runner base image on a network of
# this test, which the gateway joins for its way out (CRS_CI_LLM_NETWORK).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
tmp=$(mktemp_dir)
base_runner=$BASE_RUNNER_STAND_IN
fake_llm_names llm

# --- the static crs-ci (the gateway) and the static fake provider -------
build_static_fake_llm "$tmp/bin"
note "fake-llm built static in $STATIC_DEPS"

# --- the provider, reachable on the egress network only -----------------
docker network create "$net" >/dev/null
docker run -d --name "$fake" --network "$net" --network-alias fake-llm \
	-v "$tmp/bin/fake-llm:/fake-llm:ro" "$base_runner" \
	/fake-llm --any --port "$port" "$key" >/dev/null
fake_ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$net\").IPAddress}}" "$fake")
[ -n "$fake_ip" ] || fail "fake-llm has no address"
# the control: from the egress network the same probe does connect
docker run --rm --network "$net" "$base_runner" timeout 10 bash -c \
	"until exec 3<>/dev/tcp/fake-llm/$port; do sleep 0.2; done" 2>/dev/null ||
	fail "fake-llm is not reachable even from its own network"
note "fake-llm at $fake_ip:$port on $net (reachable there by name)"

# --- the scan -----------------------------------------------------------
cp -r "$ROOT/tests/fixtures/llm" "$tmp/llm"
sed -i "s/@FAKE_LLM_IP@/$fake_ip/" "$tmp/llm/compose.yaml"
eval "$("$ROOT/examples/make-repo.sh" "$tmp/repo")"
# the scan, in the background; what its gateway container was started
# with, seen while it runs (by the scan's pid label: another script's
# scan may run a gateway beside it)
ts=$(date +%s)
CRS_CI_LLM_NETWORK=$net FAKE_LLM_API_KEY=$key "$CRS_CI" scan \
	--compose "$tmp/llm/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out" >"$tmp/verdict.txt" 2>"$tmp/log.txt" &
scan_pid=$!
(
	for _ in $(seq 600); do
		id=$(docker ps -q --filter "name=-llm-gateway" --filter "label=io.crs-ci.pid=$scan_pid" | head -n 1)
		if [ -n "$id" ]; then
			docker inspect -f '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$id" >"$tmp/gateway-cmd.txt"
			docker inspect -f '{{json .HostConfig.Binds}} {{json .NetworkSettings.Networks}}' "$id" >"$tmp/gateway-net.txt"
			exit 0
		fi
		sleep 0.2
	done
) &
watcher=$!
set +e
wait "$scan_pid"
code=$?
set -e
scan_s=$(($(date +%s) - ts))
wait "$watcher" || true
[ "$code" -eq 0 ] || { cat "$tmp/log.txt" >&2; fail "scan exit $code, want 0"; }

# --- what the CRS saw ---------------------------------------------------
probe=$(find "$tmp/work/runs" -path '*/crs-llm/LOG_DIR/*/llm-probe.txt' | head -n 1)
[ -n "$probe" ] || { cat "$tmp/log.txt" >&2; fail "the CRS wrote no llm-probe.txt"; }
sed 's/^/    /' "$probe" >&2
val() { sed -n "s/^$1=//p" "$probe"; }
[ "$(val llm_url)" = "http://litellm.oss-crs:4000" ] || fail "OSS_CRS_LLM_API_URL: $(val llm_url)"
[ "$(val key_file)" = "/run/secrets/oss_crs_llm_api_key" ] || fail "OSS_CRS_LLM_API_KEY_FILE: $(val key_file)"
[ "$(val key_bytes)" = 73 ] || fail "key file holds $(val key_bytes) bytes, want 73"
[ -z "$(val provider_key_in_env)" ] || fail "the provider key reached the CRS's environment"
[ "$(val gateway_status)" = 200 ] || { cat "$tmp/log.txt" >&2; fail "through the gateway: HTTP $(val gateway_status), want 200"; }
[ "$(val gateway_usage)" = yes ] || fail "the answer carries no usage"
[ "$(val over_budget_status)" = 429 ] || fail "over budget: HTTP $(val over_budget_status), want 429"
case $(val direct_name) in failed*) ;; *) fail "direct by name: $(val direct_name)" ;; esac
case $(val direct_ip) in failed*) ;; *) fail "direct by address: $(val direct_ip)" ;; esac
note "CRS: 200 through the gateway, 429 over budget; direct: $(val direct_name) / $(val direct_ip)"

# --- the spend report ---------------------------------------------------
[ -s "$tmp/out/llm-spend.json" ] || fail "no llm-spend.json in the output"
python3 - "$tmp/out/llm-spend.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["crs"]["crs-llm"]
assert c["requests"] == 1, c
assert c["refusals"] == 1, c
assert c["budget_dollars"] == 0.01, c
assert c["tokens_out"] == 32, c
# fake usage: prompt = forwarded body bytes / 4, output = max_tokens
want = c["tokens_in"] * 0.000001 + 32 * 0.000002
assert abs(c["dollars"] - want) < 1e-9, (c, want)
assert 0 < c["dollars"] <= 0.01, c
print("  - spend: %d request(s), %d refused, $%.6f of $%.2f" %
      (c["requests"], c["refusals"], c["dollars"], c["budget_dollars"]),
      file=sys.stderr)
PY
grep -qF "llm: crs-llm spent \$0." "$tmp/log.txt" || { cat "$tmp/log.txt" >&2; fail "no spend line in the scan's log"; }

# --- no key anywhere ----------------------------------------------------
[ -s "$tmp/gateway-cmd.txt" ] || fail "did not see the gateway container"
if grep -qF "$key" "$tmp/gateway-cmd.txt"; then fail "provider key on the gateway's command line"; fi
grep -q -- '--budget","crs-llm=0.01"' "$tmp/gateway-cmd.txt" || fail "gateway argv: $(cat "$tmp/gateway-cmd.txt")"
grep -q "litellm.oss-crs" "$tmp/gateway-net.txt" || fail "gateway has no litellm.oss-crs alias: $(cat "$tmp/gateway-net.txt")"
if grep -rlF "$key" "$tmp/work" "$tmp/out" "$tmp/log.txt" "$tmp/verdict.txt"; then
	fail "the provider key was written to the files above"
fi
if grep -rlE "sk-crsci-[0-9a-f]{8}" "$tmp/work" "$tmp/out" "$tmp/log.txt" "$tmp/verdict.txt"; then
	fail "a CRS key was left in the files above"
fi
note "no provider or CRS key in $(find "$tmp/work" "$tmp/out" -type f | wc -l) files"

# --- nothing of the scan left on the engine -----------------------------
# The last run phase's owner, from its run id ("<time>-<owner suffix>").
last_owner() {
	local rid
	rid=$(python3 -c "import json;print(json.load(open('$tmp/work/scan.json'))['run_id'])")
	echo "crs-ci-${rid#*-}"
}
assert_clean() {
	local owner left_c left_n
	owner=$(last_owner)
	left_c=$(docker ps -aq --filter "label=io.crs-ci.owner=$owner" | wc -l)
	left_n=$(docker network ls -q --filter "label=io.crs-ci.owner=$owner" | wc -l)
	[ "$left_c" -eq 0 ] && [ "$left_n" -eq 0 ] ||
		fail "$1: $left_c container(s) and $left_n network(s) of $owner left"
	[ "$(docker network inspect -f '{{len .Containers}}' "$net")" = 1 ] ||
		fail "$1: something of the scan is still on $net"
	note "$1: nothing of $owner left"
}
assert_clean "scan"

# --- the run phase again: a provider key missing on the host ------------
run_again() {
	"$CRS_CI" run --compose "$tmp/llm/compose.yaml" \
		--project "$ROOT/examples/projects/recparse" \
		--source "$tmp/repo" --base "$base" --head "$head" \
		--harness fuzz_records --timeout 10m \
		--work-dir "$tmp/work" --out "$tmp/out"
}
set +e
CRS_CI_LLM_NETWORK=$net run_again >/dev/null 2>"$tmp/log-nokey.txt"
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/log-nokey.txt" >&2; fail "without FAKE_LLM_API_KEY: exit $code, want 2"; }
grep -q "environment variable FAKE_LLM_API_KEY" "$tmp/log-nokey.txt" ||
	{ cat "$tmp/log-nokey.txt" >&2; fail "the error does not name FAKE_LLM_API_KEY"; }
note "without FAKE_LLM_API_KEY: exit 2, $(grep -o 'environment variable FAKE_LLM_API_KEY[^)]*)' "$tmp/log-nokey.txt" | head -n 1)"
assert_clean "missing key"

# --- and Ctrl-C while the gateway serves --------------------------------
# (exec: the signal must reach crs-ci, not a subshell around it)
(CRS_CI_LLM_NETWORK=$net FAKE_LLM_API_KEY=$key exec "$CRS_CI" run \
	--compose "$tmp/llm/compose.yaml" \
	--project "$ROOT/examples/projects/recparse" \
	--source "$tmp/repo" --base "$base" --head "$head" \
	--harness fuzz_records --timeout 10m \
	--work-dir "$tmp/work" --out "$tmp/out") >/dev/null 2>"$tmp/log-int.txt" &
pid=$!
seen=0
for _ in $(seq 300); do
	if grep -q "llm: gateway" "$tmp/log-int.txt"; then
		seen=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ "$seen" = 1 ] || { cat "$tmp/log-int.txt" >&2; fail "the gateway did not start for the Ctrl-C case"; }
kill -INT "$pid"
set +e
wait "$pid"
code=$?
set -e
[ "$code" -eq 130 ] || { cat "$tmp/log-int.txt" >&2; fail "Ctrl-C: exit $code, want 130"; }
assert_clean "Ctrl-C"
if grep -rlE "sk-crsci-[0-9a-f]{8}" "$tmp/work" "$tmp/out"; then
	fail "Ctrl-C left a CRS key in the files above"
fi
note "scan ${scan_s}s, whole test $(($(date +%s) - t0))s"
