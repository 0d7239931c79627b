#!/usr/bin/env python3
"""Reads srp-compare.sh's fio JSON output (round-<N>.json; a job per disk and workload, named <disk>-<rw>-<bs>) and
prints one Markdown table: per workload and disk the medians over the rounds of IOPS, MB/s and completion latency
p50/p99, and our IOPS ratio to LIO's. Fails when a round lacks a job or a job did no I/O, so a broken run cannot
print a table."""
import json
import statistics
import sys

DISKS = [("lio", "LIO ib_srpt, ramdisk"), ("memory", "ours, memory"), ("file", "ours, file")]
GOAL = 0.80
JOBS = [("write", "1m", 4), ("read", "1m", 4), ("randwrite", "4k", 16), ("randread", "4k", 16)]


def figures(rounds, name, rw):
    """IOPS, MB/s, p50 and p99 in ms of job `name` in each round; an error when a round lacks it or did no I/O."""
    result = []
    for number, jobs in enumerate(rounds, 1):
        job = jobs.get(name)
        if job is None:
            raise ValueError(f"round {number}: no job {name}")
        if job["error"] != 0:
            raise ValueError(f"round {number}: job {name} failed with error {job['error']}")
        side = job["write" if "write" in rw else "read"]
        pct = side["clat_ns"]["percentile"]
        if side["iops"] <= 0 or side["io_bytes"] <= 0:
            raise ValueError(f"round {number}: job {name} did no I/O")
        result.append((side["iops"], side["bw_bytes"] / 1e6, pct["50.000000"] / 1e6, pct["99.000000"] / 1e6))
    return result


def main(directory, count):
    rounds = []
    for number in range(1, count + 1):
        with open(f"{directory}/round-{number}.json") as f:
            rounds.append({job["jobname"]: job for job in json.load(f)["jobs"]})
    print(f"| job | target | IOPS | MB/s | p50 ms | p99 ms | ours / LIO (IOPS) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    worst = None
    worst_row = ""
    for rw, bs, depth in JOBS:
        lio_iops = None
        for disk, label in DISKS:
            runs = figures(rounds, f"{disk}-{rw}-{bs}", rw)
            iops, mbs, p50, p99 = (statistics.median(column) for column in zip(*runs))
            if disk == "lio":
                lio_iops, ratio = iops, ""
            else:
                r = iops / lio_iops
                if worst is None or r < worst:
                    worst, worst_row = r, f"{bs} {rw} QD{depth}, {label}"
                ratio = f"{r:.2f}"
            print(f"| {bs} {rw} QD{depth} | {label} | {iops:.0f} | {mbs:.1f} | {p50:.2f} | {p99:.2f} | {ratio} |")
    # three decimals: at two, a ratio just under the goal printed as "0.80 ... NOT met"
    print(f"\nmedians of {count} rounds; lowest ratio {worst:.3f} ({worst_row}; goal: {GOAL:.2f} on every row: "
          f"{'met' if worst >= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
