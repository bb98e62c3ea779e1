"""scripts/overlap_report.py: ringbench's measured DDP step (/workloads) against topomodel's
prediction (/model/ddp_steps), on small files written here in the layout of both tables."""

import os
import subprocess
import sys

import h5py
import pytest

import overlap_report as orep
from results_factory import MODEL_RUNS_COLUMNS, new_run_id, write_results_file, write_table

# /workloads as `ringbench --workload ddp` writes it (issue 17's column list).
WORKLOADS_COLUMNS = [
    ("run_id", "str", "", None),
    ("workload", "str", "", "ddp"),
    ("algorithm", "str", "", "ring"),
    ("world_size", "<i8", "ranks", 4),
    ("hosts", "str", "", "vm"),
    ("grad_bytes", "<u8", "B", 128 << 20),
    ("layers", "<i8", "", 32),
    ("bucket_bytes", "<u8", "B", 1 << 20),
    ("buckets", "<i8", "", 128),
    ("compute_us_per_layer", "<f8", "us", 2500.0),
    ("steps", "<i8", "", 10),
    ("step_us", "<f8", "us", 100000.0),
    ("step_ci_pct", "<f8", "%", 2.0),
    ("step_p05_us", "<f8", "us", 95000.0),
    ("step_p95_us", "<f8", "us", 110000.0),
    ("comm_alone_us", "<f8", "us", 90000.0),
    ("compute_us", "<f8", "us", 80000.0),
    ("exposed_comm_us", "<f8", "us", 20000.0),
    ("overlap_fraction", "<f8", "fraction", 0.7778),
]

# /model/ddp_steps as topomodel step --workload ddp writes it (bench/topomodel/ddp_step.cpp).
DDP_STEPS_COLUMNS = [
    ("run_id", "str", "", None),
    ("cluster", "str", "", "machine"),
    ("world_size", "<i8", "GPUs", 4),
    ("algorithm", "str", "", "ring"),
    ("grad_bytes", "<u8", "bytes", 128 << 20),
    ("layers", "<i8", "", 32),
    ("bucket_bytes", "<u8", "bytes", 1 << 20),
    ("buckets", "<i8", "", 128),
    ("bucket_us", "<f8", "us", 600.0),
    ("compute_us_per_layer", "<f8", "us", 2500.0),
    ("compute_us", "<f8", "us", 80000.0),
    ("comm_alone_us", "<f8", "us", 85000.0),
    ("step_us", "<f8", "us", 100000.0),
    ("exposed_comm_us", "<f8", "us", 20000.0),
    ("overlap_fraction", "<f8", "fraction", 0.76),
    ("best", "<i8", "", 1),
]

SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20]
MEASURED_STEP = [200000.0, 120000.0, 100000.0, 110000.0]  # best at 1M
PREDICTED_STEP = [180000.0, 96000.0, 103000.0, 120000.0]  # best at 256K: errors -10, -20, +3, +9.1 %


def measured_file(path, steps=MEASURED_STEP, run_id=None, algorithm="ring", compute=2500.0):
    run_id = run_id or new_run_id()
    rows = [dict(run_id=run_id, bucket_bytes=b, buckets=(128 << 20) // b, step_us=s, algorithm=algorithm,
                 compute_us_per_layer=compute) for b, s in zip(SIZES, steps)]
    if not h5py.is_hdf5(str(path)):
        write_results_file(str(path), runs=[dict(run_id=run_id, world_size=4)])
    with h5py.File(path, "a") as f:
        write_table(f, "/workloads", WORKLOADS_COLUMNS, rows, "ringbench --workload ddp")
    return run_id


