#!/usr/bin/env python3
"""Reads compare-lib.sh's fio JSON output (round-<N>.json; a job per disk and workload, named <disk>-<rw>-<bs>) and
prints one Markdown table: per workload and disk the medians over the rounds of IOPS, MB/s and completion latency
p50/p99, and our IOPS ratio to the reference's. Fails when a round lacks a job or a job did no I/O, so a broken run
cannot print a table.

    compare-table.py DIR ROUNDS [REFERENCE LABEL [GOAL_4K [GOAL_1M]]]

The reference defaults to srp-compare.sh's, LIO; the goals to 0.8 on every row."""
import json
import statistics
import sys

OURS = [("memory", "ours, memory"), ("file", "ours, file")]
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


def main(directory, count, reference="lio", label="LIO ib_srpt, ramdisk", goal_4k=0.80, goal_1m=0.80):
    disks = [(reference, label)] + OURS
    goals = {"4k": goal_4k, "1m": goal_1m}
    name = label.split(",")[0]
    rounds = []
    for number in range(1, count + 1):
        with open(f"{directory}/round-{number}.json") as f:
            rounds.append({job["jobname"]: job for job in json.load(f)["jobs"]})
    print(f"| job | target | IOPS | MB/s | p50 ms | p99 ms | ours / {name} (IOPS) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    worst = None
    worst_row = ""
    missed = []
    for rw, bs, depth in JOBS:
        reference_iops = None
        for disk, text in disks:
            runs = figures(rounds, f"{disk}-{rw}-{bs}", rw)
            iops, mbs, p50, p99 = (statistics.median(column) for column in zip(*runs))
            if disk == reference:
                reference_iops, ratio = iops, ""
            else:
                r = iops / reference_iops
                if worst is None or r < worst:
                    worst, worst_row = r, f"{bs} {rw} QD{depth}, {text}"
                if r < goals[bs]:
                    missed.append(f"{bs} {rw}, {text}")
                ratio = f"{r:.2f}"
            print(f"| {bs} {rw} QD{depth} | {text} | {iops:.0f} | {mbs:.1f} | {p50:.2f} | {p99:.2f} | {ratio} |")
    # three decimals: at two, a ratio just under the goal printed as "0.80 ... NOT met"
    goal = f"{goal_4k:.2f} on every row" if goal_4k == goal_1m else f"{goal_4k:.2f} on the 4k rows, {goal_1m:.2f} on the 1m rows"
    held = f"medians of {count} rounds" if count > 1 else "one round (check.sh's; a bench runs three)"
    print(f"\n{held}; lowest ratio {worst:.3f} ({worst_row}; goal: {goal}: "
          f"{'met' if not missed else 'NOT met on ' + '; '.join(missed)})")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], int(args[1]), *args[2:4], *[float(g) for g in args[4:6]])
