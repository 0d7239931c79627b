#!/usr/bin/env python3
"""The markdown table of the comparison scripts (compare-nbdkit.sh, srp-vs-nvme.sh): two sides run row by row, round
by round; per row the medians of each side's IOPS, MB/s and p50 / p99 latency, and the median of the per-round IOPS
ratios A / B with their range.

    ratio_table.py RESULTS.tsv RUNTIME RAMP ROUNDS A B

RESULTS.tsv: a line per run: row name, round, side key, JSON path. A and B: KEY:LABEL:FORMAT, the side whose runs
carry that key, its name in the table, and its JSON: "bench" (bin/rdmablock bench --json) or "fio" (fio's
--output-format=json; read and write summed).
"""
import json
import statistics
import sys
from collections import OrderedDict


def bench(path):
    d = json.load(open(path))
    lat = d["lat_ns"]
    return d["iops"], d["mb_s"], lat["p50"] / 1e3, lat["p99"] / 1e3


def fio(path):
    job = json.load(open(path))["jobs"][0]
    iops = bw = 0.0
    lat50 = lat99 = None
    for side in ("read", "write"):
        s = job[side]
        if s["total_ios"] == 0 and s["iops"] == 0:
            continue
        iops += s["iops"]
        bw += s["bw_bytes"] / 1e6
        lat = s.get("lat_ns", {}).get("percentile") or s["clat_ns"]["percentile"]
        lat50, lat99 = lat["50.000000"] / 1e3, lat["99.000000"] / 1e3
    return iops, bw, lat50, lat99


def lat(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.0f} µs"


def main(results, runtime, ramp, rounds, a, b):
    sides = [s.split(":", 2) for s in (a, b)]
    readers = {key: {"bench": bench, "fio": fio}[form] for key, _, form in sides}
    rows = OrderedDict()
    for line in open(results):
        name, rnd, who, path = line.rstrip("\n").split("\t")
        if who in readers:
            rows.setdefault(name, {}).setdefault(rnd, {})[who] = readers[who](path)
    (ka, la, _), (kb, lb, _) = sides
    med = statistics.median
    title = f"medians of {rounds} rounds" if int(rounds) > 1 else "one round"
    print(f"| row ({runtime} s each after a {ramp} s ramp, {title}) | {la} IOPS | {la} MB/s | {la} p50 / p99 "
          f"| {lb} IOPS | {lb} MB/s | {lb} p50 / p99 | {la} / {lb} (IOPS) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, by_round in rows.items():
        x = [r[ka] for r in by_round.values()]
        y = [r[kb] for r in by_round.values()]
        ratios = [r[ka][0] / r[kb][0] for r in by_round.values() if r[kb][0] > 0]
        ratio = med(ratios) if ratios else float("nan")
        spread = f" ({min(ratios):.2f} – {max(ratios):.2f})" if len(ratios) > 1 else ""
        print(f"| {name} | {med([v[0] for v in x]):,.0f} | {med([v[1] for v in x]):.1f} | "
              f"{lat(med([v[2] for v in x]))} / {lat(med([v[3] for v in x]))} | "
              f"{med([v[0] for v in y]):,.0f} | {med([v[1] for v in y]):.1f} | "
              f"{lat(med([v[2] for v in y]))} / {lat(med([v[3] for v in y]))} | **{ratio:.2f}**{spread} |")


if __name__ == "__main__":
    main(*sys.argv[1:7])
