#!/usr/bin/env bash
# The initiator library over both protocols against one daemon, on this machine, in one run: our target (soft
# provider, one memory LUN, SRP and an [nvme] subsystem on one pipeline) driven by `bin/rdmablock bench` over SRP and
# over NVMe over Fabrics (--nvme), the same rows, block sizes, depths, ramp and runtime. Rows are interleaved (SRP then
# NVMe, row after row; the order flips every round) so that both see the same machine load; with several rounds the
# table shows medians.
#
#   tools/bench/srp-vs-nvme.sh [--runtime SECONDS] [--ramp SECONDS] [--rounds N] [--size 1G] [--bench "ARGS"]
#
# --bench adds bench options to every run (e.g. --bench "--channel-wait caller"). Prints one markdown table
# (tools/bench/ratio_table.py): IOPS, MB/s (10^6 bytes/s), p50 and p99 latency (submission to completion) of each, and
# NVMe / SRP (IOPS).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/bench/common.sh"
runtime=5
ramp=1
rounds=3
size=1G
bench_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime="$2"; shift 2 ;;
    --ramp) ramp="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --bench) bench_args="$2"; shift 2 ;;
    -h|--help) header_help "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

ensure_packages python3:python3
work="$(mktemp -d)"
target_pid=""
cleanup() {
  stop_all $target_pid
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$root/bin/rdmablock" bench --help >/dev/null # build once, outside every measurement
nqn="nqn.2026-12.org.rdmablock:srp-vs-nvme"
nport="$(free_port)"
start_target "$root" "$work" "[nvme]
subsystem = \"$nqn\"
port = $nport

[pipeline]
backend_threads = 0

[[lun]]
number = 0
backend = \"memory\"
size = \"${size}iB\""

run() { # protocol rw bs iodepth json [extra bench options...]
  local protocol="$1" rw="$2" bs="$3" depth="$4" json="$5"
  shift 5
  local where=(--target "127.0.0.1:$port")
  if [ "$protocol" = nvme ]; then where=(--target "127.0.0.1:$nport" --nvme "$nqn"); fi
  "$root/bin/rdmablock" bench "${where[@]}" --rw "$rw" --bs "$bs" --iodepth "$depth" --no-progress --json "$json" \
    $bench_args "$@" > "$work/bench.out" 2>&1 || { cat "$work/bench.out" >&2; return 1; }
}

echo "load before: $(uptime)" >&2
run srp write 1m 4 "$work/fill.json" --size "$(echo "$size" | tr 'A-Z' 'a-z')" # the reads read data
rows=(
  "4k randread QD1|randread|4k|1"
  "4k randread QD16|randread|4k|16"
  "4k randwrite QD16|randwrite|4k|16"
  "1m read QD4|read|1m|4"
  "1m write QD4|write|1m|4"
)
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  for row in "${rows[@]}"; do
    IFS='|' read -r name rw bs depth <<< "$row"
    order=(srp nvme)
    if [ $((round % 2)) = 0 ]; then order=(nvme srp); fi
    for who in "${order[@]}"; do
      json="$work/r$round-$rw-$bs-$depth-$who.json"
      run "$who" "$rw" "$bs" "$depth" "$json" --runtime "${runtime}s" --ramp "${ramp}s"
      printf '%s\t%s\t%s\t%s\n' "$name" "$round" "$who" "$json" >> "$work/results.tsv"
      echo "round $round: $name: $who done" >&2
    done
  done
done
echo "load after: $(uptime)" >&2

python3 "$root/tools/bench/ratio_table.py" "$work/results.tsv" "$runtime" "$ramp" "$rounds" nvme:NVMe:bench srp:SRP:bench
