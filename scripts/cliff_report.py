#!/usr/bin/env python3
"""cliff-check.sh's report (issue 18's "no cliff" target), from ringbench's --format csv rows.

  cliff_report.py DIR N...          per world size N, DIR/nN.repR.csv: per size the median over the
                                    repetitions of each run's median time, its [min-max], and
                                    "falls" where the next doubling's median is lower; one
                                    "fall N SMALL LARGE" line per such pair. Exit 1 if any, else 0.
  cliff_report.py --rows CSV LABEL  one diagnosis run's rows: size, time, ctx/call, CPU s/GB.

Plain python3 and the csv module only: it runs where h5py does not (the accelerator machine).
"""
import csv
import glob
import os
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("bytes")]


def size_label(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def report(directory, world_sizes):
    falls = 0
    for n in world_sizes:
        times = {}  # bytes -> each repetition's median time
        for path in sorted(glob.glob(os.path.join(directory, f"n{n}.rep*.csv"))):
            for r in rows(path):
                times.setdefault(int(r["bytes"]), []).append(float(r["t_median_us"]))
        if not times:
            print(f"# N={n}: no rows", file=sys.stderr)
            return 2
        print(f"# N={n}: ring all-reduce, median over {max(len(v) for v in times.values())} repetition(s)")
        print(f"#  {'size':>8} {'time_us':>11} {'[min-max]':>21} {'x previous':>10}")
        sizes = sorted(times)
        for i, b in enumerate(sizes):
            median = statistics.median(times[b])
            ratio = ""
            if i > 0:
                previous = statistics.median(times[sizes[i - 1]])
                ratio = f"{median / previous:.2f}"
            mark = ""
            if i > 0 and b == 2 * sizes[i - 1] and median < statistics.median(times[sizes[i - 1]]):
                separated = max(times[b]) < min(times[sizes[i - 1]])
                mark = "  FALLS" + (" (spreads apart)" if separated else " (spreads overlap)")
                falls += 1
            spread = f"[{min(times[b]):.1f}-{max(times[b]):.1f}]"
            print(f"   {size_label(b):>8} {median:>11.1f} {spread:>21} {ratio:>10}{mark}")
        for i in range(1, len(sizes)):
            small, large = sizes[i - 1], sizes[i]
            if large == 2 * small and statistics.median(times[large]) < statistics.median(times[small]):
                print(f"fall {n} {size_label(small)} {size_label(large)}")
    print(f"# {falls} doubling(s) where the time falls (target: none)")
    return 1 if falls else 0


def diagnosis(path, label):
    def number(r, key, digits):
        value = r.get(key, "")
        return f"{float(value):.{digits}f}" if value not in ("", "nan") else "-"

    for r in rows(path):
        print(f"  {label:<28} {size_label(int(r['bytes'])):>6} {float(r['t_median_us']):>10.1f} us"
              f"  ctx/call {number(r, 'ctx_switches_per_call', 2):>7}  cpu s/GB {number(r, 'cpu_s_per_GB', 3):>6}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--rows":
        sys.exit(diagnosis(sys.argv[2], sys.argv[3]))
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(report(sys.argv[1], sys.argv[2:]))
