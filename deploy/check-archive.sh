#!/usr/bin/env bash
# Checks the distribution archive as an installation from it would use it (deploy/README.md, "Install from the
# archive"), as far as one machine allows without installing anything:
#   1. unpacks it in a temporary directory: launcher, jars, etc/rdmablock.toml, etc/logback.xml, the unit, README;
#   2. the launcher checks the sample config (--check): refused, naming lun[0].path and its line, as its LUN folder
#      (etc/data) does not exist there and the target makes no folder;
#   3. starts the daemon from it on a config of its own (--check first, which must list the LUN it would make): one
#      file LUN in the temporary directory (create = true), the given provider
#      and address on a free port, metrics on 127.0.0.1 at a free port, a summary line every second; waits for its
#      ready line, scrapes GET /metrics, waits for a summary line in the log, sends SIGTERM and wants exit status 0;
#      and asks it over its management socket (admin status, admin --json luns);
#   4. runs systemd-analyze verify on the unit, its ExecStart pointed at the unpacked launcher.
# Any failure fails the script (and prints the daemon's output).
#
#   deploy/check-archive.sh ARCHIVE [PROVIDER [ADDRESS]]     # default: soft 127.0.0.1
#   deploy/check-archive.sh deploy/build/rdmablock-0.1.0-SNAPSHOT.tar.gz native 192.0.2.15   # in the QEMU guest (rxe)
# mvn verify runs it on the archive it built (the deploy module); JAVA_HOME or /usr/lib/jvm must hold a JDK 25.
set -euo pipefail
archive="$(readlink -f "${1:?usage: check-archive.sh ARCHIVE [PROVIDER [ADDRESS]]}")"
provider="${2:-soft}"
address="${3:-127.0.0.1}"
START_SECONDS=90 # a JVM under QEMU emulation takes tens of seconds to start

work="$(mktemp -d "${TMPDIR:-/tmp}/rdmablock-archive.XXXXXX")"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check-archive: FAILED: $*" >&2
  for log in "$work/daemon.out" "$work/daemon.err"; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 40 "$log" >&2; }
  done
  exit 1
}
step() { echo "check-archive: $*"; }

# A TCP port no one listens on at $1 or on 127.0.0.1 (the soft provider listens on TCP; rdma_cm's port space is
# separate, where a free TCP port is as likely free as any).
free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/$1/$port") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# GET http://127.0.0.1:$1$2 with bash alone (HTTP/1.0: the server closes when done); prints the body
http_get() {
  local response
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  response="$(cat <&3)"
  exec 3<&-
  case "$response" in
    "HTTP/1."?" 200"*) printf '%s\n' "${response#*$'\r\n\r\n'}" ;;
    *) echo "$response" | head -n 1 >&2; return 1 ;;
  esac
}

step "unpacking $archive"
tar -xzf "$archive" -C "$work"
home="$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'rdmablock-*')"
[ -n "$home" ] && [ "$(echo "$home" | wc -l)" = 1 ] || fail "the archive holds no single rdmablock-VERSION/ directory"
for f in bin/rdmablock-target etc/rdmablock.toml etc/logback.xml rdmablock-target.service README.md \
    grafana/rdmablock-dashboard.json; do
  [ -f "$home/$f" ] || fail "the archive lacks $f"
done
[ -x "$home/bin/rdmablock-target" ] || fail "bin/rdmablock-target is not executable"
compgen -G "$home/lib/rdmablock-target-*.jar" > /dev/null || fail "lib/ holds no rdmablock-target jar"
for jar in logback-classic jul-to-slf4j slf4j-jdk-platform-logging prometheus-metrics-exporter-httpserver; do
  compgen -G "$home/lib/$jar-*.jar" > /dev/null || fail "lib/ lacks $jar"
done

# the sample's LUNs live under etc/data/, which does not exist here: refused, by line and key, as a typo would be
checked="$("$home/bin/rdmablock-target" --config "$home/etc/rdmablock.toml" --check 2>&1)" \
  && fail "the launcher accepted the sample config although its LUN folder does not exist: $checked"
grep -q "etc/rdmablock.toml:[0-9]*: key 'lun\[0\].path'" <<< "$checked" \
  || fail "the sample config was refused without naming lun[0].path and its line: $checked"
step "the sample config as shipped, refused: $(head -n 1 <<< "$checked")"

