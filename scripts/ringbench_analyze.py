"""ringbench-analyze: tables, CSV files and PNG plots from any number of ringbench results files.

    scripts/ringbench-analyze [--csv DIR] [--plots DIR] FILE.h5 [FILE.h5 ...]

The files are merged in memory (as ringbench-merge would: each run once, by its globally unique
id). Printed, `#`-prefixed like ringbench's own report so `grep -v '^#'` leaves the numbers:
  - per collective and algorithm: one row per (world size, hosts, size) with the median over runs
    of latency, busbw, the link-bound busbw and the efficiency against it, and the bytes each rank
    sent next to the lower bound and whether they equalled the algorithm's formula on every rank;
  - scaling with world size: busbw at the largest size every world size has, latency at the
    smallest;
  - model outputs, where the file holds /model tables: the best placements of each sweep, the
    cost of each algorithm per collective and size, and the validation cases.
--csv DIR writes every printed table and every raw table of the files as CSV.
--plots DIR writes PNGs: busbw vs size with the link bound, latency vs size (log-log), scaling
with world size, and with /model tables the model's collective costs and the placement sweep
(heatmap of the best TP x PP, ranked bar chart of the placements).
Exit status: 0 done, 2 bad input (a file that is not a ringbench results file, nothing to analyse).
"""

import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

import numpy as np

from ringbench_results import ResultsError, load

# ---------------------------------------------------------------------------------------------
# Tables


class Summary:
    """A printed table: a title, column names with units, rows of values."""

    def __init__(self, name, title, columns, rows):
        self.name = name  # file-name friendly, for the CSV
        self.title = title
        self.columns = columns  # [(name, unit)]
        self.rows = rows

    def print(self, out):
        print(f"#\n# {self.title}", file=out)
        if not self.rows:
            print("# (no rows)", file=out)
            return
        texts = [[format_value(v) for v in row] for row in self.rows]
        widths = [max(len(c[0]), len(c[1]) + 2, *(len(t[i]) for t in texts)) for i, c in enumerate(self.columns)]
        print("#" + " ".join(f"{c[0]:>{w}}" for c, w in zip(self.columns, widths)), file=out)
        print("#" + " ".join(f"{'(' + c[1] + ')' if c[1] else '':>{w}}" for c, w in zip(self.columns, widths)),
              file=out)
        for t in texts:
            print(" " + " ".join(f"{v:>{w}}" for v, w in zip(t, widths)), file=out)

    def write_csv(self, directory):
        path = os.path.join(directory, f"{self.name}.csv")
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow([csv_column(name, unit) for name, unit in self.columns])
            for row in self.rows:
                writer.writerow([csv_value(v) for v in row])
        return path


# Units as column-name suffixes in CSV headers, the way the HDF5 columns carry them (busbw_GBps).
CSV_UNIT_SUFFIX = {"GB/s": "GBps", "B/rank": "B_per_rank", "B": "B", "us": "us", "ms": "ms", "%": "pct", "UTC": "utc",
                   "ranks": "", "inner first": ""}


def csv_column(name, unit):
    name = name.replace("/", "_over_")
    suffix = CSV_UNIT_SUFFIX.get(unit, unit.replace(" ", "_"))
    return f"{name}_{suffix}" if suffix else name


def format_value(v):
    if v is None:
        return "-"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "NO"
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "N/A"
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:.0f}"
        if abs(v) >= 1:
            return f"{v:.2f}"
        return f"{v:.4f}"
    return str(v)


def csv_value(v):
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return "" if math.isnan(v) else repr(float(v))
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


def nanmedian(values):
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if len(values) else float("nan")


def host_counts(runs):
    """run id -> number of distinct hosts, from /runs."""
    if runs is None:
        return {}
    return {rid: len([h for h in str(hosts).split(",") if h]) for rid, hosts in zip(runs["run_id"], runs["hosts"])}


def measurement_groups(results, runs):
    """Groups /results rows by (collective, algorithm, world size, hosts, dtype, bytes): the rows of
    several runs of the same configuration (array tasks, repeated days) are summarised together."""
    hosts = host_counts(runs)
    groups = OrderedDict()
    order = np.lexsort((results["bytes"], results["dtype"], results["world_size"], results["algorithm"],
                        results["collective"]))
    for i in order:
        key = (results["collective"][i], results["algorithm"][i], int(results["world_size"][i]),
               hosts.get(results["run_id"][i], 0), results["dtype"][i], int(results["bytes"][i]))
        groups.setdefault(key, []).append(i)
    return groups


