"""The comparison tables of scripts/compare.sh: ours against the MPI library and the link bound,
and our ring send/receive against iperf3, as medians over interleaved repetitions.

    compare_report.py FILE --ranks N --runs RUNS.txt --iperf IPERF3.json...

RUNS.txt lists "<run id> <ours|theirs> <band>" lines, one per ringbench run of the job. Prints
one table per collective and appends /comparison/summary and /comparison/iperf3 to FILE (under
the results file's commit lock, written to a copy, fsynced and renamed into place, like
ringbench's own commits). Both tables carry a run_id column (this comparison's own UUID), so
ringbench-merge and ringbench-analyze treat them like any other table.
"""

import argparse
import fcntl
import json
import os
import shutil
import statistics
import sys
import uuid
from datetime import datetime, timezone

import h5py
import numpy as np

import ringbench_results as rr


def human(size):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def call_time(row):
    """A row's headline time: the median of its calls (schema 2 on), else the mean of older files."""
    median = float(row.get("t_median_us", float("nan")))
    return median if median == median else float(row["t_avg_us"])


def median_of(rows, column):
    """The median of a column over rows that have it (newer files), or None."""
    values = [float(r[column]) for r in rows if column in r and float(r[column]) == float(r[column])]
    return statistics.median(values) if values else None


def spread(values, fmt):
    return f"{fmt.format(min(values))}-{fmt.format(max(values))}"


def iperf_result(path):
    with open(path) as f:
        data = json.load(f)
    end = data["end"]
    received = end["sum_received"]
    return {
        "streams": int(data["start"]["test_start"]["num_streams"]),
        "seconds": float(received["seconds"]),
        "bytes": int(received["bytes"]),
        "GBps": float(received["bits_per_second"]) / 8e9,
        "version": data["start"].get("version", "iperf3"),
        "sender_cpu_pct": float(end.get("cpu_utilization_percent", {}).get("host_total", 0.0)),
    }


