#!/usr/bin/env bash
# What the initiator's scheduling layer buys: the bench against an embedded memory target (soft provider, loopback),
# merging on and off for 4 KiB sequential reads and writes, read priority on and off for a 4 KiB random 50/50 mix.
# --queue-depth 4 below --iodepth 32 makes requests wait for a command slot, which is when both act.
# Rows interleaved, ROUNDS rounds (default 3); prints medians. Usage: tools/bench/scheduling.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  local name=$1; shift
  bin/rdmablock bench --embedded-target memory --embedded-size 256m --runtime 5s --ramp 1s --no-progress \
    --bs 4k --iodepth 32 --queue-depth 4 --json "$out/$name.json" "$@" > "$out/$name.txt" 2>&1 \
    || { echo "bench $name failed:"; cat "$out/$name.txt"; exit 1; }
}
for round in $(seq 1 "$rounds"); do
  run seqread-merge-$round --rw read --merge
  run seqread-nomerge-$round --rw read --no-merge
  run seqwrite-merge-$round --rw write --merge
  run seqwrite-nomerge-$round --rw write --no-merge
  run mix-priority-$round --rw randrw --rwmix-read 50 --no-merge --read-priority
  run mix-nopriority-$round --rw randrw --rwmix-read 50 --no-merge --no-read-priority
done
python3 - "$out" <<'PY'
import collections, glob, json, statistics, sys
rows = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    rows[f.rsplit('/', 1)[1][:-5].rsplit('-', 1)[0]].append(json.load(open(f)))
med = statistics.median
print('| run | IOPS | commands per request | read p50 / p99 (us) | write p99 (us) |')
print('|---|---:|---:|---:|---:|')
for name, ds in rows.items():
    lat = lambda d, k, p: d[k]['lat_ns'][p] / 1000 if d[k]['ios'] else 0
    print(f"| {name} | {med([d['iops'] for d in ds]):.0f} | {med([d['commands'] / max(1, d['requests']) for d in ds]):.3f}"
          f" | {med([lat(d, 'read', 'p50') for d in ds]):.0f} / {med([lat(d, 'read', 'p99') for d in ds]):.0f}"
          f" | {med([lat(d, 'write', 'p99') for d in ds]):.0f} |")
PY
