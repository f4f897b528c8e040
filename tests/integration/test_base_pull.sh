#!/usr/bin/env bash
# test_base_pull.sh - crs-ci pulls a missing base image from a registry
# (issue 12): Debian's docker-registry, started here on a free 127.0.0.1
# port with its own storage (the engine treats 127.0.0.0/8 registries as
# insecure, so plain HTTP), serves a small image under a registry-qualified
# base name, 127.0.0.1:PORT/oss-fuzz-base/base-runner:t-<random>. A CRS
# whose run module says FROM that name is prepared with --base-images pull:
#  1. the image is missing locally: crs-ci pulls it (progress lines, a
#     summary) and the build succeeds;
#  2. with the registry stopped: one error line "cannot pull ...: registry
#     unreachable", exit 3;
#  3. with the registry behind htpasswd: no credentials is "access denied",
#     exit 3; with a DOCKER_CONFIG holding them the pull succeeds, and the
#     password (and its base64) is nowhere in the output, the logs or the
#     work folder; the same with a credential helper (credsStore);
#  4. Ctrl-C during a pull from a registry that never answers: exit 130.
# The registry, the images and the temp folder are removed on any exit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
command -v docker-registry >/dev/null ||
	fail "docker-registry not found (container/setup-host.sh)"
command -v htpasswd >/dev/null ||
	fail "htpasswd not found (apache2-utils, container/setup-host.sh)"
[ -x /bin/busybox ] || fail "/bin/busybox not found (busybox-static)"
TMP=$(mktemp -d "$TMP_ROOT/crs-ci-it.XXXXXX")
tmp=$TMP
reg_pid=
pushed=
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rand=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
image=127.0.0.1:$port/oss-fuzz-base/base-runner:t-$rand
crs=crs-pulltest-$rand
cleanup() {
	[ -z "$reg_pid" ] || kill "$reg_pid" 2>/dev/null || true
	[ -z "$reg_pid" ] || wait "$reg_pid" 2>/dev/null || true
	docker rmi -f "$image" "${pushed:-$image}" >/dev/null 2>&1 || true
	docker images --format '{{.Repository}}:{{.Tag}}' |
		grep "^crs-ci-runner/$crs-" | xargs -r docker rmi -f \
		>/dev/null 2>&1 || true
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

# registry_start [htpasswd]: serve $tmp/storage on $port.
registry_start() {
	{
		echo "version: 0.1"
		echo "log: {level: error, accesslog: {disabled: true}}"
		echo "storage: {filesystem: {rootdirectory: $tmp/storage}}"
		echo "http: {addr: 127.0.0.1:$port}"
		[ -z "${1:-}" ] ||
			echo "auth: {htpasswd: {realm: crs-ci-test, path: $1}}"
	} >"$tmp/registry.yml"
	docker-registry serve "$tmp/registry.yml" >>"$tmp/registry.log" 2>&1 &
	reg_pid=$!
	for _ in $(seq 100); do
		code=$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$port/v2/" || true)
		case $code in 200|401) return 0 ;; esac
		kill -0 "$reg_pid" 2>/dev/null ||
			{ cat "$tmp/registry.log" >&2; fail "registry exited"; }
		sleep 0.1
	done
	fail "registry on port $port did not answer"
}
registry_stop() {
	kill "$reg_pid"
	wait "$reg_pid" 2>/dev/null || true
	reg_pid=
}

# a small base image (a static busybox), pushed, then removed locally
mkdir -p "$tmp/rootfs/bin" "$tmp/storage"
cp /bin/busybox "$tmp/rootfs/bin/busybox"
ln -s busybox "$tmp/rootfs/bin/sh"
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
registry_start
docker import --change 'CMD ["/bin/sh"]' "$tmp/rootfs.tar" "$image" >/dev/null
docker push "$image" >"$tmp/push.log" 2>&1 ||
	{ cat "$tmp/push.log" >&2; fail "docker push $image"; }
docker rmi "$image" >/dev/null
! docker image inspect "$image" >/dev/null 2>&1 || fail "$image still local"
note "pushed $image to a registry on 127.0.0.1:$port, removed locally"