def measurement_tables(results, runs):
    """One Summary per (collective, algorithm) and the per-configuration data the plots use."""
    groups = measurement_groups(results, runs)
    points = []  # dicts, one per group, for plots and scaling
    for (collective, algorithm, n, nhosts, dtype, size), idx in groups.items():
        idx = np.array(idx)
        t = nanmedian(results["t_avg_us"][idx])
        busbw = nanmedian(results["busbw_GBps"][idx])
        eff = nanmedian(results["efficiency"][idx])
        link_us = nanmedian(results["link_bound_us"][idx])
        # busbw the link bound allows: the same bytes in link_bound_us instead of t_avg_us.
        bound_busbw = busbw * t / link_us if link_us > 0 and not math.isnan(busbw) else float("nan")
        bound = nanmedian(results["bound_bytes"][idx])
        sent_min = int(results["sent_min_bytes"][idx].min())
        sent_max = int(results["sent_max_bytes"][idx].max())
        verified = results["verified"][idx]
        points.append(dict(collective=collective, algorithm=algorithm, world_size=n, hosts=nhosts, dtype=dtype, bytes=size,
                           runs=len(set(results["run_id"][idx])), t_avg_us=t, busbw_GBps=busbw,
                           bound_busbw_GBps=bound_busbw, efficiency=eff, sent_min=sent_min, sent_max=sent_max,
                           bound_bytes=bound, sent_over_bound=sent_max / bound if bound > 0 else float("nan"),
                           formula_ok=bool(np.all(results["formula_ok"][idx] == 1)),
                           verified="off" if np.all(verified < 0) else bool(np.all(verified == 1))))
    tables = []
    columns = [("N", "ranks"), ("hosts", ""), ("dtype", ""), ("size", "B"), ("runs", ""), ("t_avg", "us"), ("busbw", "GB/s"),
               ("bound_busbw", "GB/s"), ("efficiency", ""), ("sent_min", "B/rank"), ("sent_max", "B/rank"),
               ("bound", "B/rank"), ("sent/bound", ""), ("formula", ""), ("verified", "")]
    for collective, algorithm in OrderedDict.fromkeys((p["collective"], p["algorithm"]) for p in points):
        mine = [p for p in points if p["collective"] == collective and p["algorithm"] == algorithm]
        mine.sort(key=lambda p: (p["world_size"], p["hosts"], p["dtype"], p["bytes"]))
        rows = [[p["world_size"], p["hosts"], p["dtype"], p["bytes"], p["runs"], p["t_avg_us"], p["busbw_GBps"],
                 p["bound_busbw_GBps"], p["efficiency"], p["sent_min"], p["sent_max"], p["bound_bytes"],
                 p["sent_over_bound"], "ok" if p["formula_ok"] else "WRONG", p["verified"]] for p in mine]
        tables.append(Summary(f"{collective}_{algorithm}",
                              f"{algorithm} {collective}: median over runs; busbw GB/s = 1e9 B/s (nccl-tests); "
                              "bound_busbw = busbw at the link bound measured in the same run; efficiency = "
                              "link bound time / t_avg; formula = counted bytes equal the algorithm's formula",
                              columns, rows))
    return tables, points


def scaling_table(points):
    """busbw at the largest size all world sizes of an algorithm share; latency at the smallest."""
    rows = []
    for collective, algorithm, nhosts in OrderedDict.fromkeys((p["collective"], p["algorithm"], p["hosts"])
                                                              for p in points):
        mine = [p for p in points if (p["collective"], p["algorithm"], p["hosts"]) == (collective, algorithm, nhosts)]
        sizes_by_n = {}
        for p in mine:
            sizes_by_n.setdefault(p["world_size"], set()).add(p["bytes"])
        common = set.intersection(*sizes_by_n.values())
        if not common:
            continue
        large, small = max(common), min(common)
        for n in sorted(sizes_by_n):
            at_large = next(p for p in mine if p["world_size"] == n and p["bytes"] == large)
            at_small = next(p for p in mine if p["world_size"] == n and p["bytes"] == small)
            rows.append([collective, algorithm, n, nhosts, large, at_large["busbw_GBps"], at_large["efficiency"], small,
                         at_small["t_avg_us"]])
    return Summary("scaling", "scaling with world size: busbw at the largest size every N has, latency at the smallest",
                   [("collective", ""), ("algorithm", ""), ("N", "ranks"), ("hosts", ""), ("large", "B"),
                    ("busbw", "GB/s"), ("efficiency", ""), ("small", "B"), ("t_avg", "us")], rows)


