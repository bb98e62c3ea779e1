"""scripts/compare_report.py: the comparison tables of compare.sh (medians over repetitions,
ratios to mpi, the link test against iperf3) and the tables it appends to the results file."""

import json
import re
import os
import subprocess
import sys

import h5py
import pytest

import compare_report as cr
import ringbench_results as rr
from results_factory import new_run_id, write_results_file


def iperf_json(path, GBps, streams=1, seconds=3.0, cpu=10.0, version="iperf 3.12"):
    doc = {"start": {"test_start": {"num_streams": streams}, "version": version},
           "end": {"sum_received": {"seconds": seconds, "bytes": int(GBps * 1e9 * seconds),
                                    "bits_per_second": GBps * 8e9},
                   "cpu_utilization_percent": {"host_total": cpu}}}
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("size, text", [(8, "8"), (1024, "1K"), (1536, "1536"), (4 << 20, "4M"), (1 << 30, "1G"),
                                        ((1 << 20) + 1024, "1025K")])
def test_human_sizes(size, text):
    assert cr.human(size) == text


def test_iperf_repetitions_add_up_the_concurrent_clients(tmp_path):
    files = [iperf_json(tmp_path / "iperf3-1-0.json", 1.0, seconds=3.0, cpu=10.0),
             iperf_json(tmp_path / "iperf3-1-1.json", 2.0, seconds=3.5, cpu=20.0),
             iperf_json(tmp_path / "iperf3-2-0.json", 5.0),
             iperf_json(tmp_path / "iperf3-10-0.json", 7.0)]
    reps = cr.iperf_repetitions(files)
    assert [r["GBps"] for r in reps] == pytest.approx([3.0, 5.0, 7.0])  # 1, 2, 10: numeric order
    first = reps[0]
    assert first["streams"] == 2 and first["seconds"] == 3.5 and first["sender_cpu_pct"] == 30.0
    assert first["bytes"] == int(1e9 * 3.0) + int(2e9 * 3.5)
    assert first["version"] == "iperf 3.12"


@pytest.fixture
def comparison(tmp_path):
    """Three repetitions of ours (ring, tree) and theirs (mpi) at 1 KiB and 1 MiB, N=4, plus a run
    the comparison does not list, and the iperf3 results of every repetition. Three, with skewed
    values, so that medians differ from means."""
    n = 4
    runs, results, lines = [], [], []
    timings = {  # algorithm -> (t_avg_us at 1K, busbw at 1K, t at 1M, busbw at 1M) per repetition
        "ring": [(30.0, 0.05, 1000.0, 1.5), (50.0, 0.03, 1400.0, 1.1), (100.0, 0.01, 1300.0, 1.0)],
        "tree": [(20.0, 0.08, 3000.0, 0.5), (24.0, 0.06, 3200.0, 0.4), (22.0, 0.07, 3100.0, 0.45)],
        "mpi": [(10.0, 0.1, 2000.0, 0.8), (14.0, 0.09, 2400.0, 0.6), (12.0, 0.095, 2200.0, 0.7)],
    }
    for rep in range(3):
        for side, algorithms in (("ours", ("ring", "tree")), ("theirs", ("mpi",))):
            run_id = new_run_id()
            runs.append(dict(run_id=run_id, world_size=n))
            lines.append(f"{run_id} {side} small")
            for a in algorithms:
                t_small, bw_small, t_large, bw_large = timings[a][rep]
                link = a != "mpi"
                for size, t, bw in ((1024, t_small, bw_small), (1 << 20, t_large, bw_large)):
                    bound = 2 * (n - 1) * size / n
                    results.append(dict(run_id=run_id, world_size=n, algorithm=a, chosen_algorithm=a, bytes=size,
                                        t_avg_us=t, busbw_GBps=bw, bound_bytes=bound,
                                        link_bound_us=(t * 0.5 if link else 0.0), efficiency=(0.5 if link else 0.0),
                                        formula_ok=(1 if link else -1)))
    stranger = new_run_id()
    runs.append(dict(run_id=stranger, world_size=n))
    results.append(dict(run_id=stranger, world_size=n, algorithm="ring", bytes=1024, t_avg_us=1e6, busbw_GBps=1e-6))
    path = write_results_file(str(tmp_path / "c.h5"), runs=runs, results=results)
    runs_txt = tmp_path / "runs.txt"
    runs_txt.write_text("\n".join(lines) + "\n\n")
    iperf = [iperf_json(tmp_path / f"iperf3-{rep}-{k}.json", g) for rep, g in ((1, 1.0), (2, 2.0), (3, 1.5))
             for k in range(n)]
    return dict(path=path, runs=str(runs_txt), iperf=iperf, n=n, stranger=stranger)


def report(comparison, capsys, *extra):
    args = [comparison["path"], "--ranks", str(comparison["n"]), "--runs", comparison["runs"],
            "--iperf", *comparison["iperf"], *extra]
    assert cr.main(args) == 0
    return capsys.readouterr().out


def table_rows(printed, header):
    lines = printed.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2:]:
        if line.startswith("#"):
            break
        rows.append(re.sub(r"\[\s+", "[", line).split())  # "[  30.0-50.0]": right-aligned spreads
    return rows


