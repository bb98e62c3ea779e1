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
Printed tables show efficiency in %; everything else keeps the files' units.
--csv DIR writes every printed table and every raw table of the files as CSV; columns are named
as in the HDF5 files (bytes, busbw_GBps, t_median_us) and hold their units (efficiency a fraction).
--plots DIR writes PNGs: busbw vs size with the link bound (one per collective), latency vs size
(log-log), scaling with world size, and with /model tables the model's collective costs and the
placement sweep (heatmap of the best TP x PP, ranked bar chart of the placements).
Exit status: 0 done, 2 bad input (a directory, a file that is not a ringbench results file,
nothing to analyse).
"""

import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

import numpy as np

from ringbench_results import ResultsError, input_problem, load

# ---------------------------------------------------------------------------------------------
# Tables


class Column:
    """A column of a Summary: `name` in CSV files (the HDF5 column's name where there is one, so
    `busbw_GBps`, `bytes`), `header` and `unit` over the printed column, `scale` from the CSV value to
    the printed one (efficiency is a fraction in CSV and % printed), `text` to print a value as a word."""

    def __init__(self, name, header=None, unit="", scale=1, text=None):
        self.name, self.header, self.unit, self.scale, self.text = name, header or name, unit, scale, text

    def printed(self, value):
        if self.text is not None and value is not None:
            return self.text(value)
        if self.scale != 1 and isinstance(value, (int, float, np.integer, np.floating)) \
                and not isinstance(value, (bool, np.bool_)):
            value = float(value) * self.scale
        return format_value(value)


class Summary:
    """A printed table: a title, its Columns, rows of values (as CSV writes them)."""

    def __init__(self, name, title, columns, rows):
        self.name = name  # file-name friendly, for the CSV
        self.title = title
        self.columns = columns
        self.rows = rows

    def print(self, out):
        print(f"#\n# {self.title}", file=out)
        if not self.rows:
            print("# (no rows)", file=out)
            return
        texts = [[c.printed(v) for c, v in zip(self.columns, row)] for row in self.rows]
        widths = [max(len(c.header), len(c.unit) + 2, *(len(t[i]) for t in texts)) for i, c in enumerate(self.columns)]
        print("#" + " ".join(f"{c.header:>{w}}" for c, w in zip(self.columns, widths)), file=out)
        print("#" + " ".join(f"{'(' + c.unit + ')' if c.unit else '':>{w}}" for c, w in zip(self.columns, widths)),
              file=out)
        for t in texts:
            print(" " + " ".join(f"{v:>{w}}" for v, w in zip(t, widths)), file=out)

    def write_csv(self, directory):
        path = os.path.join(directory, f"{self.name}.csv")
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow([c.name for c in self.columns])
            for row in self.rows:
                writer.writerow([csv_value(v) for v in row])
        return path


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


def column_or_nan(table, name):
    """A float column, or NaN for every row where the files predate it (t_median_us: schema 2)."""
    return table[name].astype(float) if name in table else np.full(len(table), np.nan)


def busbw_time_us(results):
    """Each row's time its algbw and busbw come from: the median of the calls from schema 2 on, the
    mean over ranks before (and wherever the median is missing)."""
    median = column_or_nan(results, "t_median_us")
    return np.where(np.isnan(median), results["t_avg_us"].astype(float), median)


FRACTION_AS_PERCENT = dict(unit="%", scale=100)
VERIFIED_TEXT = {1: "yes", 0: "NO", -1: "off"}
MEASUREMENT_COLUMNS = [
    Column("world_size", "N", "ranks"), Column("host_count", "hosts"), Column("dtype"), Column("bytes", "size", "B"),
    Column("runs"), Column("t_avg_us", "t_avg", "us"), Column("t_median_us", "t_median", "us"),
    Column("busbw_GBps", "busbw", "GB/s"), Column("bound_busbw_GBps", "bound_busbw", "GB/s"),
    Column("efficiency", **FRACTION_AS_PERCENT), Column("sent_min_bytes", "sent_min", "B/rank"),
    Column("sent_max_bytes", "sent_max", "B/rank"), Column("bound_bytes", "bound", "B/rank"),
    Column("sent_over_bound", "sent/bound"), Column("formula_ok", "formula", text=lambda v: "ok" if v else "WRONG"),
    Column("verified", text=VERIFIED_TEXT.get)]


def measurement_tables(results, runs):
    """One Summary per (collective, algorithm) and the per-configuration data the plots use."""
    groups = measurement_groups(results, runs)
    t_busbw = busbw_time_us(results)
    t_median = column_or_nan(results, "t_median_us")
    link_us = results["link_bound_us"].astype(float)
    busbw_all = results["busbw_GBps"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        # busbw the link bound allows: the same bytes in link_bound_us instead of the row's time.
        bound_busbw_all = np.where(link_us > 0, busbw_all * t_busbw / link_us, np.nan)
    points = []  # dicts, one per group, for plots and scaling
    for (collective, algorithm, n, nhosts, dtype, size), idx in groups.items():
        idx = np.array(idx)
        bound = nanmedian(results["bound_bytes"][idx])
        sent_min = int(results["sent_min_bytes"][idx].min())
        sent_max = int(results["sent_max_bytes"][idx].max())
        verified = results["verified"][idx]
        points.append(dict(collective=collective, algorithm=algorithm, world_size=n, hosts=nhosts, dtype=dtype, bytes=size,
                           run_ids=sorted(set(results["run_id"][idx])), runs=len(set(results["run_id"][idx])),
                           t_avg_us=nanmedian(results["t_avg_us"][idx]),
                           t_median_us=nanmedian(t_median[idx]), t_us=nanmedian(t_busbw[idx]),
                           busbw_GBps=nanmedian(busbw_all[idx]), bound_busbw_GBps=nanmedian(bound_busbw_all[idx]),
                           efficiency=nanmedian(results["efficiency"][idx]), sent_min=sent_min, sent_max=sent_max,
                           bound_bytes=bound, sent_over_bound=sent_max / bound if bound > 0 else float("nan"),
                           formula_ok=bool(np.all(results["formula_ok"][idx] == 1)),
                           verified=-1 if np.all(verified < 0) else int(np.all(verified == 1))))
    tables = []
    for collective, algorithm in OrderedDict.fromkeys((p["collective"], p["algorithm"]) for p in points):
        mine = [p for p in points if p["collective"] == collective and p["algorithm"] == algorithm]
        mine.sort(key=lambda p: (p["world_size"], p["hosts"], p["dtype"], p["bytes"]))
        rows = [[p["world_size"], p["hosts"], p["dtype"], p["bytes"], p["runs"], p["t_avg_us"],
                 p["t_median_us"], p["busbw_GBps"], p["bound_busbw_GBps"], p["efficiency"], p["sent_min"],
                 p["sent_max"], p["bound_bytes"], p["sent_over_bound"], p["formula_ok"], p["verified"]] for p in mine]
        tables.append(Summary(f"{collective}_{algorithm}",
                              f"{algorithm} {collective}: median over runs; busbw GB/s = 1e9 B/s (nccl-tests), from "
                              "t_median (t_avg in files before schema 2); bound_busbw = busbw at the link bound "
                              "measured in the same run; efficiency = link bound time / time; formula = counted "
                              "bytes equal the algorithm's formula",
                              MEASUREMENT_COLUMNS, rows))
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
                         at_small["t_avg_us"], at_small["t_median_us"]])
    return Summary("scaling", "scaling with world size: busbw at the largest size every N has, latency at the smallest",
                   [Column("collective"), Column("algorithm"), Column("world_size", "N", "ranks"),
                    Column("host_count", "hosts"),
                    Column("large_bytes", "large", "B"), Column("busbw_GBps", "busbw", "GB/s"),
                    Column("efficiency", **FRACTION_AS_PERCENT), Column("small_bytes", "small", "B"),
                    Column("t_avg_us", "t_avg", "us"), Column("t_median_us", "t_median", "us")], rows)


def runs_table(runs):
    rows = []
    for r in runs.rows():
        rows.append([r["run_id"], r["start_utc"], r["world_size"], r["hosts"], r["interface"], r["exit_status"]])
    return Summary("runs", "runs", [Column("run_id"), Column("start_utc", "start", "UTC"),
                                    Column("world_size", "N", "ranks"), Column("hosts"), Column("interface"),
                                    Column("exit_status")], rows)


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
                             float(sel["step_comm_us"][i]), float(sel["step_comm_us"][i]) / fastest])
        out.append(Summary("model_best_placements", "model: the five best placements of each sweep (step "
                           "communication time, no overlap)",
                           [Column("sweep"), Column("rank"), Column("tp"), Column("pp"), Column("dp"),
                            Column("order", unit="inner first"), Column("step_comm_us", "step_comm", "ms", scale=1e-3),
                            Column("x_best")], rows))
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
                           [Column("cluster"), Column("gpus"), Column("op"), Column("placement"),
                            Column("bytes", unit="B"), Column("algorithm"), Column("time_us", "time", "us"),
                            Column("busbw_GBps", "busbw", "GB/s"), Column("best")], rows))
    validation = tables.get("/model/validation")
    if validation is not None and len(validation) and has(validation, "case", "published_GBps", "model_GBps"):
        rows = [[r["case"], r.get("role", "-"), r["published_GBps"], r["model_GBps"], r.get("error_pct", float("nan"))]
                for r in validation.rows()]
        out.append(Summary("model_validation", "model: validation against published figures",
                           [Column("case"), Column("role"), Column("published_GBps", "published", "GB/s"),
                            Column("model_GBps", "model", "GB/s"), Column("error_pct", "error", "%")], rows))
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
    """Bytes in binary units, as ringbench's -m takes them: 512 B, 4 KiB, 1 MiB, 2 GiB."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= factor:
            return f"{value / factor:g} {unit}"
    return f"{value:g} B"


