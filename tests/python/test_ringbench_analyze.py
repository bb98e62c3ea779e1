"""scripts/ringbench_analyze.py: the figures it computes (medians over runs, the link-bound busbw,
byte ranges, scaling), the tables it prints and writes as CSV, the PNGs, and its error exits."""

import csv
import math
import os

import h5py
import numpy as np
import pytest

import ringbench_analyze as ra
import ringbench_results as rr
from results_factory import new_run_id, write_results_file


def ring_rows(run_id, world_size, sizes, **values):
    rows = []
    for size in sizes:
        row = dict(run_id=run_id, world_size=world_size, bytes=size, count=size // 4, sent_min_bytes=size,
                   sent_max_bytes=size, bound_bytes=float(size))
        row.update(values)
        rows.append(row)
    return rows


@pytest.fixture
def measured(tmp_path):
    return measured_files(tmp_path)


def measured_files(tmp_path):
    """Three N=2 runs of the same configuration (ring at 8 and 1024 B, tree at 1024 B), one N=3 run
    with one more size, and one N=4 run on two hosts, spread over two files."""
    runs2 = [new_run_id() for _ in range(3)]
    run3, run4 = new_run_id(), new_run_id()
    results = []
    # At 1024 B the three N=2 runs differ: medians are t 20, busbw 2, link 16, efficiency 0.8.
    for run_id, t, busbw, link, eff, sent_min, sent_max in zip(runs2, (10.0, 20.0, 60.0), (4.0, 2.0, 1.0),
                                                               (8.0, 16.0, 30.0), (0.8, 0.8, 0.5),
                                                               (1024, 1000, 1024), (1024, 1024, 1030)):
        results += ring_rows(run_id, 2, [8], t_avg_us=5.0, busbw_GBps=0.001, link_bound_us=4.0, efficiency=0.8)
        results += ring_rows(run_id, 2, [1024], t_avg_us=t, busbw_GBps=busbw, link_bound_us=link, efficiency=eff,
                             sent_min_bytes=sent_min, sent_max_bytes=sent_max)
    # tree: one run counted wrong bytes; verification was off everywhere.
    for run_id, formula_ok in zip(runs2, (1, 0, 1)):
        results += ring_rows(run_id, 2, [1024], algorithm="tree", chosen_algorithm="tree", formula_ok=formula_ok,
                             verified=-1, bound_bytes=1024.0, sent_min_bytes=2048, sent_max_bytes=2048)
    first = write_results_file(str(tmp_path / "first.h5"), runs=[dict(run_id=r, hosts="vm") for r in runs2],
                               results=results)
    second = write_results_file(
        str(tmp_path / "second.h5"),
        runs=[dict(run_id=run3, world_size=3, hosts="vm"), dict(run_id=run4, world_size=4, hosts="h1,h2")],
        results=ring_rows(run3, 3, [8, 1024, 4096], t_avg_us=7.0, busbw_GBps=3.0, link_bound_us=6.0, efficiency=0.9)
        + ring_rows(run4, 4, [8, 1024], t_avg_us=9.0, busbw_GBps=1.5, link_bound_us=0.0, efficiency=float("nan")))
    return dict(files=[first, second], runs2=runs2, run3=run3, run4=run4)


def points_by_key(points):
    return {(p["algorithm"], p["world_size"], p["hosts"], p["bytes"]): p for p in points}


def test_medians_over_runs_and_the_link_bound_busbw(measured):
    tables = rr.load(measured["files"], log=None)
    summaries, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    p = points_by_key(points)[("ring", 2, 1, 1024)]
    assert p["runs"] == 3
    assert p["t_avg_us"] == 20.0
    assert p["busbw_GBps"] == 2.0
    assert p["efficiency"] == 0.8
    # busbw at the link bound: the same bytes in 16 us instead of 20 us.
    assert p["bound_busbw_GBps"] == pytest.approx(2.0 * 20.0 / 16.0)
    assert (p["sent_min"], p["sent_max"]) == (1000, 1030)
    assert p["sent_over_bound"] == pytest.approx(1030 / 1024)
    assert p["formula_ok"] is True and p["verified"] == 1
    assert [s.name for s in summaries] == ["allreduce_ring", "allreduce_tree"]