def runs_table(runs):
    rows = []
    for r in runs.rows():
        rows.append([r["run_id"], r["start_utc"], r["world_size"], r["hosts"], r["interface"], r["exit_status"]])
    return Summary("runs", "runs", [("run_id", ""), ("start", "UTC"), ("N", "ranks"), ("hosts", ""),
                                    ("interface", ""), ("exit_status", "")], rows)


def model_tables(tables):
    out = []
    placements = tables.get("/model/placements")
    model_runs = tables.get("/model/runs")
    if placements is not None and len(placements) and has(placements, "run_id", "step_comm_us", "tp", "pp", "dp"):
        rows = []
        for run_id in OrderedDict.fromkeys(placements["run_id"]):
            sel = placements.select(placements["run_id"] == run_id)
            best = np.argsort(sel["step_comm_us"], kind="stable")[:5]
            fastest = float(sel["step_comm_us"][best[0]])
            for rank, i in enumerate(best, 1):
                rows.append([run_label(model_runs, run_id, sel, i), rank, int(sel["tp"][i]), int(sel["pp"][i]),
                             int(sel["dp"][i]), sel["order"][i] if "order" in sel else "-",
                             float(sel["step_comm_us"][i]) / 1e3, float(sel["step_comm_us"][i]) / fastest])
        out.append(Summary("model_best_placements", "model: the five best placements of each sweep (step "
                           "communication time, no overlap)",
                           [("sweep", ""), ("rank", ""), ("tp", ""), ("pp", ""), ("dp", ""), ("order", "inner first"),
                            ("step_comm", "ms"), ("x_best", "")], rows))
    collectives = tables.get("/model/collectives")
    if collectives is not None and len(collectives) and has(collectives, "cluster", "op", "algorithm", "bytes",
                                                            "time_us", "busbw_GBps"):
        rows = []
        for r in collectives.rows():
            usable = r.get("applicable", 1) == 1
            rows.append([r["cluster"], r.get("gpus", "-"), r["op"], r.get("placement", "-"), int(r["bytes"]),
                         r["algorithm"], r["time_us"] if usable else None, r["busbw_GBps"] if usable else None,
                         "*" if r.get("best", 0) == 1 else ("" if usable else "n/a")])
        out.append(Summary("model_collectives", "model: cost of each algorithm (* = fastest)",
                           [("cluster", ""), ("gpus", ""), ("op", ""), ("placement", ""), ("bytes", "B"),
                            ("algorithm", ""), ("time", "us"), ("busbw", "GB/s"), ("best", "")], rows))
    validation = tables.get("/model/validation")
    if validation is not None and len(validation) and has(validation, "case", "published_GBps", "model_GBps"):
        rows = [[r["case"], r.get("role", "-"), r["published_GBps"], r["model_GBps"], r.get("error_pct", float("nan"))]
                for r in validation.rows()]
        out.append(Summary("model_validation", "model: validation against published figures",
                           [("case", ""), ("role", ""), ("published", "GB/s"), ("model", "GB/s"), ("error", "%")], rows))
    return out


def has(table, *names):
    return all(n in table for n in names)


def run_label(model_runs, run_id, placements, i):
    cluster = placements["cluster"][i] if "cluster" in placements else "?"
    gpus = int(placements["gpus"][i]) if "gpus" in placements else 0
    return f"{cluster}/{gpus}gpu/{run_id[:8]}"


# ---------------------------------------------------------------------------------------------
# Plots


def size_label(value, _pos=None):
    for unit, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= factor:
            return f"{value / factor:g}{unit}"
    return f"{value:g}"


def series(points):
    """Points grouped into curves: (collective, algorithm, N, hosts) -> list sorted by size."""
    curves = OrderedDict()
    for p in sorted(points, key=lambda p: (p["collective"], p["algorithm"], p["world_size"], p["hosts"], p["dtype"],
                                           p["bytes"])):
        curves.setdefault((p["collective"], p["algorithm"], p["world_size"], p["hosts"], p["dtype"]), []).append(p)
    return curves


def curve_label(key, show_collective):
    collective, algorithm, n, nhosts, dtype = key
    text = f"{algorithm} N={n}" + (f" on {nhosts} hosts" if nhosts > 1 else "") + f" {dtype}"
    return f"{collective} {text}" if show_collective else text


