#!/usr/bin/env bash
# The fio table: the job files beside this script run, in one run, against three files that hold the same bytes:
#   ours     lun0.img of `bin/rdmablock mount`, our target (`bin/rdmablock target`: soft provider, 127.0.0.1, one file
#            LUN on the backing file, write-back cache) through the initiator and FUSE;
#   nbdfuse  nbdkit's file plugin on the same backing file, mounted through FUSE by nbdfuse (libnbd): a network block
#            device over FUSE, the peer;
#   local    a copy of the backing file on the same file system, read and written with O_DIRECT: the local limit. A
#            copy, because direct I/O on the servers' own file would empty its page cache (see below).
# Every side runs the same job file with the same options (libaio, direct=1); rows are interleaved, the order of the
# sides rotating every round, so that all see the same machine load. Prints one markdown table (medians over rounds;
# each ratio is the median of the per-round ratios, its range in brackets) and writes it, the medians as CSV and the
# chart (JFreeChart, org.rdmablock.tools.fio.FioChart) under --out.
#
#   tools/fio/compare.sh [--runtime 10] [--ramp 1] [--rounds 3] [--size 1G] [--verify-size 256M] [--out DIR]
#                        [--rows "randread-4k-qd1 ..."] [--pipeline "TOML"] [--mount "ARGS"] [--warmup 20]
#
# --warmup SECONDS (default 20, 0 for none): before the first round, untimed I/O on our volume (a quarter of the time
# each: 1 MiB reads, 1 MiB writes, 4 KiB random reads, 4 KiB random writes, iodepth 16), so that the table shows our
# two JVMs (target, mount) with their hot paths compiled, as a running daemon has them, rather than the JIT at work
# in the first rows. The other sides are native code with nothing to compile.
#
# --pipeline is our target's [pipeline] section (default "backend_threads = 0": the LUN's file is in the page cache,
# as nbdkit's is (the script reads it once after writing it), so the poller thread runs each command itself rather
# than hand it to a backend thread). --mount adds options to `bin/rdmablock mount` (e.g. --mount "--channel-wait
# caller").
#
# Installs fio, nbdkit, libnbd-bin (nbdfuse), fuse3 and python3 with apt-get when missing (sudo unless root).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/bench/common.sh"
here="$root/tools/fio"
runtime=10
ramp=1
warmup=20
rounds=3
size=1G
verify_size=256M
out="$here/results"
rows="randread-4k-qd1 randread-4k-qd16 randread-4k-qd16-4jobs randwrite-4k-qd1 randwrite-4k-qd16 randwrite-4k-qd16-4jobs
read-1m-qd16 read-1m-qd16-4jobs write-1m-qd16 write-1m-qd16-4jobs verify-randwrite-4k-qd16 verify-write-1m-qd16"
pipeline="backend_threads = 0"
mount=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime|--ramp|--rounds|--size|--verify-size|--out|--rows|--pipeline|--mount|--warmup)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      name="${1#--}"
      declare "${name//-/_}=$2"
      shift 2 ;;
    -h|--help) header_help "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
ensure_packages fio:fio nbdkit:nbdkit nbdfuse:libnbd-bin fusermount3:fuse3 python3:python3
bytes="$(python3 -c "import sys; n, u = sys.argv[1][:-1], sys.argv[1][-1].upper(); print(int(n) << {'K': 10, 'M': 20, 'G': 30}[u])" "$size")"
quarter=$((bytes / 4))

