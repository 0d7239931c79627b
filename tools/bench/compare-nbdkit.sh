#!/usr/bin/env bash
# Our target and bench against nbdkit and fio, on this machine, in one run: our SRP target (soft provider, one memory
# LUN) driven by `bin/rdmablock bench`, and nbdkit's memory plugin driven by fio's nbd engine, with the same block
# size, queue depth, pattern, ramp and runtime. Rows are interleaved (ours, then nbdkit's, row after row; the order
# flips every round) so that both see the same machine load; with several rounds the table shows medians.
#
#   tools/bench/compare-nbdkit.sh [--runtime SECONDS] [--ramp SECONDS] [--rounds N] [--size 1G] [--ours "ARGS"]
#                                 [--pipeline "TOML"] [--rows REGEX] [--nvme]
#
# --nvme: our side over NVMe over Fabrics (the target serves a subsystem beside SRP; bench --nvme) instead of SRP.
# --ours adds bench options to our side's every run (e.g. --ours "--channel-wait events"); --pipeline is the
# target's [pipeline] section (default "backend_threads = 0": a memory LUN never blocks, so the poller thread runs
# each command itself; e.g. --pipeline $'backend_threads = 4\ncompletions = "event"'); --rows keeps the rows whose
# name matches the (grep -E) pattern, e.g. --rows 'QD1$'.
# Installs fio and nbdkit with apt-get when they are missing (sudo when not root). Prints one markdown table:
# IOPS, MB/s (10^6 bytes/s), p50 and p99 latency (submission to completion) of each, and ours/nbdkit (IOPS).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/bench/common.sh"
runtime=10
ramp=1
rounds=3
size=1G
ours_args=""
pipeline="backend_threads = 0"
row_filter=""
nvme=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime="$2"; shift 2 ;;
    --ramp) ramp="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --ours) ours_args="$2"; shift 2 ;;
    --pipeline) pipeline="$2"; shift 2 ;;
    --rows) row_filter="$2"; shift 2 ;;
    --nvme) nvme=1; shift ;;
    -h|--help) header_help "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

ensure_packages fio:fio nbdkit:nbdkit python3:python3
if ! fio --enghelp=nbd >/dev/null 2>&1; then
  echo "this fio has no nbd engine (built without libnbd)" >&2
  exit 1
fi

work="$(mktemp -d)"
target_pid=""
nbdkit_pid=""
cleanup() {
  stop_all $target_pid $nbdkit_pid
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build once, outside every measurement (bin/rdmablock bench builds what is stale)
"$root/bin/rdmablock" bench --help >/dev/null

nvme_prepare
start_target "$root" "$work" "$nvme_toml
[[lun]]
number = 0
backend = \"memory\"
size = \"${size}iB\"

[pipeline]
$pipeline"

nport="$(free_port)"
nbdkit -f -i 127.0.0.1 -p "$nport" memory "$size" > "$work/nbdkit.log" 2>&1 &
nbdkit_pid=$!
await_ready "$nbdkit_pid" nbdkit 10 "$work/nbdkit.log" listening 127.0.0.1 "$nport"
uri="nbd://127.0.0.1:$nport"

ours() { # rw bs iodepth json [extra bench options...]
  local rw="$1" bs="$2" depth="$3" json="$4"
  shift 4
  "$root/bin/rdmablock" bench $(our_target) --rw "$rw" --bs "$bs" --iodepth "$depth" --no-progress \
    --json "$json" $ours_args "$@" > "$work/ours.out" 2>&1 || { cat "$work/ours.out" >&2; return 1; }
}
theirs() { # rw bs iodepth json [extra fio options...]
  local rw="$1" bs="$2" depth="$3" json="$4"
  shift 4
  fio --name=row --ioengine=nbd --uri="$uri" --rw="$rw" --bs="$bs" --iodepth="$depth" --numjobs=1 \
    --lat_percentiles=1 --output-format=json --output="$json" "$@" > "$work/fio.out" 2>&1 \
    || { cat "$work/fio.out" >&2; return 1; }
}

echo "load before: $(uptime)" >&2
# both LUNs written once (1 MiB sequential), so that the reads read data on both sides (nbdkit's memory plugin
# answers never-written blocks without touching memory)
ours write 1m 4 "$work/fill-ours.json" --size "$(echo "$size" | tr 'A-Z' 'a-z')"
theirs write 1m 4 "$work/fill-nbdkit.json" --size="$size"

rows=(
  "4k randread QD1|randread|4k|1"
  "4k randread QD16|randread|4k|16"
  "4k randread QD64|randread|4k|64"
  "4k randwrite QD1|randwrite|4k|1"
  "4k randwrite QD16|randwrite|4k|16"
  "4k randwrite QD64|randwrite|4k|64"
  "1m read QD4|read|1m|4"
  "1m write QD4|write|1m|4"
)
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  for row in "${rows[@]}"; do
    IFS='|' read -r name rw bs depth <<< "$row"
    if [ -n "$row_filter" ] && ! grep -qE -- "$row_filter" <<< "$name"; then
      continue
    fi
    order=(ours nbdkit)
    if [ $((round % 2)) = 0 ]; then order=(nbdkit ours); fi
    for who in "${order[@]}"; do
      json="$work/r$round-$rw-$bs-$depth-$who.json"
      if [ "$who" = ours ]; then
        ours "$rw" "$bs" "$depth" "$json" --runtime "${runtime}s" --ramp "${ramp}s"
      else
        theirs "$rw" "$bs" "$depth" "$json" --time_based --runtime="$runtime" --ramp_time="$ramp"
      fi
      printf '%s\t%s\t%s\t%s\n' "$name" "$round" "$who" "$json" >> "$work/results.tsv"
      echo "round $round: $name: $who done" >&2
    done
  done
done
echo "load after: $(uptime)" >&2
if [ ! -s "$work/results.tsv" ]; then
  echo "no row matches --rows '$row_filter'" >&2
  exit 2
fi

python3 "$root/tools/bench/ratio_table.py" "$work/results.tsv" "$runtime" "$ramp" "$rounds" ours:ours:bench \
  nbdkit:nbdkit:fio