# crs_at DIR NOTE: a CRS whose run module builds FROM $image (NOTE makes
# its content, so its image tag, differ per step)
crs_at() {
	mkdir -p "$1/oss-crs"
	cat >"$1/oss-crs/crs.yaml" <<YAML
name: $crs
type: [bug-finding]
version: 1.0.0
crs_run_phase:
  probe:
    dockerfile: oss-crs/runner.Dockerfile
    target_dependent: false
supported_target:
  mode: [full, delta]
  language: [c, c++]
  sanitizer: [address]
  architecture: [x86_64]
  fuzzing_engine: [libfuzzer]
YAML
	printf '# %s\nFROM %s\nRUN echo built >/built\n' "$2" "$image" \
		>"$1/oss-crs/runner.Dockerfile"
	cat >"$1/compose.yaml" <<YAML
run_env: local
docker_registry: local
oss_crs_infra: {cpuset: "0", memory: "1G"}
$crs:
  cpuset: "1"
  memory: "256M"
  source: {local_path: "."}
YAML
}

# prepare_expect WANT NAME: crs-ci prepare in pull mode; output in
# $tmp/NAME.log, exit status checked
prepare_expect() {
	local want=$1 name=$2 code
	set +e
	CRS_CI_BASE_IMAGES=pull "$CRS_CI" prepare --compose "$tmp/$name/compose.yaml" \
		--work-dir "$tmp/work-$name" --timeout 5m \
		>"$tmp/$name.out" 2>"$tmp/$name.log"
	code=$?
	set -e
	[ "$code" -eq "$want" ] ||
		{ cat "$tmp/$name.log" >&2; fail "$name: exit $code, want $want"; }
}

# 1. pulled for the build, with progress lines
crs_at "$tmp/pull" pull
start=$(date +%s)
prepare_expect 0 pull
grep -q "pulling $image (missing locally)" "$tmp/pull.log" ||
	{ cat "$tmp/pull.log" >&2; fail "no 'pulling' line"; }
grep -q "pull $image: layer [0-9a-f]*: Pull complete" "$tmp/pull.log" ||
	{ cat "$tmp/pull.log" >&2; fail "no layer progress line"; }
grep -q "pull $image: Downloaded newer image for $image (1 layer(s)" \
	"$tmp/pull.log" || { cat "$tmp/pull.log" >&2; fail "no summary line"; }
docker image inspect "$image" >/dev/null || fail "$image was not pulled"
grep -q "building image crs-ci-runner/$crs-probe:" "$tmp/pull.log" ||
	fail "the run module was not built"
note "pull mode: pulled and built in $(( $(date +%s) - start )) s:"
grep "pull $image" "$tmp/pull.log" | sed 's/^/      /' >&2

# 2. registry stopped: one line, exit 3
registry_stop
docker rmi "$image" >/dev/null
crs_at "$tmp/down" down
start=$(date +%s)
prepare_expect 3 down
errors=$(grep -c "error" "$tmp/down.log" || true)
[ "$errors" = 1 ] || { cat "$tmp/down.log" >&2; fail "$errors error lines, want 1"; }
grep -q "^crs-ci: error: .*cannot pull $image: registry unreachable (.*connection refused" \
	"$tmp/down.log" || { cat "$tmp/down.log" >&2; fail "no 'registry unreachable' line"; }
note "registry down: exit 3 after $(( $(date +%s) - start )) s (retries), one line:"
grep error "$tmp/down.log" | sed 's/^/      /' >&2

# 3. htpasswd: denied without credentials, pulled with them
user=crs-ci-test
password="pw-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
htpasswd -Bbn "$user" "$password" >"$tmp/htpasswd" 2>/dev/null
registry_start "$tmp/htpasswd"
mkdir -p "$tmp/no-creds" "$tmp/creds"
crs_at "$tmp/denied" denied
DOCKER_CONFIG=$tmp/no-creds prepare_expect 3 denied
grep -q "cannot pull $image: access denied" "$tmp/denied.log" ||
	{ cat "$tmp/denied.log" >&2; fail "no 'access denied' line"; }
