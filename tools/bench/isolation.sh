#!/usr/bin/env bash
# One sick channel against healthy ones, on this machine (root: a network namespace and routes): our target (soft
# provider, a memory LUN) listens on 198.18.0.1 (RFC 2544's benchmark range), on a veth pair whose far end lives in
# a namespace of its own with 198.18.0.2. A "sick" initiator in that namespace and a healthy one beside the target
# (its traffic stays on this host's loopback path) each run `bin/rdmablock bench` 4 KiB random reads at QD 16. In a
# "hole" run, some seconds in, a blackhole route on each side drops every packet between the two addresses, silently
# (no reset, no ICMP; what tc netem loss 100 % or an iptables DROP would do, without needing either): the sick
# initiator's connection goes silent with commands in flight, as behind a failed switch port. A "gone" run is the
# control: at that moment the sick initiator is stopped instead (SIGTERM: it logs out), so that both runs put the same
# load on the machine and differ only in a channel the target must find dead (a run with the sick one going on would
# measure the sharing of two cores instead). Rounds alternate the two; the healthy initiator's p99 in hole runs is
# compared with gone runs' (issue 41's goal: at most 2x), and each hole run reports when the target gave the sick channel up (its "lost" log
# line after the hole) and that no channel was left behind (the metrics' channel gauge back to 0 once both ended).
#
#   sudo tools/bench/isolation.sh [--runtime SECONDS] [--hole-after SECONDS] [--rounds N]
#
# Prints one markdown table and a summary line; the figures go to docs/benchmarks/reliability.md by hand.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/bench/common.sh"
runtime=20
hole_after=5
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime="$2"; shift 2 ;;
    --hole-after) hole_after="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) header_help "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "isolation.sh: needs root (a network namespace and routes)" >&2; exit 2; }
[ "$hole_after" -lt "$runtime" ] || { echo "isolation.sh: --hole-after must be less than --runtime" >&2; exit 2; }
ensure_packages python3:python3 ip:iproute2 curl:curl

ns="rdmablock-sick-$$"
near="rbsa$$"   # the target's end of the veth
far="rbsb$$"    # the sick initiator's end, in the namespace
target_ip=198.18.0.1
sick_ip=198.18.0.2
if ip -o addr show | grep -q " $target_ip/"; then
  echo "isolation.sh: $target_ip is already on an interface here; remove it first" >&2; exit 1