def test_report_prints_medians_spreads_ratios_and_the_best(comparison, capsys):
    printed = report(comparison, capsys)
    assert "6 ringbench runs, 3 interleaved repetitions" in printed
    assert "# iperf3       : iperf 3.12, 4 concurrent clients" in printed
    assert "6.000 GB/s aggregate [4.000-8.000]" in printed  # 4 clients x 1, 2, 1.5 GB/s: median 6
    rows = table_rows(printed, "# allreduce, N=4")
    by_key = {(r[0], r[1]): r for r in rows}
    # Sizes ascending; ours by name, then mpi.
    assert list(by_key) == [("1K", "ring"), ("1K", "tree"), ("1K", "mpi"), ("1M", "ring"), ("1M", "tree"),
                            ("1M", "mpi")]
    # ring at 1K: median of 30, 50, 100 us (not the mean, 60), busbw median 0.03, x mpi 0.03/0.095.
    assert by_key[("1K", "ring")][2:] == ["50.00", "[30.0-100.0]", "0.030", "[0.010-0.050]", "0.32", "50%",
                                         "-", "-"]  # the factory's rows carry no CPU cost
    # The best of ours at 1K is tree (22 us median); mpi is never "best" and has no ratio.
    assert by_key[("1K", "tree")][-1] == "*"
    assert by_key[("1K", "mpi")][2:] == ["12.00", "[10.0-14.0]", "0.095", "[0.090-0.100]", "-", "-", "-", "-"]
    assert by_key[("1M", "ring")][-1] == "*" and by_key[("1M", "tree")][-1] != "*"
    assert by_key[("1M", "ring")][6] == f"{1.1 / 0.7:.2f}"
    # The unlisted run (1 s per call) is in none of the figures.
    assert "1000000" not in printed


def test_link_test_against_iperf3(comparison, capsys):
    printed = report(comparison, capsys)
    header = next(line for line in printed.splitlines() if line.startswith("# allreduce link test"))
    rows = {r[0]: r for r in table_rows(printed, header)}
    # 1 MiB, N=4: chunk 262144 B; link time median 650 us (500, 700, 650); bound 1.5 MiB;
    # aggregate N x bound / link time.
    median = 4 * 1.5 * (1 << 20) / 650.0 / 1e3
    assert rows["1M"][:4] == ["1M", "262144", "650.0", f"{median:.3f}"]
    assert rows["1M"][5] == "6.000"
    assert rows["1M"][6] == f"{median / 6.0:.0%}"


def test_report_appends_its_tables_each_time(comparison, capsys):
    printed = report(comparison, capsys)
    comparison_id = printed.split()[2].rstrip(":")
    with h5py.File(comparison["path"], "r") as f:
        summary, iperf = f["/comparison/summary"][:], f["/comparison/iperf3"][:]
        assert f["/comparison/summary"].maxshape == (None,)
        units = [rr.decode(u) for u in f["/comparison/summary"].attrs["column_units"]]
    assert len(summary) == 6 and len(iperf) == 3
    assert {rr.decode(v) for v in summary["run_id"]} == {comparison_id}
    ring_large = next(r for r in summary if rr.decode(r["algorithm"]) == "ring" and int(r["bytes"]) == 1 << 20)
    assert int(ring_large["repetitions"]) == 3
    assert float(ring_large["t_median_us"]) == 1300.0
    assert float(ring_large["t_min_us"]) == 1000.0 and float(ring_large["t_max_us"]) == 1400.0
    assert float(ring_large["busbw_ratio_to_mpi"]) == pytest.approx(1.1 / 0.7)
    assert float(ring_large["iperf3_GBps"]) == 6.0
    assert len(rr.decode(ring_large["run_ids"]).split()) == 3
    mpi_small = next(r for r in summary if rr.decode(r["algorithm"]) == "mpi" and int(r["bytes"]) == 1024)
    assert float(mpi_small["busbw_ratio_to_mpi"]) == 0.0 and float(mpi_small["link_aggregate_GBps"]) == 0.0
    assert [int(r["repetition"]) for r in iperf] == [1, 2, 3]
    assert [float(r["GBps"]) for r in iperf] == pytest.approx([4.0, 8.0, 6.0])
    assert units[cr.SUMMARY_COLUMNS.index(("t_median_us", "f8", "us", cr.SUMMARY_COLUMNS[6][3]))] == "us"
    # A second report appends under a new id; the file still loads and merges like any other.
    report(comparison, capsys)
    tables = rr.load([comparison["path"]], log=None)
    assert len(tables["/comparison/summary"]) == 12 and len(tables["/comparison/iperf3"]) == 6
    assert len(set(tables["/comparison/summary"]["run_id"])) == 2
    assert not [p for p in os.listdir(os.path.dirname(comparison["path"])) if ".tmp." in p]


def test_a_failed_run_is_named(comparison, capsys):
    printed = report(comparison, capsys, "--failed", "abc:ours-large-rep1:exit3", "")
    assert "# failed run   : abc:ours-large-rep1:exit3 (its finished sizes are included)" in printed
    assert printed.count("# failed run") == 1


def test_last_run_id(comparison, capsys):
    assert cr.main([comparison["path"], "--last-run-id"]) == 0
    assert capsys.readouterr().out.strip() == comparison["stranger"]


def test_ranks_and_runs_are_required(comparison):
    with pytest.raises(SystemExit) as exit_:
        cr.main([comparison["path"], "--runs", comparison["runs"]])
    assert exit_.value.code == 2


def test_a_file_that_is_not_a_results_file_is_one_line_and_exit_1(tmp_path, scripts_dir):
    (tmp_path / "runs.txt").write_text("")
    bad = tmp_path / "bad.h5"
    bad.write_text("no")
    done = subprocess.run([sys.executable, str(scripts_dir / "compare_report.py"), str(bad), "--ranks", "2", "--runs",
                           str(tmp_path / "runs.txt")], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.startswith("compare_report: error: ") and "bad.h5: cannot open as HDF5" in done.stderr
    assert done.stderr.count("\n") == 1