port="$(free_port "$address")" || fail "no free port on $address"
metrics_port="$(free_port 127.0.0.1)" || fail "no free port for the metrics"
cat > "$work/check.toml" <<TOML
[listen]
provider = "$provider"
address = "$address"
port = $port

[metrics]
address = "127.0.0.1:$metrics_port"
summary_interval = "1s"

[admin]
socket = "$work/admin.sock"

[[lun]]
number = 0
backend = "file"
path = "$work/lun0.img"
create = true
size = "64MiB"
TOML

checked="$("$home/bin/rdmablock-target" --config "$work/check.toml" --check 2>&1)" \
  || fail "the launcher refused its own config: $checked"
grep -q "LUN 0: file $work/lun0.img, 64 MiB.*(new: made empty at start" <<< "$checked" \
  || fail "--check does not say what it would serve: $checked"
step "--check: $(tr '\n' ' ' <<< "$checked")"

step "starting the daemon: $provider on $address:$port, metrics on 127.0.0.1:$metrics_port"
"$home/bin/rdmablock-target" --config "$work/check.toml" > "$work/daemon.out" 2> "$work/daemon.err" &
pid=$!
for _ in $(seq 1 $((START_SECONDS * 10))); do
  grep -q "^reach it" "$work/daemon.out" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited before it was ready"
  sleep 0.1
done
grep -q "^rdmablock target: $provider provider, listening on $address:$port" "$work/daemon.out" \
  || fail "no ready line within $START_SECONDS s"
grep -q "^metrics: http://127.0.0.1:$metrics_port/metrics" "$work/daemon.out" || fail "the banner names no metrics endpoint"
[ "$(stat -c %s "$work/lun0.img")" = $((64 << 20)) ] || fail "the LUN file was not made at 64 MiB"

metrics="$(http_get "$metrics_port" /metrics)" || fail "GET /metrics failed"
for sample in 'rdmablock_lun_read_commands_total{lun="0"} 0' 'rdmablock_lun_write_bytes_total{lun="0"} 0' \
    'rdmablock_target_sessions 0' 'rdmablock_target_logins_total{result="accepted"} 0'; do
  grep -qF "$sample" <<< "$metrics" || fail "the scrape lacks '$sample'"
done
step "scraped $(grep -c '^rdmablock_' <<< "$metrics") rdmablock samples"

status="$("$home/bin/rdmablock-target" admin --socket "$work/admin.sock" status 2>&1)" \
  || fail "admin status failed: $status"
grep -Eq '^luns +1$' <<< "$status" || fail "admin status does not count the one LUN: $status"
luns="$("$home/bin/rdmablock-target" admin --config "$work/check.toml" --json luns 2>&1)" || fail "admin luns failed: $luns"
grep -q '"number" : 0' <<< "$luns" || fail "admin --json luns does not list LUN 0: $luns"
step "admin over $work/admin.sock: status and luns answer"

for _ in $(seq 1 100); do
  grep -q "INFO  SummaryLine last " "$work/daemon.err" && break
  sleep 0.1
done
summary="$(grep -m 1 "INFO  SummaryLine last " "$work/daemon.err")" || fail "no summary line in the log within 10 s"
step "logged: ${summary#* SummaryLine }"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || fail "the daemon exited $status after SIGTERM, not 0"
grep -q "^rdmablock target: stopped" "$work/daemon.out" || fail "no 'stopped' line after SIGTERM"
step "SIGTERM: stopped, exit status 0"

command -v systemd-analyze > /dev/null || fail "systemd-analyze is not installed (Debian: systemd)"
mkdir "$work/unit"
sed "s|^ExecStart=/opt/rdmablock/bin/rdmablock-target|ExecStart=$home/bin/rdmablock-target|" \
  "$home/rdmablock-target.service" > "$work/unit/rdmablock-target.service"
grep -q "^ExecStart=$home/bin/rdmablock-target " "$work/unit/rdmablock-target.service" \
  || fail "the unit's ExecStart is not /opt/rdmablock/bin/rdmablock-target"
verify_status=0
verify="$(systemd-analyze verify "$work/unit/rdmablock-target.service" 2>&1)" || verify_status=$?
# its exit status, and any complaint about this unit (it also reports problems of units it loads beside)
if [ "$verify_status" != 0 ] || grep -q "rdmablock-target.service" <<< "$verify"; then
  echo "$verify" >&2
  fail "systemd-analyze verify found fault with the unit (exit status $verify_status)"
fi
step "systemd-analyze verify: the unit is clean"
step "OK"