def number_label(value, _pos=None):
    """A log axis' tick as a plain number (0.5, 20, 1000, 20,000); 10^n from a million on."""
    if value >= 1e6:
        return f"$10^{{{math.log10(value):.0f}}}$" if math.log10(value).is_integer() else f"{value:.0e}"
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def size_axis(ax, sizes):
    """A log2 axis of message sizes: a labelled tick at every power of 2, or every 2nd, 4th, ... power
    so that at most 12 show (the others unlabelled), all in binary units."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ax.set_xscale("log", base=2)
    low, high = (int(math.floor(math.log2(min(sizes)))), int(math.ceil(math.log2(max(sizes))))) if sizes else (0, 1)
    stride = 1
    while (high - low) // stride + 1 > 12:
        stride *= 2
    ax.xaxis.set_major_locator(FixedLocator([2.0 ** k for k in range(low - low % stride, high + 1, stride)]))
    ax.xaxis.set_minor_locator(FixedLocator([2.0 ** k for k in range(low, high + 1) if k % stride]))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(size_label))
    ax.set_xlim(2.0 ** low / 1.2, 2.0 ** high * 1.2)
    ax.tick_params(axis="x", labelsize=8)


def decade_axis(axis, values):
    """A log10 axis with a labelled tick at every decade, and at 2 and 5 between them when the data
    span under three decades (else the labels would crowd)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    values = [v for v in values if v > 0 and math.isfinite(v)]
    span = math.log10(max(values) / min(values)) if values else 0
    axis.set_major_locator(LogLocator(base=10, subs=(1.0,), numticks=100))
    axis.set_major_formatter(FuncFormatter(number_label))
    if span < 3:
        axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0), numticks=100))
        axis.set_minor_formatter(FuncFormatter(number_label))
    else:
        axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10)), numticks=100))
        axis.set_minor_formatter(NullFormatter())