def plot_measurements(plt, points, directory):
    written = []
    if not points:
        return written
    from matplotlib.ticker import FuncFormatter

    curves = series(points)
    collectives = list(OrderedDict.fromkeys(k[0] for k in curves))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    # busbw vs size, with the link bound of the same run as a dashed line of the same colour.
    fig, axes = plt.subplots(1, len(collectives), figsize=(7 * len(collectives), 4.8), squeeze=False)
    for ax, collective in zip(axes[0], collectives):
        for c, (key, pts) in enumerate((k, v) for k, v in curves.items() if k[0] == collective):
            x = [p["bytes"] for p in pts]
            color = colors[c % len(colors)]
            ax.plot(x, [p["busbw_GBps"] for p in pts], "o-", color=color, label=curve_label(key, False))
            ax.plot(x, [p["bound_busbw_GBps"] for p in pts], "--", color=color, alpha=0.6,
                    label=f"link bound ({curve_label(key, False)})")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(size_label))
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("busbw (GB/s, 1e9 B/s)")
        ax.set_title(f"{collective}: bus bandwidth vs size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(save(fig, plt, directory, "busbw_vs_size.png"))

    # latency vs size, log-log
    fig, axes = plt.subplots(1, len(collectives), figsize=(7 * len(collectives), 4.8), squeeze=False)
    for ax, collective in zip(axes[0], collectives):
        for key, pts in ((k, v) for k, v in curves.items() if k[0] == collective):
            ax.plot([p["bytes"] for p in pts], [p["t_avg_us"] for p in pts], "o-", label=curve_label(key, False))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(size_label))
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("latency, mean over ranks (us)")
        ax.set_title(f"{collective}: latency vs size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(save(fig, plt, directory, "latency_vs_size.png"))

    # scaling with world size: busbw at the largest common size, latency at the smallest
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    plotted = False
    for collective, algorithm, nhosts in OrderedDict.fromkeys((k[0], k[1], k[3]) for k in curves):
        mine = [p for p in points if (p["collective"], p["algorithm"], p["hosts"]) == (collective, algorithm, nhosts)]
        by_n = {}
        for p in mine:
            by_n.setdefault(p["world_size"], {})[p["bytes"]] = p
        common = set.intersection(*(set(v) for v in by_n.values()))
        if not common:
            continue
        ns = sorted(by_n)
        large, small = max(common), min(common)
        label = f"{collective} {algorithm}" + (f" ({nhosts} hosts)" if nhosts > 1 else "")
        left.plot(ns, [by_n[n][large]["busbw_GBps"] for n in ns], "o-", label=f"{label} at {size_label(large)}B")
        right.plot(ns, [by_n[n][small]["t_avg_us"] for n in ns], "o-", label=f"{label} at {size_label(small)}B")
        plotted = True
    if plotted:
        left.set_xlabel("world size N (ranks)")
        left.set_ylabel("busbw (GB/s)")
        left.set_title("scaling: bus bandwidth at the largest size")
        right.set_xlabel("world size N (ranks)")
        right.set_ylabel("latency (us)")
        right.set_title("scaling: latency at the smallest size")
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        written.append(save(fig, plt, directory, "scaling.png"))
    else:
        plt.close(fig)
    return written


def plot_model(plt, tables, directory):
    written = []
    collectives = tables.get("/model/collectives")
    if collectives is not None and len(collectives) and has(collectives, "cluster", "op", "algorithm", "bytes",
                                                            "busbw_GBps"):
        from matplotlib.ticker import FuncFormatter

        groups = OrderedDict.fromkeys(zip(collectives["cluster"], collectives["op"]))
        fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 4.5), squeeze=False)
        for ax, (cluster, op) in zip(axes[0], groups):
            sel = collectives.select((collectives["cluster"] == cluster) & (collectives["op"] == op))
            for algorithm in OrderedDict.fromkeys(sel["algorithm"]):
                mask = (sel["algorithm"] == algorithm) & np.isfinite(sel["busbw_GBps"].astype(float))
                if "applicable" in sel:
                    mask &= sel["applicable"] == 1
                if not mask.any():
                    continue
                x = sel["bytes"][mask].astype(float)
                order = np.argsort(x)
                ax.plot(x[order], sel["busbw_GBps"][mask].astype(float)[order], "o-", label=algorithm)
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(size_label))
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel("modelled busbw (GB/s)")
            ax.set_title(f"model: {op} on {cluster}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        written.append(save(fig, plt, directory, "model_collectives.png"))

    placements = tables.get("/model/placements")
    if placements is not None and len(placements) and has(placements, "run_id", "step_comm_us", "tp", "pp", "dp"):
        sweeps = list(OrderedDict.fromkeys(placements["run_id"]))
        fig, axes = plt.subplots(len(sweeps), 2, figsize=(14, 4.5 * len(sweeps)), squeeze=False)
        for (heat, bars), run_id in zip(axes, sweeps):
            sel = placements.select(placements["run_id"] == run_id)
            title = run_label(tables.get("/model/runs"), run_id, sel, 0)
            # heatmap: best (over rank orders and dp) step communication time per TP x PP
            tps, pps = sorted(set(int(v) for v in sel["tp"])), sorted(set(int(v) for v in sel["pp"]))
            grid = np.full((len(pps), len(tps)), np.nan)
            for tp, pp, t in zip(sel["tp"], sel["pp"], sel["step_comm_us"]):
                i, j = pps.index(int(pp)), tps.index(int(tp))
                grid[i, j] = t / 1e3 if np.isnan(grid[i, j]) else min(grid[i, j], t / 1e3)
            image = heat.imshow(grid, origin="lower", cmap="YlGnBu", aspect="auto")
            heat.set_xticks(range(len(tps)), [str(t) for t in tps])
            heat.set_yticks(range(len(pps)), [str(p) for p in pps])
            heat.set_xlabel("TP")
            heat.set_ylabel("PP")
            for i in range(len(pps)):
                for j in range(len(tps)):
                    if not np.isnan(grid[i, j]):
                        heat.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center", fontsize=7, color="k")
            fig.colorbar(image, ax=heat, label="best step communication (ms)")
            heat.set_title(f"{title}: best per TP x PP (DP = rest)")
            # ranked bars: the 15 best placements
            best = np.argsort(sel["step_comm_us"], kind="stable")[:15]
            labels = [f"tp{int(sel['tp'][i])} pp{int(sel['pp'][i])} dp{int(sel['dp'][i])}"
                      + (f" {sel['order'][i]}" if "order" in sel else "") for i in best]
            bars.barh(range(len(best)), sel["step_comm_us"][best] / 1e3, color="tab:blue")
            bars.set_yticks(range(len(best)), labels, fontsize=7)
            bars.invert_yaxis()
            bars.set_xlabel("step communication time (ms), no overlap")
            bars.set_title(f"{title}: ranked placements")
            bars.grid(True, axis="x", alpha=0.3)
        fig.tight_layout()
        written.append(save(fig, plt, directory, "model_placements.png"))
    return written


def save(fig, plt, directory, name):
    path = os.path.join(directory, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ringbench-analyze", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="ringbench results files (HDF5)")
    parser.add_argument("--csv", metavar="DIR", help="write every table as CSV into DIR")
    parser.add_argument("--plots", metavar="DIR", help="write PNG plots into DIR")
    parser.add_argument("--collective", action="append", help="only this collective (repeatable)")
    parser.add_argument("--algorithm", action="append", help="only this algorithm (repeatable)")
    args = parser.parse_args(argv)

    missing = [p for p in args.files if not os.path.isfile(p)]
    if missing:
        print(f"ringbench-analyze: error: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        tables = load(args.files)
    except ResultsError as e:
        print(f"ringbench-analyze: error: {e}", file=sys.stderr)
        return 2

    results, runs = tables.get("/results"), tables.get("/runs")
    if results is not None and args.collective:
        results = results.select(np.isin(results["collective"], args.collective))
    if results is not None and args.algorithm:
        results = results.select(np.isin(results["algorithm"], args.algorithm))
    summaries, points = [], []
    if results is not None and len(results):
        summaries, points = measurement_tables(results, runs)
        summaries.append(scaling_table(points))
    if runs is not None and len(runs):
        summaries.insert(0, runs_table(runs))
    summaries += model_tables(tables)
    if not points and not any(s.name.startswith("model") for s in summaries):
        print("ringbench-analyze: error: no /results rows and no /model tables in the file(s)", file=sys.stderr)
        return 2

    out = sys.stdout
    print(f"# ringbench-analyze: {len(args.files)} file(s): "
          + ", ".join(f"{path} {len(t)} rows" for path, t in sorted(tables.items())), file=out)
    for s in summaries:
        s.print(out)

    if args.csv:
        os.makedirs(args.csv, exist_ok=True)
        written = [s.write_csv(args.csv) for s in summaries]
        for path, table in sorted(tables.items()):
            name = "raw_" + path.strip("/").replace("/", "_")
            file = os.path.join(args.csv, f"{name}.csv")
            with open(file, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(table.names)
                for i in range(len(table)):
                    writer.writerow([csv_value(table[n][i]) for n in table.names])
            written.append(file)
        print(f"#\n# csv: {len(written)} file(s) in {args.csv}", file=out)
    if args.plots:
        os.environ.setdefault("MPLBACKEND", "Agg")
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        os.makedirs(args.plots, exist_ok=True)
        written = plot_measurements(plt, points, args.plots) + plot_model(plt, tables, args.plots)
        print(f"# plots: {', '.join(os.path.basename(p) for p in written)} in {args.plots}", file=out)
    return 0


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main())