def predicted_file(path, steps=PREDICTED_STEP, sizes=SIZES, buckets=None):
    run_id = new_run_id()
    rows = [dict(run_id=run_id, bucket_bytes=b, buckets=(buckets or {}).get(b, (128 << 20) // b), step_us=s)
            for b, s in zip(sizes, steps)]
    write_results_file(str(path), schema=4)
    with h5py.File(path, "a") as f:
        write_table(f, "/model/runs", MODEL_RUNS_COLUMNS, [dict(run_id=run_id, command="step")])
        write_table(f, "/model/ddp_steps", DDP_STEPS_COLUMNS, rows)
    return str(path)


def rows_of(lines):
    return [line.split() for line in lines if not line.startswith("#")]


def test_table_prints_errors_and_each_sides_best(tmp_path):
    measured_file(tmp_path / "m.h5")
    lines = orep.report_lines(str(tmp_path / "m.h5"), predicted_file(tmp_path / "p.h5"))
    rows = rows_of(lines)
    assert [r[0] for r in rows] == ["64K", "256K", "1M", "4M"]
    assert [r[5] for r in rows] == ["-10.0", "-20.0", "+3.0", "+9.1"]
    assert rows[1][-1] == "p" and rows[2][-1] == "m"
    summary = "\n".join(lines)
    assert "best bucket measured 1M, predicted 256K: 1 sweep step(s) apart (target <= 1: met)" in summary
    assert "largest |error| 20.0% at 256K (target <= 15% at every size: missed)" in summary


def test_targets_met_when_close(tmp_path):
    measured_file(tmp_path / "m.h5")
    close = [s * 1.05 for s in MEASURED_STEP]
    summary = "\n".join(orep.report_lines(str(tmp_path / "m.h5"), predicted_file(tmp_path / "p.h5", close)))
    assert "0 sweep step(s) apart (target <= 1: met)" in summary
    assert "largest |error| 5.0% at" in summary and "(target <= 15% at every size: met)" in summary


def test_best_buckets_two_steps_apart_miss_the_target(tmp_path):
    measured_file(tmp_path / "m.h5")
    far = [s * 0.95 for s in MEASURED_STEP]
    far[0] = 90000.0  # the model's best is now the smallest bucket, two steps from the measured 1M
    summary = "\n".join(orep.report_lines(str(tmp_path / "m.h5"), predicted_file(tmp_path / "p.h5", far)))
    assert "measured 1M, predicted 64K: 2 sweep step(s) apart (target <= 1: missed)" in summary
    assert "largest |error| 55.0% at 64K" in summary


def test_a_measured_best_within_its_neighbours_intervals_is_a_tie(tmp_path):
    # Intervals are +-2%. First: 4M (101000) overlaps the best, 1M (100000); 256K (120000) does
    # not. The model's best, 64K, is 2 steps from 1M and 3 from 4M: missed. Then 256K (101000)
    # is the tie instead, 1 step from the model's 64K: met, as a tie.
    measured_file(tmp_path / "m.h5", steps=[200000.0, 120000.0, 100000.0, 101000.0])
    far = [90000.0, 130000.0, 140000.0, 150000.0]
    summary = "\n".join(orep.report_lines(str(tmp_path / "m.h5"), predicted_file(tmp_path / "p.h5", far)))
    assert "best bucket measured 1M (not separable from 4M), predicted 64K: 2 sweep step(s) apart" in summary
    assert "(target <= 1: missed)" in summary
    measured_file(tmp_path / "m2.h5", steps=[200000.0, 101000.0, 100000.0, 130000.0])
    summary = "\n".join(orep.report_lines(str(tmp_path / "m2.h5"), predicted_file(tmp_path / "p2.h5", far)))
    assert "measured 1M (not separable from 256K), predicted 64K: 2 sweep step(s) apart" in summary
    assert "met as a tie: 1 step(s) from a size the measurement cannot tell from the best" in summary


def test_missing_predictions_and_other_bucket_counts_are_reported(tmp_path):
    measured_file(tmp_path / "m.h5")
    predicted = predicted_file(tmp_path / "p.h5", PREDICTED_STEP[:3], SIZES[:3], buckets={1 << 20: 127})
    lines = orep.report_lines(str(tmp_path / "m.h5"), predicted)
    last = rows_of(lines)[-1]
    assert last[1] == "32/-" and last[4] == "-" and last[5] == "-"
    summary = "\n".join(lines)
    assert "1 size(s) without a prediction" in summary and "every size: missed" in summary
    assert "different number of buckets at 1M" in summary


def test_newest_run_unless_run_id(tmp_path):
    path = tmp_path / "m.h5"
    first = measured_file(path, steps=[300000.0] * 4)
    measured_file(path)
    newest = orep.measured_rows(str(path))
    assert [float(r["step_us"]) for r in newest] == MEASURED_STEP
    assert {float(r["step_us"]) for r in orep.measured_rows(str(path), first)} == {300000.0}
    with pytest.raises(orep.rr.ResultsError, match="no ddp run nope"):
        orep.measured_rows(str(path), "nope")


def test_plan_gives_topomodel_flags_in_its_names(tmp_path):
    measured_file(tmp_path / "m.h5", algorithm="rhd", compute=1234.5)
    lines = orep.plan_lines(orep.measured_rows(str(tmp_path / "m.h5")))
    assert lines[0] == f"4 halving-doubling {128 << 20} 32 {64 << 10} 1.2345"
    assert len(lines) == len(SIZES)


def test_bad_input_is_one_line_and_exit_2(tmp_path, scripts_dir):
    no_workloads = write_results_file(str(tmp_path / "plain.h5"), runs=[dict(run_id=new_run_id())])
    for args in (["plan", no_workloads], ["report", no_workloads, no_workloads], ["plan", str(tmp_path / "none.h5")]):
        r = subprocess.run([sys.executable, str(scripts_dir / "overlap_report.py"), *args], capture_output=True,
                           text=True)
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("overlap_report.py: error: "), r.stderr


# A machine file in the model's cluster format, as `topomodel calibrate` writes one for 4 ranks on
# one host: made up, but with a per-call cost large enough that small buckets lose.
MACHINE = """{"name": "test-machine", "gpu": "test", "nodes": 1, "gpus_per_node": 4,
  "scale_up": {"kind": "pcie", "bw_GBps": 2.0, "latency_us": 20.0},
  "nics": {"per_node": 1, "bw_Gbps": 10, "latency_us": 20.0}, "launch_overhead_us": 40.0}"""


@pytest.mark.skipif(not os.environ.get("TOPOMODEL"), reason="TOPOMODEL (the topomodel executable) not set")
def test_plan_drives_topomodel_and_the_report_joins_its_rows(tmp_path, scripts_dir):
    """overlap-check.sh's steps 3 and 4 with the real topomodel: every plan line is a valid
    topomodel command, and each measured bucket size gets its prediction, cut into as many buckets."""
    measured = tmp_path / "m.h5"
    measured_file(measured, compute=1234.5)
    (tmp_path / "machine.json").write_text(MACHINE)
    predicted = str(tmp_path / "p.h5")
    for line in orep.plan_lines(orep.measured_rows(str(measured))):
        world, algo, grad, layers, bucket, compute_ms = line.split()
        subprocess.run([os.environ["TOPOMODEL"], "step", "--workload", "ddp", "--cluster",
                        str(tmp_path / "machine.json"), "--gpus", world, "--algo", algo, "--grad-bytes", grad,
                        "--layers", layers, "--bucket-bytes", bucket, "--compute-ms", compute_ms, "-o", predicted],
                       check=True, capture_output=True)
    lines = orep.report_lines(str(measured), predicted)
    rows = rows_of(lines)
    assert [r[1] for r in rows] == ["2048/2048", "512/512", "128/128", "32/32"]
    assert all(r[4] != "-" for r in rows)
    assert not any("warning" in line for line in lines)
    predicted_rows = orep.predicted_rows(predicted)
    assert {float(r["compute_us_per_layer"]) for r in predicted_rows.values()} == {1234.5}
    # The made-up machine's 40 us per call: 2048 buckets of 64K cost more than 32 of 4M.
    steps = [float(predicted_rows[(4, 128 << 20, 32, b)]["step_us"]) for b in SIZES]
    assert steps[0] > steps[-1]