def series(points):
    """Points grouped into curves: (collective, algorithm, N, hosts, dtype) -> list sorted by size."""
    curves = OrderedDict()
    for p in sorted(points, key=lambda p: (p["collective"], p["algorithm"], p["world_size"], p["hosts"], p["dtype"],
                                           p["bytes"])):
        curves.setdefault((p["collective"], p["algorithm"], p["world_size"], p["hosts"], p["dtype"]), []).append(p)
    return curves


def config_label(n, nhosts, dtype, shared):
    """The parts of a configuration that not every curve shares (those are in the title)."""
    parts = []
    if "N" not in shared:
        parts.append(f"N={n}")
    if "hosts" not in shared:
        parts.append(f"{nhosts} host{'s' if nhosts != 1 else ''}")
    if "dtype" not in shared:
        parts.append(dtype)
    return " ".join(parts)


def shared_parts(points):
    """Which of N, hosts and dtype every point has in common."""
    return {name for name, key in (("N", "world_size"), ("hosts", "hosts"), ("dtype", "dtype"))
            if len({p[key] for p in points}) == 1}


def plural(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def figure_title(points, runs):
    """What a plot shows, for its title: N, hosts (with their names when few), dtype, the dates the
    runs started, and how many runs the medians are over."""
    ns = sorted({p["world_size"] for p in points})
    dtypes = sorted({p["dtype"] for p in points})
    run_ids = sorted({r for p in points for r in p["run_ids"]})
    names, dates = set(), set()
    if runs is not None:
        for r in runs.rows():
            if r["run_id"] in run_ids:
                names.update(h for h in str(r["hosts"]).split(",") if h)
                dates.add(str(r["start_utc"])[:10])
    counts = sorted({p["hosts"] for p in points})
    if len(counts) == 1:
        hosts = plural(counts[0], "host") + (f" ({', '.join(sorted(names))})" if 0 < len(names) <= 4 else "")
    else:
        hosts = f"{'/'.join(map(str, counts))} hosts"
    dates = sorted(d for d in dates if d)
    when = dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else "undated")
    runs_text = "1 run" if len(run_ids) == 1 else f"medians over {len(run_ids)} runs"
    return f"ringbench: N={','.join(map(str, ns))} on {hosts}, {', '.join(dtypes)}, {when} ({runs_text})"