def test_a_wrong_formula_in_any_run_shows_and_verification_off_is_off(measured):
    tables = rr.load(measured["files"], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    tree = points_by_key(points)[("tree", 2, 1, 1024)]
    assert tree["formula_ok"] is False
    assert tree["verified"] == -1
    assert tree["sent_over_bound"] == 2.0


def test_hosts_split_configurations_and_a_missing_link_bound_gives_nan(measured):
    tables = rr.load(measured["files"], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    keys = points_by_key(points)
    assert ("ring", 4, 2, 1024) in keys and ("ring", 4, 1, 1024) not in keys
    assert math.isnan(keys[("ring", 4, 2, 1024)]["bound_busbw_GBps"])  # link_bound_us 0: no bound
    assert math.isnan(keys[("ring", 4, 2, 1024)]["efficiency"])


def test_scaling_uses_the_largest_and_smallest_size_every_world_size_has(measured):
    tables = rr.load(measured["files"], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    scaling = ra.scaling_table(points)
    rows = {(r[1], r[2], r[3]): r for r in scaling.rows}
    # N=2 and N=3 on one host share 8 and 1024 (4096 only at N=3): large 1024, small 8.
    assert rows[("ring", 2, 1)][4:9] == [1024, 2.0, 0.8, 8, 5.0]
    assert rows[("ring", 3, 1)][4:9] == [1024, 3.0, 0.9, 8, 7.0]
    assert math.isnan(rows[("ring", 3, 1)][9])  # t_median: schema-1 rows have none
    assert rows[("ring", 4, 2)][4] == 1024 and rows[("ring", 4, 2)][5] == 1.5


def test_host_counts_count_distinct_names():
    runs = rr.Table("/runs", ["run_id", "hosts"], {"run_id": np.array(["a", "b", "c"], dtype=object),
                                                   "hosts": np.array(["vm", "n1,n2,n3", ""], dtype=object)})
    assert ra.host_counts(runs) == {"a": 1, "b": 3, "c": 0}
    assert ra.host_counts(None) == {}


@pytest.mark.parametrize("value, text", [
    (None, "-"), (True, "yes"), (np.bool_(False), "NO"), (float("nan"), "N/A"), (0.0, "0"), (1500.4, "1500"),
    (2.5, "2.50"), (0.012345, "0.0123"), (-3.25, "-3.25"), (7, "7"), ("ok", "ok")])
def test_format_value(value, text):
    assert ra.format_value(value) == text


def test_printed_columns_scale_and_name_values_but_csv_keeps_them():
    efficiency = ra.Column("efficiency", unit="%", scale=100)
    assert efficiency.printed(0.8) == "80.00" and efficiency.printed(float("nan")) == "N/A"
    assert ra.Column("step_comm_us", "step_comm", "ms", scale=1e-3).printed(2500.0) == "2.50"
    verified = ra.Column("verified", text=ra.VERIFIED_TEXT.get)
    assert [verified.printed(v) for v in (1, 0, -1)] == ["yes", "NO", "off"]
    assert ra.Column("bytes", "size", "B").printed(np.uint64(1024)) == "1024"


def test_csv_values():
    assert ra.csv_value(None) == ""
    assert ra.csv_value(np.bool_(True)) == 1
    assert ra.csv_value(float("nan")) == ""
    assert ra.csv_value(np.float64(0.1)) == "0.1"
    assert ra.csv_value(np.int64(5)) == 5 and isinstance(ra.csv_value(np.uint64(5)), int)


def test_nanmedian_ignores_nan():
    assert ra.nanmedian([1.0, float("nan"), 3.0, 10.0]) == 3.0
    assert math.isnan(ra.nanmedian([float("nan")]))
    assert math.isnan(ra.nanmedian([]))


def number_rows(printed, title_start):
    """The non-'#' lines of the printed table whose title starts with title_start."""
    lines = printed.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"# {title_start}"))
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("#") and rows:
            break
        if not line.startswith("#"):
            rows.append(line.split())
    return rows


def test_main_prints_the_tables_and_writes_csv(measured, tmp_path, capsys):
    out = tmp_path / "csv"
    assert ra.main(["--csv", str(out)] + measured["files"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# ringbench-analyze: 2 file(s): /results 14 rows, /runs 5 rows")
    ring = number_rows(printed, "ring allreduce")
    # t_median N/A: these are schema-1 rows; efficiency printed in %.
    assert ["2", "1", "float32", "1024", "3", "20.00", "N/A", "2.00", "2.50", "80.00", "1000", "1030", "1024", "1.01",
            "ok", "yes"] in ring
    assert len(ring) == 2 + 3 + 2  # N=2: 2 sizes, N=3: 3, N=4: 2
    tree = number_rows(printed, "tree allreduce")
    assert tree == [["2", "1", "float32", "1024", "3", "100.00", "N/A", "0.0100", "0.0125", "80.00", "2048", "2048",
                     "1024", "2.00", "WRONG", "off"]]
    runs = number_rows(printed, "runs")
    assert sorted(r[0] for r in runs) == sorted(measured["runs2"] + [measured["run3"], measured["run4"]])
    # CSV: every printed table and every raw table.
    names = sorted(os.listdir(out))
    assert names == ["allreduce_ring.csv", "allreduce_tree.csv", "raw_results.csv", "raw_runs.csv", "runs.csv",
                     "scaling.csv"]
    with open(out / "allreduce_ring.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # Column names are the HDF5 names wherever the column is one of its columns.
    assert list(rows[0]) == ["world_size", "host_count", "dtype", "bytes", "runs", "t_avg_us", "t_median_us",
                             "busbw_GBps", "bound_busbw_GBps", "efficiency", "sent_min_bytes", "sent_max_bytes", "bound_bytes",
                             "sent_over_bound", "formula_ok", "verified"]
    with h5py.File(measured["files"][0], "r") as f:
        hdf5_names = set(f["/results"].dtype.names) | set(f["/runs"].dtype.names)
    # The rest are the summary's own (the host count is not /runs' host names, so not "hosts").
    assert set(rows[0]) - hdf5_names == {"host_count", "runs", "t_median_us", "bound_busbw_GBps", "sent_over_bound"}
    row = next(r for r in rows if r["world_size"] == "2" and r["bytes"] == "1024")
    assert float(row["bound_busbw_GBps"]) == 2.5 and row["verified"] == "1" and row["formula_ok"] == "1"
    assert row["efficiency"] == "0.8" and row["t_median_us"] == ""  # a fraction, as in HDF5; NaN as empty
    n4 = next(r for r in rows if r["world_size"] == "4" and r["bytes"] == "1024")
    assert n4["host_count"] == "2" and n4["bound_busbw_GBps"] == "" and n4["efficiency"] == ""
    with open(out / "allreduce_tree.csv", newline="") as f:
        tree_csv = list(csv.DictReader(f))
    assert [(r["formula_ok"], r["verified"]) for r in tree_csv] == [("0", "-1")]
    with open(out / "scaling.csv", newline="") as f:
        scaling = list(csv.DictReader(f))
    assert list(scaling[0]) == ["collective", "algorithm", "world_size", "host_count", "large_bytes", "busbw_GBps",
                                "efficiency", "small_bytes", "t_avg_us", "t_median_us"]
    assert {r["efficiency"] for r in scaling if r["world_size"] == "3"} == {"0.9"}
    with open(out / "runs.csv", newline="") as f:
        assert list(next(csv.DictReader(f))) == ["run_id", "start_utc", "world_size", "hosts", "interface",
                                                 "exit_status"]
    with open(out / "raw_results.csv", newline="") as f:
        raw = list(csv.DictReader(f))
    assert len(raw) == 14 and raw[0]["collective"] == "allreduce"
    assert list(raw[0]) == list(hdf5_names_in_order(measured["files"][0], "/results"))


def hdf5_names_in_order(path, table):
    with h5py.File(path, "r") as f:
        return f[table].dtype.names


def test_printed_efficiency_is_percent_and_scaling_too(measured, capsys):
    assert ra.main(measured["files"]) == 0
    printed = capsys.readouterr().out
    scaling = number_rows(printed, "scaling with world size")
    assert ["allreduce", "ring", "3", "1", "1024", "3.00", "90.00", "8", "7.00", "N/A"] in scaling
    assert "(%)" in printed


def test_main_filters_by_collective_and_algorithm(measured, capsys):
    assert ra.main(["--algorithm", "tree"] + measured["files"]) == 0
    printed = capsys.readouterr().out
    assert "tree allreduce" in printed and "ring allreduce" not in printed
    assert ra.main(["--collective", "broadcast"] + measured["files"]) == 2
    assert "no /results rows and no /model tables" in capsys.readouterr().err


def test_main_plots_decodable_pngs(measured, tmp_path, capsys):
    import matplotlib.image as mpimg

    plots = tmp_path / "plots"
    assert ra.main(["--plots", str(plots)] + measured["files"]) == 0
    assert "# plots: busbw_vs_size.png, latency_vs_size.png, scaling.png" in capsys.readouterr().out
    for name in ("busbw_vs_size.png", "latency_vs_size.png", "scaling.png"):
        image = mpimg.imread(plots / name)
        assert image.shape[0] > 300 and image.shape[1] > 400
        assert distinct_colours(image) > 20, f"{name} looks blank"


def distinct_colours(image):
    """Distinct RGBA values of a decoded PNG (each packed into one integer: fast to count)."""
    pixels = (image.reshape(-1, image.shape[-1]) * 255).astype(np.uint64)
    packed = sum(pixels[:, i] << np.uint64(8 * i) for i in range(pixels.shape[1]))
    return len(np.unique(packed))


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    """The figures of `measured`, drawn once for the tests that only look at them."""
    import matplotlib.pyplot as plt

    tables = rr.load(measured_files(tmp_path_factory.mktemp("figures"))["files"], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    made = ra.measurement_figures(plt, points, tables["/runs"])
    for fig in made.values():
        fig.canvas.draw()  # tick labels exist once drawn
    yield made
    plt.close("all")


def labels(ticks):
    return [t.get_text() for t in ticks if t.get_text()]


def visible(axis, which="major"):
    """The tick labels an axis shows inside its limits."""
    low, high = sorted(axis.get_view_interval())
    ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
    return [t.label1.get_text() for t in ticks if low <= t.get_loc() <= high and t.label1.get_text()]


def test_plots_label_sizes_in_binary_units(figures):
    for name in ("busbw_vs_size.png", "latency_vs_size.png"):
        ax = figures[name].axes[0]
        # 8 B to 4 KiB is 9 octaves: a tick at every power of two.
        assert visible(ax.xaxis) == ["8 B", "16 B", "32 B", "64 B", "128 B", "256 B", "512 B", "1 KiB", "2 KiB",
                                     "4 KiB"]
        assert "KiB" in ax.get_xlabel() and "KB" not in " ".join(visible(ax.xaxis))


def test_size_axis_thins_ticks_to_at_most_twelve_powers_of_two():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 4 << 20], [1, 2])
    ra.size_axis(ax, [1, 4 << 20])
    fig.canvas.draw()
    assert visible(ax.xaxis) == ["1 B", "4 B", "16 B", "64 B", "256 B", "1 KiB", "4 KiB", "16 KiB", "64 KiB",
                                 "256 KiB", "1 MiB", "4 MiB"]
    plt.close(fig)


def test_latency_axis_labels_every_decade(figures):
    import matplotlib.pyplot as plt

    ax = figures["latency_vs_size.png"].axes[0]
    assert ax.get_yscale() == "log"
    low, high = sorted(ax.get_ylim())
    decades = [10.0 ** k for k in range(-3, 9) if low <= 10.0 ** k <= high]
    assert visible(ax.yaxis) == [ra.number_label(d) for d in decades]
    # The data (5 to 100 us) span under three decades: 2 and 5 between decades are labelled too.
    assert {"20", "50"} <= set(visible(ax.yaxis, "minor"))
    # Over many decades every decade is labelled and the minor ticks are not.
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1.0, 3e6])
    ax.set_yscale("log")
    ra.decade_axis(ax.yaxis, [1.0, 3e6])
    fig.canvas.draw()
    assert visible(ax.yaxis) == ["1", "10", "100", "1,000", "10,000", "100,000", "$10^{6}$"]
    assert visible(ax.yaxis, "minor") == []
    plt.close(fig)


def test_busbw_plot_has_one_link_bound_per_configuration_not_per_algorithm(figures):
    ax = figures["busbw_vs_size.png"].axes[0]
    entries = labels(ax.get_legend().get_texts())
    # ring and tree at N=2, 3 and 4 (4 on two hosts): one curve each, and one link bound per
    # configuration whose bound is known (N=4's link_bound_us is 0: none).
    bounds = [e for e in entries if e.startswith("link bound")]
    assert bounds == ["link bound N=2 1 host", "link bound N=3 1 host"]
    assert sorted(e for e in entries if not e.startswith("link bound")) == [
        "ring N=2 1 host", "ring N=3 1 host", "ring N=4 2 hosts", "tree N=2 1 host"]


def test_labels_leave_out_what_every_curve_shares(tmp_path):
    import matplotlib.pyplot as plt

    run = new_run_id()
    rows = ring_rows(run, 2, [8, 1024], link_bound_us=4.0) + ring_rows(run, 2, [8, 1024], algorithm="tree")
    path = write_results_file(str(tmp_path / "a.h5"), runs=[dict(run_id=run, hosts="nodeA",
                                                                start_utc="2026-03-04T05:06:07Z")], results=rows)
    tables = rr.load([path], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    made = ra.measurement_figures(plt, points, tables["/runs"])
    assert sorted(made) == ["busbw_vs_size.png", "latency_vs_size.png"]  # one N: no scaling plot
    fig = made["busbw_vs_size.png"]
    assert labels(fig.axes[0].get_legend().get_texts()) == ["ring", "tree", "link bound"]
    assert fig._suptitle.get_text() == "ringbench: N=2 on 1 host (nodeA), float32, 2026-03-04 (1 run)"
    plt.close("all")


def test_title_says_world_sizes_hosts_dtype_dates_and_runs(figures):
    title = figures["busbw_vs_size.png"]._suptitle.get_text()
    assert title == "ringbench: N=2,3,4 on 1/2 hosts, float32, 2025-01-01 (medians over 5 runs)"
    assert figures["scaling.png"]._suptitle.get_text() == title


@pytest.fixture
def model_file(tmp_path):
    sweep = new_run_id()
    placements = [dict(run_id=sweep, tp=tp, pp=pp, dp=16 // (tp * pp), step_comm_us=t)
                  for tp, pp, t in ((8, 1, 4000.0), (4, 2, 2000.0), (2, 1, 8000.0), (1, 1, 16000.0), (2, 2, 3000.0),
                                    (4, 1, 5000.0), (1, 2, 9000.0))]
    collectives = [dict(run_id=sweep, algorithm="ring", time_us=50.0, busbw_GBps=40.0, best=1),
                   dict(run_id=sweep, algorithm="tree", time_us=70.0, busbw_GBps=30.0),
                   dict(run_id=sweep, algorithm="nvls", applicable=0, time_us=float("inf"), busbw_GBps=0.0)]
    validation = [dict(run_id=sweep, case="dgx allreduce", published_GBps=100.0, model_GBps=90.0, error_pct=-10.0)]
    path = write_results_file(str(tmp_path / "model.h5"), model={"placements": placements,
                                                                 "collectives": collectives, "validation": validation})
    return path, sweep


def test_model_tables_rank_placements_and_mark_the_best_algorithm(model_file, capsys):
    path, sweep = model_file
    assert ra.main([path]) == 0
    printed = capsys.readouterr().out
    best = number_rows(printed, "model: the five best placements")
    label = f"dgx-h100/16gpu/{sweep[:8]}"
    # Fastest first; step_comm in ms; x_best = time / fastest.
    assert best == [[label, "1", "4", "2", "2", "tp-dp-pp", "2.00", "1.00"],
                    [label, "2", "2", "2", "4", "tp-dp-pp", "3.00", "1.50"],
                    [label, "3", "8", "1", "2", "tp-dp-pp", "4.00", "2.00"],
                    [label, "4", "4", "1", "4", "tp-dp-pp", "5.00", "2.50"],
                    [label, "5", "2", "1", "8", "tp-dp-pp", "8.00", "4.00"]]
    collectives = number_rows(printed, "model: cost of each algorithm")
    assert [r[5:] for r in collectives] == [["ring", "50.00", "40.00", "*"], ["tree", "70.00", "30.00"],
                                           ["nvls", "-", "-", "n/a"]]
    assert number_rows(printed, "model: validation") == [["dgx", "allreduce", "checked", "100.00", "90.00", "-10.00"]]


def test_model_plots(model_file, tmp_path, capsys):
    path, _ = model_file
    plots = tmp_path / "plots"
    assert ra.main(["--plots", str(plots), path]) == 0
    assert "model_collectives.png, model_placements.png" in capsys.readouterr().out
    assert sorted(os.listdir(plots)) == ["model_collectives.png", "model_placements.png"]


def test_main_error_exits(tmp_path, capsys):
    assert ra.main([str(tmp_path / "missing.h5")]) == 2
    assert capsys.readouterr().err == f"ringbench-analyze: error: {tmp_path / 'missing.h5'}: no such file\n"
    assert ra.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"ringbench-analyze: error: {tmp_path}: is a directory\n"
    bare = write_results_file(str(tmp_path / "bare.h5"))
    assert ra.main([bare]) == 2
    assert capsys.readouterr().err == f"ringbench-analyze: error: {bare}: no /runs table, so not a file ringbench or " \
                                      "topomodel wrote\n"
    (tmp_path / "text.h5").write_text("x")
    assert ra.main([str(tmp_path / "text.h5")]) == 2
    assert "text.h5: cannot open as HDF5" in capsys.readouterr().err
    only_runs = write_results_file(str(tmp_path / "runs.h5"), runs=[dict(run_id=new_run_id())])
    assert ra.main([only_runs]) == 2
    assert "ringbench-analyze: error: no /results rows and no /model tables" in capsys.readouterr().err


def test_summary_prints_aligned_columns_with_units():
    import io

    s = ra.Summary("t", "a title", [ra.Column("bytes", "size", "B"), ra.Column("busbw_GBps", "busbw", "GB/s")],
                   [[8, 0.5], [1048576, 12.0]])
    out = io.StringIO()
    s.print(out)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["#", "# a title"]
    assert lines[2].split() == ["#", "size", "busbw"] or lines[2].split() == ["#size", "busbw"]
    assert "(B)" in lines[3] and "(GB/s)" in lines[3]
    assert [line.split() for line in lines[4:]] == [["8", "0.5000"], ["1048576", "12.00"]]
    assert len({len(line) for line in lines[2:]}) == 1  # every line as wide: the columns line up
    empty = io.StringIO()
    ra.Summary("e", "empty", [ra.Column("x")], []).print(empty)
    assert "# (no rows)" in empty.getvalue()