fi
work="$(mktemp -d)"
target_pid=""
sick_pid=""
cleanup() {
  stop_all $sick_pid $target_pid
  ip route del blackhole "$sick_ip/32" 2>/dev/null || true
  ip link del "$near" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$ns"
ip link add "$near" type veth peer name "$far"
ip link set "$far" netns "$ns"
ip addr add "$target_ip/30" dev "$near"
ip link set "$near" up
ip netns exec "$ns" ip addr add "$sick_ip/30" dev "$far"
ip netns exec "$ns" ip link set "$far" up
ip netns exec "$ns" ip link set lo up

"$root/bin/rdmablock" bench --help >/dev/null # build once, outside every measurement
port="$(free_port)"
metrics_port="$(free_port)"
cat > "$work/target.toml" <<TOML
[listen]
provider = "soft"
address = "$target_ip"
port = $port

[metrics]
address = "127.0.0.1:$metrics_port"

[[lun]]
number = 0
backend = "memory"
size = "1GiB"
TOML
"$root/bin/rdmablock" target --config "$work/target.toml" > "$work/target.log" 2>&1 &
target_pid=$!
await_ready "$target_pid" "our target" 60 "$work/target.log" grep -q "listening on" "$work/target.log"

channels() { curl -s "http://127.0.0.1:$metrics_port/metrics" | awk '/^rdmablock_target_channels /{printf "%d", $2}'; }
# lines of the target's log about the sick initiator's channels that say it was lost
sick_lost() { grep "/$sick_ip:" "$work/target.log" | grep -c " lost: " || true; }
# lines of the target's log that say the sick initiator's channel logged in
sick_logins() { grep "/$sick_ip:" "$work/target.log" | grep -c "logged in" || true; }
sick_in() { [ "$(sick_logins)" -gt "$1" ]; }
lost_past() { [ "$(sick_lost)" -gt "$1" ]; }
no_channels() { [ "$(channels)" = 0 ]; }

echo "load before: $(uptime)" >&2
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  order=(gone hole)
  if [ $((round % 2)) = 0 ]; then order=(hole gone); fi
  for mode in "${order[@]}"; do
    logins_before="$(sick_logins)"
    lost_before="$(sick_lost)"
    ip netns exec "$ns" "$root/bin/rdmablock" bench --target "$target_ip:$port" --rw randread --bs 4k --iodepth 16 \
      --runtime "$((runtime + 60))s" --no-progress > "$work/sick-$round-$mode.out" 2>&1 &
    sick_pid=$!
    await_true 60 sick_in "$logins_before" || { cat "$work/sick-$round-$mode.out" >&2; echo "the sick initiator did not log in" >&2; exit 1; }
    json="$work/healthy-$round-$mode.json"
    "$root/bin/rdmablock" bench --target "$target_ip:$port" --rw randread --bs 4k --iodepth 16 --runtime "${runtime}s" \
      --ramp 1s --no-progress --json "$json" > "$work/healthy-$round-$mode.out" 2>&1 &
    healthy_pid=$!
    detect=""
    sleep $((hole_after + 1)) # the bench's ramp, then some seconds of measurement before the hole or the stop
    if [ "$mode" = gone ]; then
      stop_all "$sick_pid"
    else
      hole_at="$(date +%s.%N)"
      ip route add blackhole "$sick_ip/32"
      ip netns exec "$ns" ip route add blackhole "$target_ip/32"
      if await_true 60 lost_past "$lost_before"; then
        detect="$(python3 -c "import time; print(f'{time.time() - $hole_at:.1f}')")"
      else
        detect="not within 60 s"
      fi
    fi
    wait "$healthy_pid" || { cat "$work/healthy-$round-$mode.out" >&2; echo "the healthy initiator failed" >&2; exit 1; }
    if [ "$mode" = hole ]; then
      ip route del blackhole "$sick_ip/32"
      ip netns exec "$ns" ip route del blackhole "$target_ip/32"
    fi
    stop_all "$sick_pid"
    sick_pid=""
    await_true 60 no_channels || { echo "channels left after round $round ($mode): $(channels)" >&2; exit 1; }
    printf '%s\t%s\t%s\t%s\n' "$round" "$mode" "$json" "$detect" >> "$work/results.tsv"
    echo "round $round: $mode done${detect:+ (sick channel given up $detect s after the hole)}" >&2
  done
done
echo "load after: $(uptime)" >&2
grep "/$sick_ip:" "$work/target.log" | grep " lost: " | sed 's/^/  target: /' >&2

python3 - "$work/results.tsv" <<'PY'
import json, statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print("| round | run | healthy IOPS | p50 us | p99 us | sick channel given up after the hole |")
print("|---:|---|---:|---:|---:|---:|")
p99 = {"gone": [], "hole": []}
detects = []
for rnd, mode, path, detect in rows:
    figures = json.load(open(path))
    lat = figures["lat_ns"]
    p99[mode].append(lat["p99"] / 1000)
    if detect:
        detects.append(detect)
    print(f"| {rnd} | {mode} | {figures['iops']:.0f} | {lat['p50'] / 1000:.0f} | {lat['p99'] / 1000:.0f} | "
          f"{detect + ' s' if detect else '-'} |")
ratio = statistics.median(p99["hole"]) / statistics.median(p99["gone"])
print(f"\nhealthy p99, median of hole runs / median of gone runs: {ratio:.2f} (goal: at most 2: "
      f"{'met' if ratio <= 2 else 'NOT met'}); the sick channel given up {', '.join(d + ' s' for d in detects)} "
      f"after the hole; no channel left behind after any run")
PY