def link_bounds(points):
    """The link bound's busbw, one curve per (collective, N, hosts, dtype): the bound depends on the
    collective's bytes and the run's link, not on the algorithm, so the algorithms' values (equal up
    to their runs' link measurements) are summarised by their median."""
    bounds = OrderedDict()
    for p in sorted(points, key=lambda p: (p["collective"], p["world_size"], p["hosts"], p["dtype"], p["bytes"])):
        if math.isfinite(p["bound_busbw_GBps"]):
            key = (p["collective"], p["world_size"], p["hosts"], p["dtype"])
            bounds.setdefault(key, OrderedDict()).setdefault(p["bytes"], []).append(p["bound_busbw_GBps"])
    return OrderedDict((key, [(size, nanmedian(v)) for size, v in by_size.items()]) for key, by_size in bounds.items())


def latency_us(point):
    """The latency a plot shows: the median of the calls, or the mean where the files predate it."""
    return point["t_median_us"] if math.isfinite(point["t_median_us"]) else point["t_avg_us"]


# Curve colours: matplotlib's tab10 without its grey, which is the link bound's; past nine curves
# the colours repeat with another marker.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "D"]


def measurement_figures(plt, points, runs):
    """{file name: figure} for the measured rows: busbw and latency vs size (one panel per
    collective), and scaling with world size when several N share sizes."""
    if not points:
        return {}
    curves = series(points)
    collectives = list(OrderedDict.fromkeys(k[0] for k in curves))
    shared = shared_parts(points)
    title = figure_title(points, runs)
    dashes = [(5, 3), (2, 2), (8, 3, 2, 3), (1, 1)]
    figures = {}
    for name, what in (("busbw_vs_size.png", "busbw"), ("latency_vs_size.png", "latency")):
        fig, axes = plt.subplots(1, len(collectives), figsize=(9.5 * len(collectives), 5.2), squeeze=False)
        for ax, collective in zip(axes[0], collectives):
            mine = [(k, v) for k, v in curves.items() if k[0] == collective]
            for c, (key, pts) in enumerate(mine):
                label = " ".join(x for x in (key[1], config_label(*key[2:], shared)) if x)
                y = [p["busbw_GBps"] if what == "busbw" else latency_us(p) for p in pts]
                ax.plot([p["bytes"] for p in pts], y, "-", marker=MARKERS[c // len(COLOURS) % len(MARKERS)], ms=3.5,
                        lw=1.4, color=COLOURS[c % len(COLOURS)], label=label)
            if what == "busbw":
                for d, ((_, n, nhosts, dtype), bound) in enumerate((k, v) for k, v in link_bounds(points).items()
                                                                     if k[0] == collective):
                    extra = config_label(n, nhosts, dtype, shared)
                    ax.plot([b[0] for b in bound], [b[1] for b in bound], color="0.25", lw=1.2,
                            dashes=dashes[d % len(dashes)], label="link bound" + (f" {extra}" if extra else ""))
                ax.set_ylabel("busbw (GB/s = 1e9 B/s)")
                ax.set_ylim(bottom=0)
                ax.set_title(f"{collective}: bus bandwidth vs size")
            else:
                ax.set_yscale("log")
                decade_axis(ax.yaxis, [latency_us(p) for k, v in mine for p in v])
                ax.set_ylabel("latency per call (us)")
                ax.set_title(f"{collective}: latency vs size")
            size_axis(ax, [p["bytes"] for p in points])
            ax.set_xlabel("message size (binary units: 1 KiB = 1024 B)")
            ax.grid(True, which="major", alpha=0.35)
            ax.grid(True, which="minor", alpha=0.12)
            outside_legend(ax)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        figures[name] = fig
    scaling = scaling_figure(plt, points, curves, title)
    if scaling is not None:
        figures["scaling.png"] = scaling
    return figures


def outside_legend(ax):
    """The legend right of the plot, where it hides no curve however the data fall."""
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def scaling_figure(plt, points, curves, title):
    """busbw at the largest size every N shares, latency at the smallest; None with a single N."""
    if len({p["world_size"] for p in points}) < 2:
        return None
    from matplotlib.ticker import MaxNLocator

    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 5))
    plotted = False
    for collective, algorithm, nhosts in OrderedDict.fromkeys((k[0], k[1], k[3]) for k in curves):
        mine = [p for p in points if (p["collective"], p["algorithm"], p["hosts"]) == (collective, algorithm, nhosts)]
        by_n = {}
        for p in mine:
            by_n.setdefault(p["world_size"], {})[p["bytes"]] = p
        common = set.intersection(*(set(v) for v in by_n.values()))
        if not common or len(by_n) < 2:
            continue
        ns = sorted(by_n)
        large, small = max(common), min(common)
        label = f"{collective} {algorithm}" + (f" ({nhosts} hosts)" if nhosts > 1 else "")
        left.plot(ns, [by_n[n][large]["busbw_GBps"] for n in ns], "o-", label=f"{label} at {size_label(large)}")
        right.plot(ns, [latency_us(by_n[n][small]) for n in ns], "o-", label=f"{label} at {size_label(small)}")
        plotted = True
    if not plotted:
        plt.close(fig)
        return None
    left.set_ylabel("busbw (GB/s = 1e9 B/s)")
    left.set_ylim(bottom=0)
    left.set_title("scaling: bus bandwidth at the largest size")
    right.set_ylabel("latency per call (us)")
    right.set_ylim(bottom=0)
    right.set_title("scaling: latency at the smallest size")
    for ax in (left, right):
        ax.set_xlabel("world size N (ranks)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
        outside_legend(ax)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_measurements(plt, points, runs, directory):
    return [save(fig, plt, directory, name) for name, fig in measurement_figures(plt, points, runs).items()]


def plot_model(plt, tables, directory):
    written = []
    collectives = tables.get("/model/collectives")
    if collectives is not None and len(collectives) and has(collectives, "cluster", "op", "algorithm", "bytes",
                                                            "busbw_GBps"):
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
            size_axis(ax, [float(v) for v in sel["bytes"]])
            ax.set_xlabel("message size (binary units: 1 KiB = 1024 B)")
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

    problems = [problem for problem in map(input_problem, args.files) if problem]
    if problems:
        print(f"ringbench-analyze: error: {'; '.join(problems)}", file=sys.stderr)
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
        written = plot_measurements(plt, points, runs, args.plots) + plot_model(plt, tables, args.plots)
        print(f"# plots: {', '.join(os.path.basename(p) for p in written)} in {args.plots}", file=out)
    return 0


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main())
