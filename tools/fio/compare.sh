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
#                        [--rows "randread-4k-qd1 ..."] [--pipeline "TOML"] [--mount "ARGS"] [--warmup 20] [--threads]
#                        [--nvme]
#
# --nvme: our volume over NVMe over Fabrics (the target serves a subsystem beside SRP; the mount's lun1.img, namespace
# 1) instead of SRP.
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
# --threads: where each side's CPU goes. During every timed run (from 0.5 s after the ramp to 0.5 s before the end)
# the scheduler's own accounting of each thread of the side's processes and of fio (/proc/PID/task/TID/schedstat: time
# on a CPU, time runnable but waiting for one, times scheduled) is sampled, and the machine's busy time
# (/proc/stat); prints a second table, per row and side, of the thread groups (digits dropped from thread names) in %
# of one core over all the rounds' intervals together, and writes it as threads.md under --out. Reading the files takes a few ms per
# sample; nothing else is added to the runs. Verify rows are not sampled (not timed: no window known in advance).
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
threads=0
nvme=0
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=1; shift ;;
    --nvme) nvme=1; shift ;;
    --runtime|--ramp|--rounds|--size|--verify-size|--out|--rows|--pipeline|--mount|--warmup)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      name="${1#--}"
      declare "${name//-/_}=$2"
      shift 2 ;;
    -h|--help) header_help "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$threads" = 1 ] && [ "$runtime" -lt 2 ]; then echo "--threads needs --runtime 2 or more" >&2; exit 2; fi
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
nvme_prepare
start_target "$root" "$work" "$nvme_toml
[[lun]]
number = 0
backend = \"file\"
path = \"$backing\"
size = $bytes
write_cache = \"write-back\"

[pipeline]
$pipeline"
"$root/bin/rdmablock" mount $(our_target) $mount "$work/ours" > "$work/mount.log" 2>&1 &
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

ours_file=lun0.img                          # LUN 0 over SRP; namespace 1 (the same LUN) over NVMe
if [ "$nvme" = 1 ]; then ours_file=lun1.img; fi
declare -A files=([ours]="$work/ours/$ours_file" [nbdfuse]="$work/nbdfuse/lun.img" [local]="$local_copy")
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
# thread_times FILE LABEL:PID...: one line per thread of each process and of every fio process (label, pid, tid, name,
# ns on a CPU, ns waiting for one, times scheduled), then the machine's busy and total jiffies and the time now
thread_times() {
  local file="$1" entry pid task; shift
  [ -d "${file%/*}" ] || return 0 # the run ended (a failed fio) and its work directory is gone
  {
    for entry in "$@" $(pgrep -x fio | sed 's/^/fio:/'); do
      pid="${entry#*:}"
      for task in /proc/"$pid"/task/*; do
        [ -r "$task/schedstat" ] || continue
        printf '%s\t%s\t%s\t%s\t%s\n' "${entry%%:*}" "$pid" "${task##*/}" "$(tr '\t' ' ' < "$task/comm" 2>/dev/null)" \
          "$(tr ' ' '\t' < "$task/schedstat" 2>/dev/null)"
      done
    done
    awk '/^cpu / {busy = $2 + $3 + $4 + $7 + $8 + $9; print "#machine\t" busy "\t" busy + $5 + $6}' /proc/stat
    printf '#time\t%s\n' "$(date +%s.%N)"
  } > "$file" 2>/dev/null || true
}
if [ "$threads" = 1 ]; then
  mkdir -p "$work/threads"
  declare -A processes=([ours]="target:$target_pid mount:$mount_pid" [nbdfuse]="nbdkit:$nbdkit_pid nbdfuse:$nbdfuse_pid" [local]="")
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
      sampler=""
      # verify rows are not timed (a write pass, then a checking read pass, of --verify-size bytes): no window to sample
      if [ "$threads" = 1 ] && [[ "$row" != verify-* ]]; then
        sample="$work/threads/$row.$round.$who"
        # shellcheck disable=SC2086 # the label:pid list splits on purpose
        ( sleep "$ramp"; sleep 0.5; thread_times "$sample.start" ${processes[$who]}
          sleep "$((runtime - 1))"; thread_times "$sample.end" ${processes[$who]} ) &
        sampler=$!
      fi
      (cd "$work" && FIO_FILE="${files[$who]}" FIO_SIZE="$bytes" FIO_QUARTER="$quarter" FIO_RUNTIME="$runtime" \
        FIO_RAMP="$ramp" FIO_VERIFY_SIZE="$verify_size" fio --output-format=json --output="$json" "$here/$row.fio" \
        > "$work/fio.out" 2>&1) || { cat "$work/fio.out" >&2; tail -20 "$work/mount.log" "$work/target.log" >&2; echo "fio $row on $who failed" >&2; exit 1; }
      if [ -n "$sampler" ]; then wait "$sampler" || true; fi
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
# a login more than the mount's first: a channel lost its connection (a transport timeout, say) and logged in again;
# over NVMe, an association more than the first (an admin queue's Connect)
if [ "$nvme" = 1 ]; then
  echo "our target saw $(grep -c ' admin queue (channel' "$work/target.log") NVMe association(s) from the mount (1: no reconnect)" >&2
