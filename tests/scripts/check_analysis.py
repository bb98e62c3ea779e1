"""Checks what ringbench-analyze wrote: its printed tables, CSV files and PNG plots.

    check_analysis.py STDOUT_FILE DIR --world-size N [N ...] [--model] [--hosts K]

Tables must hold a row per (world size, size) with positive busbw and latency, the byte formula
ok and verification passed; CSV files must parse with the HDF5 files' column names, efficiency a
fraction; each PNG must exist, decode, be larger than a few kB and not be blank (many distinct
colours).
"""

import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("stdout")
    p.add_argument("dir")
    p.add_argument("--world-size", type=int, nargs="+", required=True)
    p.add_argument("--model", action="store_true")
    p.add_argument("--hosts", type=int, default=1)
    a = p.parse_args()
    problems = []
    printed = open(a.stdout).read()
    for needle in ("# ring allreduce", "scaling with world size", "# runs"):
        if needle not in printed:
            problems.append(f"printed output lacks {needle!r}")
    if a.model and "model: the five best placements" not in printed:
        problems.append("printed output lacks the model placements table")

    def rows(name):
        path = os.path.join(a.dir, name)
        if not os.path.isfile(path):
            problems.append(f"missing {name}")
            return []
        with open(path, newline="") as f:
            return list(csv.DictReader(f))

    table = rows("allreduce_ring.csv")
    sizes_by_n = {}
    for r in table:
        n = int(r["world_size"])
        where = f"allreduce_ring.csv: N={n} size {r['bytes']}"
        sizes_by_n.setdefault(n, set()).add(int(r["bytes"]))
        if int(r["host_count"]) != a.hosts:
            problems.append(f"allreduce_ring.csv: host_count {r['host_count']}, expected {a.hosts}")
        if r["formula_ok"] != "1" or r["verified"] != "1":
            problems.append(f"{where}: formula_ok {r['formula_ok']}, verified {r['verified']}")
        if not float(r["t_avg_us"]) > 0 or not float(r["busbw_GBps"]) > 0:
            problems.append(f"{where}: non-positive latency or busbw")
        if n > 1 and not 0.99 <= float(r["sent_over_bound"]) <= 2.0:
            problems.append(f"{where}: sent/bound {r['sent_over_bound']}")
    if sorted(sizes_by_n) != sorted(a.world_size):
        problems.append(f"allreduce_ring.csv: world sizes {sorted(sizes_by_n)}, expected {sorted(a.world_size)}")
    for n, sizes in sizes_by_n.items():
        if len(sizes) < 5:
            problems.append(f"allreduce_ring.csv: only {len(sizes)} sizes at N={n}")
    scaling = rows("scaling.csv")
    if sorted(int(r["world_size"]) for r in scaling) != sorted(a.world_size):
        problems.append(f"scaling.csv: world sizes {[r['world_size'] for r in scaling]}")
    raw = rows("raw_results.csv")
    if len(raw) < len(table):
        problems.append(f"raw_results.csv: {len(raw)} rows for {len(table)} summary rows")
    # Efficiency in CSV is the HDF5 fraction (the median over runs of the raw rows), not a percentage.
    raw_efficiency = {}
    for r in raw:
        if (r["collective"], r["algorithm"]) == ("allreduce", "ring") and r["efficiency"]:
            raw_efficiency.setdefault((r["world_size"], r["bytes"]), []).append(float(r["efficiency"]))
    for r in table:
        expected = raw_efficiency.get((r["world_size"], r["bytes"]))
        if expected and not math.isclose(float(r["efficiency"]), float(np.median(expected)), rel_tol=1e-9):
            problems.append(f"allreduce_ring.csv: N={r['world_size']} size {r['bytes']}: efficiency {r['efficiency']}, "
                            f"the raw rows' median is {np.median(expected)}")
    pngs = ["busbw_vs_size.png", "latency_vs_size.png"] + (["scaling.png"] if len(a.world_size) > 1 else [])
    if a.model:
        pngs += ["model_placements.png", "model_collectives.png"]
        if not rows("model_best_placements.csv"):
            problems.append("model_best_placements.csv has no rows")
    for name in pngs:
        path = os.path.join(a.dir, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 10_000:
            problems.append(f"{name}: missing or under 10 kB")
            continue
        image = mpimg.imread(path)
        pixels = (image.reshape(-1, image.shape[-1]) * 255).astype(np.uint64)
        colours = len(np.unique(sum(pixels[:, i] << np.uint64(8 * i) for i in range(pixels.shape[1]))))
        if image.shape[0] < 300 or image.shape[1] < 400 or colours < 50:
            problems.append(f"{name}: {image.shape[1]}x{image.shape[0]} with {colours} colours looks empty")
    for problem in problems:
        print(f"check_analysis: {problem}", file=sys.stderr)
    print(f"check_analysis: {len(table)} table rows, world sizes {sorted(sizes_by_n)}, {len(pngs)} PNGs checked, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