def iperf_repetitions(paths):
    """One aggregate per repetition: the clients of a repetition ran at once (files
    iperf3-<rep>-<client>.json), so their rates add up."""
    by_rep = {}
    for p in paths:
        rep = os.path.basename(p).split("-")[1]
        by_rep.setdefault(rep, []).append(iperf_result(p))
    out = []
    for rep in sorted(by_rep, key=int):
        clients = by_rep[rep]
        out.append({
            "streams": sum(c["streams"] for c in clients),
            "seconds": max(c["seconds"] for c in clients),
            "bytes": sum(c["bytes"] for c in clients),
            "GBps": sum(c["GBps"] for c in clients),
            "version": clients[0]["version"],
            "sender_cpu_pct": sum(c["sender_cpu_pct"] for c in clients),
        })
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--ranks", type=int)
    parser.add_argument("--runs")
    parser.add_argument("--iperf", nargs="*", default=[])
    parser.add_argument("--failed", nargs="*", default=[], help="id:what:exit of runs that failed part-way")
    parser.add_argument("--last-run-id", action="store_true", help="print the id of the file's last run and stop")
    args = parser.parse_args(argv)
    if args.last_run_id:
        with rr.open_results(args.file) as f:
            print(rr.decode(f["runs"][-1]["run_id"]))
        return 0
    if args.ranks is None or args.runs is None:
        parser.error("--ranks and --runs are required")

    side_of = {}
    with open(args.runs) as f:
        for line in f:
            if line.strip():
                run_id, side, band = line.split()
                side_of[run_id] = (side, band)
    reps = max(1, sum(1 for s, b in side_of.values() if s == "ours" and b == "small"))

    tables = rr.load([args.file], log=None)
    results = tables["/results"]
    rows = [r for r in results.rows() if r["run_id"] in side_of]
    runs = {r["run_id"]: r for r in tables["/runs"].rows() if r["run_id"] in side_of}
    iperf = iperf_repetitions(args.iperf)
    iperf_GBps = [i["GBps"] for i in iperf]

    # (collective, bytes, algorithm) -> per-repetition rows
    grouped = {}
    for r in rows:
        grouped.setdefault((r["collective"], int(r["bytes"]), r["algorithm"]), []).append(r)

    comparison_id = str(uuid.uuid4())
    summary = []
    n = args.ranks
    some = next(iter(runs.values()), None)
    print(f"# comparison {comparison_id}: {len(side_of)} ringbench runs, {reps} interleaved repetitions "
          f"(ours, Open MPI, ours, Open MPI, ...; iperf3 after each repetition)")
    if some:
        print(f"# machine      : {some['cpu_model']}, {some['kernel']}, {n} ranks on {some['hosts']}, "
              f"interface {some['interface']}")
        print(f"# MPI          : {some['mpi_library']}, mca {some['mca_parameters']}")
        print(f"# timing       : {some['timing_method']} (same method for ours and mpi)")
    print("# figures      : medians over the repetitions, [min-max] spread; busbw in GB/s (1e9 B/s); "
          "x mpi = busbw / mpi busbw at that size; eff = link-bound time / time")
    for failure in args.failed:
        if failure:
            print(f"# failed run   : {failure} (its finished sizes are included)")
    if iperf:
        print(f"# iperf3       : {iperf[0]['version']}, {iperf[0]['streams']} concurrent clients, 1 stream and 1 MiB writes each, on 127.0.0.1: "
              f"{statistics.median(iperf_GBps):.3f} GB/s aggregate [{spread(iperf_GBps, '{:.3f}')}]")
    for collective in sorted({k[0] for k in grouped}):
        sizes = sorted({k[1] for k in grouped if k[0] == collective})
        algorithms = sorted({k[2] for k in grouped if k[0] == collective}, key=lambda a: (a == "mpi", a))
        print("#")
        print(f"# {collective}, N={n}")
        print(f"# {'size':>6} {'algorithm':>18} {'time_us':>11} {'[spread]':>21} {'busbw':>7} {'[spread]':>13} "
              f"{'x mpi':>6} {'eff':>5} {'cpu s/GB':>8} {'ctx/call':>8} {'best':>4}")
        for size in sizes:
            present = [a for a in algorithms if (collective, size, a) in grouped]
            med = {}
            for a in present:
                g = grouped[(collective, size, a)]
                med[a] = statistics.median(call_time(r) for r in g)
            ours = [a for a in present if a != "mpi"]
            best = min(ours, key=lambda a: med[a]) if ours else None
            mpi_busbw = None
            if (collective, size, "mpi") in grouped:
                mpi_busbw = statistics.median(float(r["busbw_GBps"]) for r in grouped[(collective, size, "mpi")])
            for a in present:
                g = grouped[(collective, size, a)]
                t = [call_time(r) for r in g]
                cpu = median_of(g, "cpu_s_per_GB")
                ctx = median_of(g, "ctx_switches_per_call")
                bw = [float(r["busbw_GBps"]) for r in g]
                eff = [float(r["efficiency"]) for r in g if float(r["link_bound_us"]) > 0]
                link = [float(r["link_bound_us"]) for r in g if float(r["link_bound_us"]) > 0]
                bw_med = statistics.median(bw)
                x_mpi = bw_med / mpi_busbw if mpi_busbw and a != "mpi" else None
                eff_med = statistics.median(eff) if eff else None
                print(f"  {human(size):>6} {a:>18} {statistics.median(t):>11.2f} [{spread(t, '{:.1f}'):>19}] "
                      f"{bw_med:>7.3f} [{spread(bw, '{:.3f}'):>11}] "
                      f"{(f'{x_mpi:.2f}' if x_mpi else '-'):>6} {(f'{eff_med:.0%}' if eff_med else '-'):>5} "
                      f"{(f'{cpu:.3f}' if cpu is not None else '-'):>8} {(f'{ctx:.1f}' if ctx is not None else '-'):>8} "
                      f"{'*' if a == best else '':>4}")
                summary.append({
                    "run_id": comparison_id, "collective": collective, "algorithm": a, "world_size": n,
                    "bytes": size, "repetitions": len(g), "t_median_us": statistics.median(t),
                    "t_min_us": min(t), "t_max_us": max(t), "busbw_median_GBps": bw_med,
                    "busbw_min_GBps": min(bw), "busbw_max_GBps": max(bw),
                    "busbw_ratio_to_mpi": x_mpi or 0.0,
                    "link_bound_median_us": statistics.median(link) if link else 0.0,
                    "efficiency_median": eff_med or 0.0,
                    "run_ids": " ".join(sorted({r["run_id"] for r in g})),
                })
        # The link test against iperf3: N ring links each move one chunk per link time, so the
        # ring's aggregate rate is N x chunk / link time = N x bound bytes / link-bound time.
        ring_rows = {s: grouped.get((collective, s, "ring")) for s in sizes}
        ring_rows = {s: g for s, g in ring_rows.items() if g and any(float(r["link_bound_us"]) > 0 for r in g)}
        if ring_rows:
            print("#")
            print(f"# {collective} link test (ring send/receive of one chunk on all {n} links at once, 2(N-1) "
                  f"back to back) against {n} concurrent iperf3 streams: aggregate GB/s over the {n} links")
            print(f"# {'size':>6} {'chunk':>8} {'link_us':>11} {'aggregate':>10} {'[spread]':>13} {'iperf3':>7} "
                  f"{'link/iperf3':>11}")
            for size, g in ring_rows.items():
                agg = [n * float(r["bound_bytes"]) / float(r["link_bound_us"]) / 1e3 for r in g
                       if float(r["link_bound_us"]) > 0]
                link = [float(r["link_bound_us"]) for r in g if float(r["link_bound_us"]) > 0]
                chunk = -(-size // n)
                ratio = statistics.median(agg) / statistics.median(iperf_GBps) if iperf_GBps else None
                print(f"  {human(size):>6} {chunk:>8} {statistics.median(link):>11.1f} {statistics.median(agg):>10.3f} "
                      f"[{spread(agg, '{:.3f}'):>11}] "
                      f"{(f'{statistics.median(iperf_GBps):.3f}' if iperf_GBps else '-'):>7} "
                      f"{(f'{ratio:.0%}' if ratio else '-'):>11}")
                for row in summary:
                    if row["collective"] == collective and row["bytes"] == size and row["algorithm"] == "ring":
                        row["link_aggregate_GBps"] = statistics.median(agg)
                        row["iperf3_GBps"] = statistics.median(iperf_GBps) if iperf_GBps else 0.0
    write_tables(args.file, comparison_id, summary, iperf)
    print(f"# comparison   : tables /comparison/summary and /comparison/iperf3 appended to {args.file} "
          f"(run_id {comparison_id})")
    return 0


SUMMARY_COLUMNS = [
    ("run_id", "str", "", "this comparison's id (UUID)"),
    ("collective", "str", "", "collective"),
    ("algorithm", "str", "", "algorithm; mpi = the MPI library's own call over its TCP"),
    ("world_size", "i8", "ranks", "ranks"),
    ("bytes", "u8", "B", "message size"),
    ("repetitions", "i8", "", "interleaved repetitions the medians are over"),
    ("t_median_us", "f8", "us", "median over repetitions of the rank-averaged time per call"),
    ("t_min_us", "f8", "us", "fastest repetition"),
    ("t_max_us", "f8", "us", "slowest repetition"),
    ("busbw_median_GBps", "f8", "GB/s", "median bus bandwidth (1e9 B/s)"),
    ("busbw_min_GBps", "f8", "GB/s", "lowest repetition"),
    ("busbw_max_GBps", "f8", "GB/s", "highest repetition"),
    ("busbw_ratio_to_mpi", "f8", "", "busbw median / mpi busbw median at this size; 0 when absent"),
    ("link_bound_median_us", "f8", "us", "median link-bound time (bound bytes at the measured ring link rate)"),
    ("efficiency_median", "f8", "", "median of link-bound time / time"),
    ("link_aggregate_GBps", "f8", "GB/s", "ring rows: N x chunk / link time, the link test's aggregate rate"),
    ("iperf3_GBps", "f8", "GB/s", "ring rows: median iperf3 aggregate rate with N streams"),
    ("run_ids", "str", "", "ringbench run ids of the rows the medians are over"),
]
IPERF_COLUMNS = [
    ("run_id", "str", "", "this comparison's id (UUID)"),
    ("repetition", "i8", "", "1-based"),
    ("streams", "i8", "", "concurrent iperf3 streams (one client each)"),
    ("seconds", "f8", "s", "measured duration"),
    ("bytes", "u8", "B", "bytes received"),
    ("GBps", "f8", "GB/s", "aggregate received rate (1e9 B/s)"),
    ("sender_cpu_pct", "f8", "%", "iperf3 clients' CPU use, summed"),
    ("version", "str", "", "iperf3 version"),
    ("utc", "str", "", "when the table was written"),
]


def to_array(columns, rows):
    string = h5py.string_dtype("utf-8")
    dtype = np.dtype([(name, string if kind == "str" else kind) for name, kind, _, _ in columns])
    data = np.zeros(len(rows), dtype=dtype)
    for i, row in enumerate(rows):
        for name, kind, _, _ in columns:
            value = row.get(name, "" if kind == "str" else 0)
            data[i][name] = value
    return data


def append(f, path, columns, description, data):
    if path not in f:
        ds = f.create_dataset(path, shape=(0,), maxshape=(None,), chunks=(64,), dtype=data.dtype)
        ds.attrs["description"] = description
        ds.attrs["column_units"] = [unit for _, _, unit, _ in columns]
        ds.attrs["column_descriptions"] = [text for _, _, _, text in columns]
    ds = f[path]
    start = len(ds)
    ds.resize((start + len(data),))
    if len(data):
        ds[start:] = data


def write_tables(path, comparison_id, summary, iperf):
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    iperf_rows = [dict(i, run_id=comparison_id, repetition=k + 1, utc=now) for k, i in enumerate(iperf)]
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        tmp = f"{path}.tmp.{os.getpid()}"
        try:
            shutil.copyfile(path, tmp)
            with h5py.File(tmp, "r+") as f:
                append(f, "/comparison/summary", SUMMARY_COLUMNS,
                       "scripts/compare.sh: medians over interleaved repetitions, ratios to mpi and the link bound",
                       to_array(SUMMARY_COLUMNS, summary))
                append(f, "/comparison/iperf3", IPERF_COLUMNS,
                       "scripts/compare.sh: iperf3 on 127.0.0.1 with as many streams as ring links",
                       to_array(IPERF_COLUMNS, iperf_rows))
            rr.replace_durably(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except rr.ResultsError as e:
        print(f"compare_report: error: {e}", file=sys.stderr)
        sys.exit(1)
