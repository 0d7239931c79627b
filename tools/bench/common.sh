# Sourced by the comparison scripts (tools/bench/compare-nbdkit.sh, tools/fio/compare.sh): installing what they run,
# a free port, and waiting for a server to come up. Each wait is bounded.

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
