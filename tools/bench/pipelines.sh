#!/usr/bin/env bash
# Our target under several [pipeline] settings, on this machine, in one run: for each setting a fresh target (soft
# provider, one LUN of the given backend, 1 GiB, written once with 1 MiB writes) driven by `bin/rdmablock bench` with
# the library's defaults. Settings are interleaved within each round (the first setting, the second, ..., then again)
# so that every one sees the same machine load; the table shows the median IOPS of each setting per row and its ratio
# to the first setting's.
#
#   tools/bench/pipelines.sh [--backend memory|file] [--cold] [--runtime SECONDS] [--ramp SECONDS] [--rounds N]
#                            [--rows "randread:4k:1 ..."] [SETTING ...]
#
# A SETTING is LABEL=TOML, the [pipeline] keys with "\n" between them, e.g.
#   tools/bench/pipelines.sh --backend file 'inline=backend_threads = 0' 'four=backend_threads = 4'
# Default settings: backend_threads 0 and 4, each with completions "poll" and "event". A row is RW:BS:IODEPTH
# (default: 4 KiB random reads at 1 and 16, 4 KiB random writes at 16, 1 MiB sequential reads at 4). A file LUN is a
# sparse file in a temporary directory with the default write cache (write-through: each write is made durable).
# --cold (file LUNs): before each row the file's pages are dropped from the page cache (fsync, then
# posix_fadvise(DONTNEED)), so that its reads go to the disk, as a LUN larger than the machine's memory would.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/bench/common.sh"
backend=memory
runtime=4
ramp=3
rounds=2
rows="randread:4k:1 randread:4k:16 randwrite:4k:16 read:1m:4"
cold=0
settings=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cold) cold=1; shift ;;
    --backend|--runtime|--ramp|--rounds|--rows)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      printf -v "${1#--}" '%s' "$2"; shift 2 ;;
    -h|--help) header_help "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *=*) settings+=("$1"); shift ;;
    *) echo "a setting is LABEL=TOML, not '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$backend" in memory|file) ;; *) echo "--backend is memory or file, not '$backend'" >&2; exit 2 ;; esac
[ "$cold" = 0 ] || [ "$backend" = file ] || { echo "--cold is for --backend file" >&2; exit 2; }
for n in runtime ramp rounds; do
  [[ "${!n}" =~ ^[0-9]+$ ]] && [ "${!n}" -gt 0 ] || { echo "--$n is a whole number above 0, not '${!n}'" >&2; exit 2; }
done
for row in $rows; do
  [[ "$row" =~ ^(randread|randwrite|read|write|randrw|rw):[0-9]+[kKmM]?:[0-9]+$ ]] \
    || { echo "a row is RW:BS:IODEPTH (e.g. randread:4k:16), not '$row'" >&2; exit 2; }
done
[ -n "${rows// /}" ] || { echo "--rows names no row" >&2; exit 2; }
if [ ${#settings[@]} -eq 0 ]; then
  settings=('0 poll=backend_threads = 0\ncompletions = "poll"' '0 event=backend_threads = 0\ncompletions = "event"'
            '4 poll=backend_threads = 4\ncompletions = "poll"' '4 event=backend_threads = 4\ncompletions = "event"')
fi
shared_label="$(printf '%s\n' "${settings[@]%%=*}" | sort | uniq -d | head -1)"
if [ -n "$shared_label" ]; then
  echo "two settings share a label: $shared_label" >&2
  exit 2
fi

ensure_packages python3:python3

work="$(mktemp -d)"
target_pid=""
cleanup() {
  stop_all $target_pid
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build once, outside every measurement (bin/rdmablock bench builds what is stale)
"$root/bin/rdmablock" bench --help >/dev/null

if [ "$backend" = file ]; then
  lun=$(printf '[[lun]]\nnumber = 0\nbackend = "file"\npath = "%s/lun0.img"\ncreate = true\nsize = "1GiB"\n' "$work")
else
  lun=$(printf '[[lun]]\nnumber = 0\nbackend = "memory"\nsize = "1GiB"\n')
fi

echo "load before: $(uptime)" >&2
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  for i in "${!settings[@]}"; do
    setting="${settings[$i]}"
    label="${setting%%=*}"
    rm -f "$work/lun0.img"
    start_target "$root" "$work" "$lun
[pipeline]
$(printf '%b' "${setting#*=}")"
    "$root/bin/rdmablock" bench --target "127.0.0.1:$port" --rw write --bs 1m --iodepth 4 --size 1g --no-progress \
      > "$work/fill.out" 2>&1 || { cat "$work/fill.out" >&2; exit 1; }
    for row in $rows; do
      IFS=: read -r rw bs depth <<< "$row"
      json="$work/r$round-s$i-$rw-$bs-$depth.json"
      if [ "$cold" = 1 ]; then
        python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$work/lun0.img"
      fi
      "$root/bin/rdmablock" bench --target "127.0.0.1:$port" --rw "$rw" --bs "$bs" --iodepth "$depth" \
        --runtime "${runtime}s" --ramp "${ramp}s" --no-progress --json "$json" > "$work/row.out" 2>&1 \
        || { cat "$work/row.out" >&2; exit 1; }
      printf '%s\t%s\t%s\t%s\n' "$row" "$round" "$label" "$json" >> "$work/results.tsv"
    done
    stop_all $target_pid
    target_pid=""
    echo "round $round: $label done ($(grep -o 'pipeline: .*' "$work/target.log" | head -1))" >&2
  done
done
echo "load after: $(uptime)" >&2

python3 - "$work/results.tsv" "$backend" "$runtime" "$ramp" "$rounds" "$cold" <<'PY'
import json, statistics, sys
from collections import OrderedDict

results, backend, runtime, ramp, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
cold = sys.argv[6] == "1"
iops = OrderedDict()   # row -> label -> [IOPS per round]
labels = []
for line in open(results):
    row, _, label, path = line.rstrip("\n").split("\t")
    iops.setdefault(row, OrderedDict()).setdefault(label, []).append(json.load(open(path))["iops"])
    if label not in labels:
        labels.append(label)

title = f"median IOPS of {rounds} rounds" if rounds > 1 else "IOPS, one round"
lun = f"{backend} LUN" + (", its pages dropped from the page cache before each row" if cold else "")
print(f"| row ({lun}; {runtime} s after a {ramp} s ramp; {title}; in brackets: / {labels[0]}) | "
      + " | ".join(labels) + " |")
print("|---|" + "---:|" * len(labels))
for row, by_label in iops.items():
    base = statistics.median(by_label[labels[0]])
    cells = []
    for label in labels:
        m = statistics.median(by_label[label])
        cells.append(f"{m:,.0f}" + ("" if label == labels[0] else f" ({m / base:.2f})"))
    print(f"| {row} | " + " | ".join(cells) + " |")
PY
