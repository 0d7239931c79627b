# Sourced by the comparison scripts (tools/bench/compare-nbdkit.sh, tools/bench/pipelines.sh, tools/fio/compare.sh):
# their --help, installing what they run, a free port, and waiting for a server to come up. Each wait is bounded.
# Defines functions only, so a script sources it before reading its options.

# header_help SCRIPT: prints the script's header comment (after the #! line, up to its first command) as its --help.
header_help() {
  awk 'NR > 1 && !/^#/ {exit} NR > 1' "$1"
}

# ensure_packages COMMAND:PACKAGE ...: installs with apt-get (sudo unless root) the packages whose command is missing.
ensure_packages() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}" >&2
    local sudo=()
    if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
  fi
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# await_true SECONDS TEST...: runs TEST (a command) every 0.1 s until it succeeds (0) or SECONDS pass (1).
await_true() {
  local seconds="$1" i
  shift
  for i in $(seq 1 $((seconds * 10))); do "$@" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# await_ready PID WHAT SECONDS LOG TEST...: runs TEST (a command) every 0.1 s until it succeeds; fails, with LOG shown,
# when PID ends first or SECONDS pass.
await_ready() {
  local pid="$1" what="$2" seconds="$3" log="$4"
  shift 4
  local i
  for i in $(seq 1 $((seconds * 10))); do
    if "$@" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "$what ended before it was ready" >&2; return 1; }
    sleep 0.1
  done
  cat "$log" >&2
  echo "$what was not ready within $seconds s" >&2
  return 1
}

# listening HOST PORT: whether a TCP connect succeeds.
listening() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# stop_all PID...: ends each process (SIGCONT first: a paused one cannot end) and waits for it; those gone are skipped.
stop_all() {
  local pid
  for pid in "$@"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  for pid in "$@"; do
    wait "$pid" 2>/dev/null || true
  done
}

# start_target ROOT WORK LUN_TOML: our target (bin/rdmablock target) on the soft provider, 127.0.0.1, a free port,
# serving the [[lun]] tables given; sets port and target_pid, logs to WORK/target.log, returns once it listens.
start_target() {
  local root="$1" work="$2" luns="$3"
  port="$(free_port)"
  printf '[listen]\nprovider = "soft"\naddress = "127.0.0.1"\nport = %s\n\n%s\n' "$port" "$luns" > "$work/target.toml"
  "$root/bin/rdmablock" target --config "$work/target.toml" > "$work/target.log" 2>&1 &
  target_pid=$!
  await_ready "$target_pid" "our target" 60 "$work/target.log" grep -q "listening on" "$work/target.log"
}

# --nvme in a comparison (nvme=1): our side goes over NVMe over Fabrics instead of SRP. nvme_prepare, before
# start_target: sets nvme_toml, the [nvme] section for the target's config (a subsystem on a free port; empty without
# --nvme). our_target, once the target runs: the options that point bench or mount at our side.
COMPARE_NQN=nqn.2026-12.org.rdmablock:compare
nvme_prepare() {
  nvme_toml=""
  if [ "${nvme:-0}" = 1 ]; then
    nvme_port="$(free_port)"
    nvme_toml="$(printf '[nvme]\nsubsystem = "%s"\nport = %s' "$COMPARE_NQN" "$nvme_port")"
  fi
}
our_target() {
  if [ "${nvme:-0}" = 1 ]; then
    echo "--target 127.0.0.1:$nvme_port --nvme $COMPARE_NQN"
  else
    echo "--target 127.0.0.1:$port"
  fi
}