note "registry with htpasswd, no credentials: exit 3, access denied"
auth=$(printf '%s:%s' "$user" "$password" | base64 -w0)
printf '{"auths": {"127.0.0.1:%s": {"auth": "%s"}}}\n' "$port" "$auth" \
	>"$tmp/creds/config.json"
crs_at "$tmp/auth" auth
DOCKER_CONFIG=$tmp/creds prepare_expect 0 auth
grep -q "pulling $image (missing locally) with credentials" "$tmp/auth.log" ||
	{ cat "$tmp/auth.log" >&2; fail "no pull with credentials"; }
grep -q "Downloaded newer image for $image" "$tmp/auth.log" ||
	{ cat "$tmp/auth.log" >&2; fail "not pulled with credentials"; }
for secret in "$password" "$auth"; do
	! grep -rqF -- "$secret" "$tmp/auth.log" "$tmp/auth.out" \
		"$tmp/work-auth" "$tmp/denied.log" "$tmp/work-denied" ||
		fail "a credential appears in the output or the work folder"
done
note "registry with htpasswd and DOCKER_CONFIG: pulled; the password is in no output, log or work file"
# the same credentials from a credential helper (credsStore)
docker rmi "$image" >/dev/null
mkdir -p "$tmp/helper-bin" "$tmp/helper-cfg"
cat >"$tmp/helper-bin/docker-credential-crsci-test" <<SH
#!/bin/sh
read -r server
[ "\$1 \$server" = "get 127.0.0.1:$port" ] || { echo "credentials not found"; exit 1; }
printf '{"ServerURL":"%s","Username":"%s","Secret":"%s"}' "\$server" "$user" "$password"
SH
chmod 0755 "$tmp/helper-bin/docker-credential-crsci-test"
echo '{"auths": {}, "credsStore": "crsci-test"}' >"$tmp/helper-cfg/config.json"
crs_at "$tmp/helper" helper
PATH=$tmp/helper-bin:$PATH DOCKER_CONFIG=$tmp/helper-cfg prepare_expect 0 helper
grep -q "pulling $image (missing locally) with credentials" "$tmp/helper.log" ||
	{ cat "$tmp/helper.log" >&2; fail "no pull with the helper's credentials"; }
! grep -rqF -- "$password" "$tmp/helper.log" "$tmp/helper.out" "$tmp/work-helper" ||
	fail "the helper's password appears in the output or the work folder"
note "credentials from a credential helper (credsStore): pulled, password in no output"

# 4. Ctrl-C during a pull: a "registry" that accepts and never answers
python3 - "$tmp/silent.port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
while True:
    conns.append(s.accept()[0])
PY
silent_pid=$!
trap 'kill $silent_pid 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 50); do [ -s "$tmp/silent.port" ] && break; sleep 0.1; done
pushed=$image
image=127.0.0.1:$(cat "$tmp/silent.port")/oss-fuzz-base/base-runner:t-$rand
crs_at "$tmp/sigint" sigint
CRS_CI_BASE_IMAGES=pull "$CRS_CI" prepare --compose "$tmp/sigint/compose.yaml" \
	--work-dir "$tmp/work-sigint" --timeout 5m >/dev/null 2>"$tmp/sigint.log" &
scan_pid=$!
for _ in $(seq 200); do
	grep -q "pulling $image" "$tmp/sigint.log" && break
	sleep 0.1
done
grep -q "pulling $image" "$tmp/sigint.log" ||
	{ cat "$tmp/sigint.log" >&2; fail "the pull did not start"; }
sleep 1
sent=$(date +%s)
kill -INT "$scan_pid"
set +e
wait "$scan_pid"
code=$?
set -e
took=$(( $(date +%s) - sent ))
[ "$code" -eq 130 ] || { cat "$tmp/sigint.log" >&2; fail "Ctrl-C: exit $code, want 130"; }
# a bound, not a timing: the transport checks the flag about once a second
[ "$took" -le 10 ] || fail "Ctrl-C took $took s to stop the pull"
note "Ctrl-C during a pull from a registry that never answers: exit 130 after $took s"
