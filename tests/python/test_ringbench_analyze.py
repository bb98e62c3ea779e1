"""scripts/ringbench_analyze.py: the figures it computes (medians over runs, the link-bound busbw,
byte ranges, scaling), the tables it prints and writes as CSV, the PNGs, and its error exits."""

import csv
import math
import os

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
    assert p["formula_ok"] is True and p["verified"] is True
    assert [s.name for s in summaries] == ["allreduce_ring", "allreduce_tree"]


def test_a_wrong_formula_in_any_run_shows_and_verification_off_is_off(measured):
    tables = rr.load(measured["files"], log=None)
    _, points = ra.measurement_tables(tables["/results"], tables["/runs"])
    tree = points_by_key(points)[("tree", 2, 1, 1024)]
    assert tree["formula_ok"] is False
    assert tree["verified"] == "off"
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
    assert rows[("ring", 2, 1)][4:] == [1024, 2.0, 0.8, 8, 5.0]
    assert rows[("ring", 3, 1)][4:] == [1024, 3.0, 0.9, 8, 7.0]
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


@pytest.mark.parametrize("name, unit, column", [
    ("busbw", "GB/s", "busbw_GBps"), ("sent/bound", "", "sent_over_bound"), ("N", "ranks", "N"),
    ("sent_min", "B/rank", "sent_min_B_per_rank"), ("error", "%", "error_pct"), ("order", "inner first", "order"),
    ("x", "odd unit", "x_odd_unit")])
def test_csv_column_names_carry_units_as_suffixes(name, unit, column):
    assert ra.csv_column(name, unit) == column


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
    assert ["2", "1", "float32", "1024", "3", "20.00", "2.00", "2.50", "0.8000", "1000", "1030", "1024", "1.01", "ok",
            "yes"] in ring
    assert len(ring) == 2 + 3 + 2  # N=2: 2 sizes, N=3: 3, N=4: 2
    tree = number_rows(printed, "tree allreduce")
    assert tree == [["2", "1", "float32", "1024", "3", "100.00", "0.0100", "0.0125", "0.8000", "2048", "2048", "1024",
                     "2.00", "WRONG", "off"]]
    runs = number_rows(printed, "runs")
    assert sorted(r[0] for r in runs) == sorted(measured["runs2"] + [measured["run3"], measured["run4"]])
    # CSV: every printed table and every raw table.
    names = sorted(os.listdir(out))
    assert names == ["allreduce_ring.csv", "allreduce_tree.csv", "raw_results.csv", "raw_runs.csv", "runs.csv",
                     "scaling.csv"]
    with open(out / "allreduce_ring.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["N", "hosts", "dtype", "size_B", "runs", "t_avg_us", "busbw_GBps", "bound_busbw_GBps",
                             "efficiency", "sent_min_B_per_rank", "sent_max_B_per_rank", "bound_B_per_rank",
                             "sent_over_bound", "formula", "verified"]
    row = next(r for r in rows if r["N"] == "2" and r["size_B"] == "1024")
    assert float(row["bound_busbw_GBps"]) == 2.5 and row["verified"] == "1" and row["formula"] == "ok"
    n4 = next(r for r in rows if r["N"] == "4" and r["size_B"] == "1024")
    assert n4["hosts"] == "2" and n4["bound_busbw_GBps"] == "" and n4["efficiency"] == ""  # NaN as empty
    with open(out / "raw_results.csv", newline="") as f:
        raw = list(csv.DictReader(f))
    assert len(raw) == 14 and raw[0]["collective"] == "allreduce"


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
        assert len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 20, f"{name} looks blank"


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
    assert "no such file: " in capsys.readouterr().err
    (tmp_path / "text.h5").write_text("x")
    assert ra.main([str(tmp_path / "text.h5")]) == 2
    assert "text.h5: cannot open as HDF5" in capsys.readouterr().err
    only_runs = write_results_file(str(tmp_path / "runs.h5"), runs=[dict(run_id=new_run_id())])
    assert ra.main([only_runs]) == 2
    assert "ringbench-analyze: error: no /results rows and no /model tables" in capsys.readouterr().err


def test_summary_prints_aligned_columns_with_units():
    import io

    s = ra.Summary("t", "a title", [("size", "B"), ("busbw", "GB/s")], [[8, 0.5], [1048576, 12.0]])
    out = io.StringIO()
    s.print(out)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["#", "# a title"]
    assert lines[2].split() == ["#", "size", "busbw"] or lines[2].split() == ["#size", "busbw"]
    assert "(B)" in lines[3] and "(GB/s)" in lines[3]
    assert [line.split() for line in lines[4:]] == [["8", "0.5000"], ["1048576", "12.00"]]
    assert len({len(line) for line in lines[2:]}) == 1  # every line as wide: the columns line up
    empty = io.StringIO()
    ra.Summary("e", "empty", [("x", "")], []).print(empty)
    assert "# (no rows)" in empty.getvalue()
