"""Checks what scripts/compare.sh produced: its printed report and the tables it appended.

    check_compare.py REPORT.txt FILE.h5 --ranks N --sizes S... --small-algos A... --large-algos A...
                     --small-limit BYTES

The report must name one comparison id, hold one row per (size, algorithm) for ours and mpi with
numbers that parse, a median inside its [min-max] spread, exactly one best (*) of ours per size,
and one link-test row per size with the chunk N divides into; the file must hold that
comparison's /comparison/summary rows (one per printed row, pointing at runs of /runs) and its
/comparison/iperf3 row, and no temporary copy may be left beside it.
"""

import argparse
import math
import os
import re
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import ringbench_results as rr  # noqa: E402

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def size_of(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * scale[text[-1]] if text[-1] in scale else int(text)


def table(lines, header):
    """Rows (lists of fields, spreads unpadded) after `header` and its column line, to the next '#'."""
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        rows.append(re.sub(r"\[\s+", "[", line).split())
    return rows


def spread(text):
    low, high = text.strip("[]").split("-")
    return float(low), float(high)


def check_report(lines, a, problems):
    first = re.match(rf"# comparison ({UUID}): 4 ringbench runs, 1 interleaved repetitions", lines[0])
    if not first:
        problems.append(f"first line: {lines[0]!r}")
        return None
    comparison_id = first.group(1)
    iperf = [line for line in lines if line.startswith("# iperf3       :")]
    if not iperf or not re.search(rf"{a.ranks} concurrent clients.*: (\d+\.\d+) GB/s aggregate", iperf[0]):
        problems.append(f"no iperf3 line with {a.ranks} clients and a rate: {iperf}")
    rows = table(lines, f"# allreduce, N={a.ranks}")
    expected = sorted((s, algo) for s in a.sizes
                      for algo in (a.small_algos if s <= a.small_limit else a.large_algos) + ["mpi"])
    printed = sorted((size_of(r[0]), r[1]) for r in rows)
    if printed != expected:
        problems.append(f"table rows {printed}, expected {expected}")
    for r in rows:
        what = f"row {' '.join(r)}"
        if len(r) not in (10, 11):
            problems.append(f"{what}: {len(r)} fields")
            continue
        t, (t_low, t_high) = float(r[2]), spread(r[3])
        bw, (bw_low, bw_high) = float(r[4]), spread(r[5])
        # The spread is printed to 0.1 us and the median to 0.01 us: each may be off its value by
        # half its last digit (plus float error), so the median may sit 0.055 us outside.
        t_slack, bw_slack = 0.05 + 0.005 + 1e-9, 5e-4 + 5e-4 + 1e-12
        if not (t > 0 and t_low - t_slack <= t <= t_high + t_slack and bw >= 0
                and bw_low - bw_slack <= bw <= bw_high + bw_slack):
            problems.append(f"{what}: median outside its spread or not positive")
        if not (r[8] != "-" and float(r[8]) > 0 and r[9] != "-" and float(r[9]) >= 0):
            problems.append(f"{what}: no CPU cost (cpu s/GB, ctx/call)")
        if r[1] == "mpi" and (r[6] != "-" or len(r) != 10):
            problems.append(f"{what}: mpi has a ratio to itself or a best mark")
        if r[1] != "mpi" and not (r[6] == "-" or float(r[6]) > 0):
            problems.append(f"{what}: x mpi is not a positive ratio")
    for s in a.sizes:
        best = [r for r in rows if size_of(r[0]) == s and r[-1] == "*"]
        if len(best) != 1 or best[0][1] == "mpi":
            problems.append(f"size {s}: best marks {best}")
    link_header = next((line for line in lines if line.startswith("# allreduce link test")), None)
    if link_header is None:
        problems.append("no link test table")
    else:
        link = table(lines, link_header)
        if sorted(size_of(r[0]) for r in link) != sorted(a.sizes):
            problems.append(f"link test sizes {[r[0] for r in link]}")
        for r in link:
            if int(r[1]) != math.ceil(size_of(r[0]) / a.ranks) or not float(r[2]) > 0 or not float(r[3]) >= 0:
                problems.append(f"link test row {' '.join(r)}")
    if not re.match(rf"# comparison   : tables /comparison/summary and /comparison/iperf3 appended to .* "
                    rf"\(run_id {comparison_id}\)$", lines[-1]):
        problems.append(f"last line: {lines[-1]!r}")
    return comparison_id, len(rows)


def check_file(path, comparison_id, printed_rows, problems):
    tables = rr.load([path], log=None)
    runs = tables["/runs"]
    if len(runs) != 4 or set(runs["exit_status"]) != {"ok"}:
        problems.append(f"/runs: {len(runs)} runs, exit status {set(runs['exit_status'])}")
    summary, iperf = tables.get("/comparison/summary"), tables.get("/comparison/iperf3")
    if summary is None or iperf is None:
        problems.append(f"tables missing: {sorted(tables)}")
        return
    if len(summary) != printed_rows or set(summary["run_id"]) != {comparison_id}:
        problems.append(f"/comparison/summary: {len(summary)} rows for {printed_rows} printed, ids {set(summary['run_id'])}")
    known = set(runs["run_id"])
    for r in summary.rows():
        if not set(r["run_ids"].split()) <= known or int(r["repetitions"]) != 1 or not r["t_median_us"] > 0:
            problems.append(f"/comparison/summary row {r['algorithm']} {r['bytes']}: run_ids {r['run_ids']}, "
                            f"repetitions {r['repetitions']}, t {r['t_median_us']}")
    if len(iperf) != 1 or not iperf["GBps"][0] > 0 or iperf["run_id"][0] != comparison_id:
        problems.append(f"/comparison/iperf3: {list(iperf.rows())}")
    with h5py.File(path, "r") as f:
        if f["/comparison/summary"].maxshape != (None,):
            problems.append("/comparison/summary cannot grow")
    leftovers = [n for n in os.listdir(os.path.dirname(os.path.abspath(path))) if ".tmp." in n]
    if leftovers:
        problems.append(f"temporary copies left: {leftovers}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("file")
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--sizes", type=int, nargs="+", required=True)
    p.add_argument("--small-algos", nargs="+", required=True)
    p.add_argument("--large-algos", nargs="+", required=True)
    p.add_argument("--small-limit", type=int, required=True, help="largest size of the small band")
    a = p.parse_args()
    problems = []
    lines = [line.rstrip("\n") for line in open(a.report) if line.strip()]
    found = check_report(lines, a, problems) if lines else problems.append("empty report")
    if found:
        check_file(a.file, *found, problems)
    for problem in problems:
        print(f"check_compare: {problem}", file=sys.stderr)
    print(f"check_compare: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