else
  echo "our target saw $(grep -c ' logged in' "$work/target.log") login(s) from the mount (1: no reconnect)" >&2
fi

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
if [ "$threads" = 1 ]; then
  python3 - "$work/threads" "$out" "$rows" <<'PY'
import collections, os, re, sys

samples, out, rows = sys.argv[1], sys.argv[2], sys.argv[3].split()
cpus = os.cpu_count() or 1

def load(path):
    """Per (label, pid, tid): name, ns on a CPU, ns waiting, times scheduled; the machine's jiffies; the time."""
    tasks, machine, when = {}, None, None
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "#machine":
            machine = (int(f[1]), int(f[2]))
        elif f[0] == "#time":
            when = float(f[1])
        elif len(f) == 7:
            tasks[(f[0], f[1], f[2])] = (f[3], int(f[4]), int(f[5]), int(f[6]))
    return tasks, machine, when

lines = ["| row | side | process: threads (count) | on a CPU, % of one core | waiting for a CPU | scheduled / s |",
         "|---|---|---|---:|---:|---:|"]
for row in rows:
    for side in ("ours", "nbdfuse", "local"):
        groups = collections.defaultdict(lambda: [0, 0, 0, set()])
        seconds = busy = total = 0.0
        for name in sorted(os.listdir(samples)):
            if name.partition(".")[0] != row or not name.endswith(f".{side}.end"):
                continue
            start = os.path.join(samples, name[: -len(".end")] + ".start")
            if not os.path.exists(start):
                continue
            a, am, at = load(start)
            b, bm, bt = load(os.path.join(samples, name))
            if at is None or bt is None or am is None or bm is None:
                continue
            seconds += bt - at
            busy += bm[0] - am[0]
            total += bm[1] - am[1]
            for key, (tname, run, wait, slices) in b.items():
                if key not in a:
                    continue  # a thread born during the interval: its earlier time is not in it
                g = groups[(key[0], re.sub(r"[-#_ ]?\d+$", "", tname))]
                g[0] += run - a[key][1]
                g[1] += wait - a[key][2]
                g[2] += slices - a[key][3]
                g[3].add(key[2])
        if seconds <= 0:
            continue
        pct = lambda ns: 100.0 * ns / 1e9 / seconds
        shown = sorted(groups.items(), key=lambda kv: -kv[1][0])
        for (label, tname), (run, wait, slices, tids) in shown:
            if pct(run) < 1.0:
                continue
            lines.append(f"| {row} | {side} | {label}: {tname} ({len(tids)}) | {pct(run):.1f} | {pct(wait):.1f} | {slices / seconds:,.0f} |")
        run_all = sum(g[0] for g in groups.values())
        wait_all = sum(g[1] for g in groups.values())
        lines.append(f"| {row} | {side} | **all of the side's processes and fio**; the machine busy {100.0 * cpus * busy / total:.0f} % "
                     f"of one core ({cpus} cores) | **{pct(run_all):.1f}** | **{pct(wait_all):.1f}** | |")
text = "\n".join(lines)
if any(row.startswith("verify-") for row in rows):
    text += ("\n\nVerify rows are not sampled: they are not timed (a write pass, then a read pass that checks, of"
             " --verify-size bytes), so they have no window known in advance.")
print(text)
open(f"{out}/threads.md", "w").write(text + "\n")
PY
  echo "wrote $out/threads.md" >&2
fi