work="$(mktemp -d)"
target_pid=""
mount_pid=""
nbdkit_pid=""
nbdfuse_pid=""
cleanup() {
  # the mounts first (a program may still hold a file there), then the servers
  stop_all $mount_pid
  if [ -n "$nbdfuse_pid" ]; then
    fusermount3 -u "$work/nbdfuse" 2>/dev/null || fusermount3 -u -z "$work/nbdfuse" 2>/dev/null || true
    wait "$nbdfuse_pid" 2>/dev/null || true
  fi
  stop_all $target_pid $nbdkit_pid
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build once, outside every measurement (bin/rdmablock mount builds what is stale)
"$root/bin/rdmablock" mount --help >/dev/null
"$root/bin/rdmablock" target --help >/dev/null

backing="$work/backing.img"
echo "writing the $size backing file once (fio's random data, 1 MiB writes)" >&2
fio --name=fill --filename="$backing" --size="$bytes" --rw=write --bs=1m --ioengine=libaio --iodepth=4 --direct=1 \
  --output="$work/fill.txt" >/dev/null
# ... and read once through the page cache: the fill above bypassed it (direct), and our target and nbdkit both read
# the file through it. Left cold, whichever side ran first took the cache misses (4 KiB random reads at iodepth 16 on
# our volume, two runs each: 8 400 / 8 600 IOPS cold, 15 400 / 15 300 cached). Memory is compared in KiB, as
# /proc/meminfo gives it: awk prints a product of this size as 2.5e+10, which [ cannot compare.
if [ "$(awk '/MemAvailable/ {print $2}' /proc/meminfo)" -le $((bytes * 2 / 1024)) ]; then
  echo "warning: less than twice the $size backing file in available memory: its pages may not stay cached" >&2
fi
cat "$backing" > /dev/null
# The local side runs on a copy: on Linux 6.18 direct I/O to a file drops that file's cached pages (measured here: a
# 2 s direct 4 KiB random read on the 1 GiB backing file took fincore's count from 1 GiB to 0, a direct random write
# the same), so the local side's rows left both servers a cold file for the rows after them: our target's 4 KiB
# random reads at iodepth 16 then went to the disk one at a time on its poller (9 700 IOPS, 41 000 cached) and nbdkit's
# in its thread pool. The copy is written with O_DIRECT so that no dirty page of it is left to write back meanwhile.
local_copy="$work/local.img"
dd if="$backing" of="$local_copy" bs=1M oflag=direct status=none

# as nbdkit's file plugin, writes go to the page cache and are durable at a flush (SYNCHRONIZE CACHE / NBD_CMD_FLUSH)
start_target "$root" "$work" "[[lun]]
number = 0
backend = \"file\"
path = \"$backing\"
size = $bytes
write_cache = \"write-back\"

[pipeline]
$pipeline"
"$root/bin/rdmablock" mount --target "127.0.0.1:$port" $mount "$work/ours" > "$work/mount.log" 2>&1 &
mount_pid=$!
await_ready "$mount_pid" "rdmablock mount" 90 "$work/mount.log" grep -q " mounted at " "$work/mount.log"

nport="$(free_port)"
nbdkit -f -i 127.0.0.1 -p "$nport" file "$backing" > "$work/nbdkit.log" 2>&1 &
nbdkit_pid=$!
await_ready "$nbdkit_pid" nbdkit 10 "$work/nbdkit.log" listening 127.0.0.1 "$nport"
mkdir -p "$work/nbdfuse"
nbdfuse "$work/nbdfuse/lun.img" "nbd://127.0.0.1:$nport" > "$work/nbdfuse.log" 2>&1 &
nbdfuse_pid=$!
await_ready "$nbdfuse_pid" nbdfuse 30 "$work/nbdfuse.log" test -s "$work/nbdfuse/lun.img"

declare -A files=([ours]="$work/ours/lun0.img" [nbdfuse]="$work/nbdfuse/lun.img" [local]="$local_copy")
sides=(ours nbdfuse local)
if [ "$warmup" -gt 0 ]; then
  echo "warming up our target and mount: ${warmup} s of untimed I/O" >&2
  for shape in read:1m write:1m randread:4k randwrite:4k; do
    fio --name="warmup-${shape%%:*}" --filename="${files[ours]}" --size="$bytes" --rw="${shape%%:*}" --bs="${shape#*:}" \
      --ioengine=libaio --direct=1 --iodepth=16 --fallocate=none --time_based --runtime="$(( (warmup + 3) / 4 ))" \
      --output="$work/warmup.txt" > /dev/null 2>&1 || { cat "$work/warmup.txt" >&2; echo "warm-up ($shape) failed" >&2; exit 1; }
  done
  sleep 5 # as after each of our runs: quiet before the first pause (see below)
fi
echo "load before: $(uptime)" >&2
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  for row in $rows; do
    for i in 0 1 2; do
      who="${sides[$(( (i + round - 1) % 3 ))]}"
      json="$work/r$round-$row-$who.json"
      # our target busy-polls its completion queue even when idle: it and our mount are paused (SIGSTOP) while the
      # other sides run, so that they do not pay for it
      if [ "$who" != ours ]; then kill -STOP "$target_pid" "$mount_pid"; fi
      (cd "$work" && FIO_FILE="${files[$who]}" FIO_SIZE="$bytes" FIO_QUARTER="$quarter" FIO_RUNTIME="$runtime" \
        FIO_RAMP="$ramp" FIO_VERIFY_SIZE="$verify_size" fio --output-format=json --output="$json" "$here/$row.fio" \
        > "$work/fio.out" 2>&1) || { cat "$work/fio.out" >&2; tail -20 "$work/mount.log" "$work/target.log" >&2; echo "fio $row on $who failed" >&2; exit 1; }
      if [ "$who" != ours ]; then
        kill -CONT "$target_pid" "$mount_pid"
      else
        # a pause soon after I/O would look like a silent peer to the soft provider's transport timeout (about
        # 8.6 s, the paused time counts) and the mount would reconnect; 5 s of quiet first lets the initiator's last
        # unsignaled SENDs be confirmed (at half the timeout), so that nothing waits on the peer during the pause
        sleep 5
      fi
      printf '%s\t%s\t%s\t%s\n' "$row" "$round" "$who" "$json" >> "$work/results.tsv"
      echo "round $round: $row: $who done" >&2
    done
  done
done
echo "load after: $(uptime)" >&2
# a login more than the mount's first: a channel lost its connection (a transport timeout, say) and logged in again
echo "our target saw $(grep -c ' logged in' "$work/target.log") login(s) from the mount (1: no reconnect)" >&2

mkdir -p "$out"
python3 - "$work/results.tsv" "$runtime" "$ramp" "$rounds" "$size" "$verify_size" "$out" "$warmup" <<'PY'
import csv, json, statistics, sys
from collections import OrderedDict

results, runtime, ramp, rounds, size, verify_size, out, warmup = sys.argv[1:9]
rounds = int(rounds)
SIDES = ("ours", "nbdfuse", "local")

def figures(path):
    """IOPS, MB/s (10^6 bytes/s), p50 and p99 latency (µs) of a group-reported fio run. Timed rows: the rates fio
    reports for each direction, added; verify rows (a write pass, then a read pass that checks): all bytes over both
    passes' time, the latency of the writes."""
    job = json.load(open(path))["jobs"][0]
    sides = [job[d] for d in ("read", "write") if job[d]["total_ios"] > 0]
    if "verify" in job["jobname"]:
        ms = sum(s["runtime"] for s in sides)
        iops = sum(s["total_ios"] for s in sides) / (ms / 1e3)
        mbs = sum(s["io_bytes"] for s in sides) / (ms / 1e3) / 1e6
        lat_side = job["write"]
    else:
        iops = sum(s["iops"] for s in sides)
        mbs = sum(s["bw_bytes"] for s in sides) / 1e6
        lat_side = max(sides, key=lambda s: s["total_ios"])
    pct = lat_side["lat_ns"]["percentile"]
    return iops, mbs, pct["50.000000"] / 1e3, pct["99.000000"] / 1e3

rows = OrderedDict()
for line in open(results):
    row, rnd, who, path = line.rstrip("\n").split("\t")
    rows.setdefault(row, {}).setdefault(rnd, {})[who] = figures(path)

med = statistics.median

def lat(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.0f} µs"

def ratio(by_round, other):
    r = [x["ours"][0] / x[other][0] for x in by_round.values() if x[other][0] > 0]
    return med(r), min(r), max(r)

def fmt_ratio(r):
    value, low, high = r
    return f"**{value:.2f}**" + (f" ({low:.2f} – {high:.2f})" if rounds > 1 else "")

title = f"medians of {rounds} rounds" if rounds > 1 else "one round"
warmed = f"after {warmup} s of warm-up, " if int(warmup) > 0 else ""
lines = [f"| row ({warmed}{runtime} s after a {ramp} s ramp; verify rows: {verify_size} written and checked; {title}) "
         "| ours IOPS | ours MB/s | ours p50 / p99 | nbdfuse IOPS | nbdfuse MB/s | nbdfuse p50 / p99 "
         "| local IOPS | local MB/s | local p50 / p99 | ours / nbdfuse | ours / local |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
table = []
for row, by_round in rows.items():
    m = {s: [med([r[s][k] for r in by_round.values()]) for k in range(4)] for s in SIDES}
    vs_peer, vs_local = ratio(by_round, "nbdfuse"), ratio(by_round, "local")
    cells = [row]
    for s in SIDES:
        cells += [f"{m[s][0]:,.0f}", f"{m[s][1]:.1f}", f"{lat(m[s][2])} / {lat(m[s][3])}"]
    cells += [fmt_ratio(vs_peer), fmt_ratio(vs_local)]
    lines.append("| " + " | ".join(cells) + " |")
    for s in SIDES:
        table.append([row, s] + [f"{v:.3f}" for v in m[s]] + [f"{vs_peer[0]:.2f}", f"{vs_local[0]:.2f}"])  # as in the table
text = "\n".join(lines)
print(text)
open(f"{out}/fio-table.md", "w").write(text + "\n")
with open(f"{out}/fio-table.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["row", "side", "iops", "mb_s", "p50_us", "p99_us", "ours_vs_nbdfuse", "ours_vs_local"])
    w.writerows(table)
PY
. "$root/bin/java-env.sh"
java -Djava.awt.headless=true -cp "$root/tools/build/rdmablock-tools.jar:$root/tools/build/lib/*" \
  org.rdmablock.tools.fio.FioChart "$out/fio-table.csv" "$out/fio-table.png" \
  "fio through FUSE: rdmablock mount, nbdkit + nbdfuse, the local file ($runtime s per row, medians of $rounds rounds)"
echo "wrote $out/fio-table.md, fio-table.csv and fio-table.png" >&2
