#!/usr/bin/env python3
"""The tables scripts/trust-check.sh prints, from the HDF5 files of its runs."""
import statistics
import sys

import numpy as np

import ringbench_results as rr

WIDE = 0.05       # an interval within +-5% of its median counts as confident
WRONG = 0.10      # a median more than 10% off the quiet one counts as wrong


def rows(path):
    """(run_id, bytes, median, relative half-width or None) of every all-reduce ring row."""
    tables = rr.load([path], log=None)
    r = tables["/results"].columns
    out = []
    for i in range(len(r["run_id"])):
        if r["algorithm"][i] != "ring":
            continue
        median, low, high = r["t_median_us"][i], r["t_ci95_low_us"][i], r["t_ci95_high_us"][i]
        width = None if np.isnan(low) else max(median - low, high - median) / median
        out.append((r["run_id"][i], int(r["bytes"][i]), float(median), width))
    return out


def quiet(path):
    at_16m = [(m, w) for _, b, m, w in rows(path) if b == 16 << 20]
    print("#   run  16 MiB median (us)  95% CI")
    for k, (m, w) in enumerate(at_16m, 1):
        print(f"#   {k:>3}  {m:>17.1f}  {'n/a' if w is None else f'+-{100 * w:.1f}%'}")
    medians = [m for m, _ in at_16m]
    centre = statistics.median(medians)
    spread = max(abs(m / centre - 1) for m in medians)
    print(f"#   median of the runs {centre:.1f} us; every run within +-{100 * spread:.1f}% of it; "
          f"widest interval +-{100 * max(w or 0 for _, w in at_16m):.1f}%")


def loaded(quiet_path, loaded_path):
    reference = {}
    for _, b, m, _ in rows(quiet_path):
        reference.setdefault(b, []).append(m)
    reference = {b: statistics.median(ms) for b, ms in reference.items()}
    total = wide = confident_wrong = 0
    for _, b, m, w in rows(loaded_path):
        total += 1
        wide += w is None or w > WIDE
        if w is not None and w <= WIDE and abs(m / reference[b] - 1) > WRONG:
            confident_wrong += 1
            print(f"#   confident wrong figure: {b} B: {m:.1f} us +-{100 * w:.1f}% against quiet {reference[b]:.1f} us")
    print(f"#   {total} loaded rows: {wide} with an interval wider than +-5% (or none), "
          f"{confident_wrong} confident wrong figures")


def by_size(path):
    """{bytes: [(median, low, high) of each run]} of the ring rows."""
    tables = rr.load([path], log=None)
    r = tables["/results"].columns
    out = {}
    for i in range(len(r["run_id"])):
        if r["algorithm"][i] == "ring":
            out.setdefault(int(r["bytes"][i]), []).append(
                (float(r["t_median_us"][i]), float(r["t_ci95_low_us"][i]), float(r["t_ci95_high_us"][i])))
    return out


def modes(barrier_path, back_to_back_path):
    """Each size's median of run medians per timing mode, and how many run pairs' intervals overlap
    (an interval missing, because the CPU was busy or too few calls, counts as not shown)."""
    barrier, batch = by_size(barrier_path), by_size(back_to_back_path)
    print("#        size  barrier (us)  back-to-back (us)  ratio  intervals overlap")
    for size in sorted(barrier):
        a, b = barrier[size], batch.get(size, [])
        if not b:
            continue
        pairs = [(x, y) for x, y in zip(a, b) if not (np.isnan(x[1]) or np.isnan(y[1]))]
        overlap = sum(1 for (_, al, ah), (_, bl, bh) in pairs if al <= bh and bl <= ah)
        ma, mb = statistics.median(m for m, _, _ in a), statistics.median(m for m, _, _ in b)
        print(f"#   {size >> 20:>6} MiB  {ma:>12.1f}  {mb:>17.1f}  {mb / ma:>5.2f}  "
              f"{overlap} of {len(pairs)} run pairs with intervals (of {min(len(a), len(b))})")


def cost(path):
    times = {"new": [], "old": []}
    for line in open(path):
        which, start, end = line.split()
        times[which].append(float(end) - float(start))
    new, old = statistics.median(times["new"]), statistics.median(times["old"])
    print(f"#   wall time, median of 3: this ringbench {new:.1f} s (spread {min(times['new']):.1f}-"
          f"{max(times['new']):.1f}), baseline {old:.1f} s ({min(times['old']):.1f}-{max(times['old']):.1f}): "
          f"ratio {new / old:.2f}")


if __name__ == "__main__":
    {"quiet": quiet, "loaded": loaded, "modes": modes, "cost": cost}[sys.argv[1]](*sys.argv[2:])
