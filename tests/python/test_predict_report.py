"""scripts/predict_report.py: predict-check.sh's table, medians over runs of topomodel predict's
/model/predictions, per algorithm at 64 KiB and up and below."""

import h5py
import numpy as np

import predict_report as pr

DTYPE = np.dtype([("collective", h5py.string_dtype()), ("algorithm", h5py.string_dtype()), ("world_size", "<i8"),
                  ("bytes", "<u8"), ("measured_us", "<f8"), ("predicted_us", "<f8")])


def write(path, rows):
    with h5py.File(path, "w") as f:
        f.create_dataset("model/predictions", data=np.array(rows, dtype=DTYPE))
    return str(path)


def test_medians_over_runs_pair_each_point(tmp_path):
    # Three runs of one point: measured 90, 100, 300 (median 100), predicted 110, 120, 130 (120).
    rows = [("allreduce", "ring", 4, 1 << 20, m, p) for m, p in ((90, 110), (100, 120), (300, 130))]
    with h5py.File(write(tmp_path / "p.h5", rows), "r") as f:
        points = pr.medians_over_runs(f["model/predictions"][:])
    assert points == {("allreduce", "ring", 4, 1 << 20): (100.0, 120.0, 3)}


def test_report_splits_at_64_KiB_and_quotes_median_and_p90(tmp_path, capsys):
    rows = [("allreduce", "tree", 2, 1 << 16, 100, 105), ("allreduce", "tree", 3, 1 << 18, 100, 80),
            ("allgather", "ring", 2, 1024, 10, 30)]
    pr.main(write(tmp_path / "p.h5", rows))
    out = capsys.readouterr().out
    target = out[out.index("64 KiB and up"):out.index("below 64 KiB")]
    # |errors| 5% and 20%: median 12.5%, p90 18.5%, worst 20%.
    assert "allreduce tree" in target and "12.5%" in target and "18.5%" in target and "20.0%" in target
    assert "allgather ring" not in target
    by_ranks = out[out.index("by world size"):out.index("below 64 KiB")]
    assert "N=2 " in by_ranks and "5.0%" in by_ranks and "N=3 " in by_ranks and "20.0%" in by_ranks
    small = out[out.index("below 64 KiB"):out.index("per point")]
    assert "allgather ring" in small and "200.0%" in small


def test_hierarchical_against_ring_names_who_wins_on_each_side(tmp_path, capsys):
    # 1 MiB: ring 200 us against hierarchical 100 measured (2.00), 150 against 100 predicted (1.50):
    # the same winner. 4 MiB: hierarchical slower measured (0.80), faster predicted (1.25): not.
    rows = [("allreduce", "ring", 4, 1 << 20, 200, 150), ("allreduce", "hierarchical", 4, 1 << 20, 100, 100),
            ("allreduce", "ring", 4, 4 << 20, 400, 500), ("allreduce", "hierarchical", 4, 4 << 20, 500, 400),
            ("allreduce", "tree", 4, 4 << 20, 450, 450)]
    with h5py.File(write(tmp_path / "p.h5", rows), "r") as f:
        verdicts = pr.hierarchical_against_ring(pr.medians_over_runs(f["model/predictions"][:]))
    assert verdicts == [(4, 1 << 20, 2.0, 1.5, True), (4, 4 << 20, 0.8, 1.25, False)]
    pr.main(str(tmp_path / "p.h5"))
    assert "the model names the measured winner at 1 of 2 sizes" in capsys.readouterr().out


def test_no_hierarchical_section_without_both_algorithms(tmp_path, capsys):
    pr.main(write(tmp_path / "p.h5", [("allreduce", "ring", 4, 1 << 20, 200, 150)]))
    assert "hierarchical against the flat ring" not in capsys.readouterr().out


def test_run_by_run_sets_the_model_beside_the_machines_own_reproducibility(tmp_path, capsys):
    # One point in 3 runs, measured 90, 100, 120 and predicted 99, 110, 132 (10% slow every time).
    # Leave one out: 90 against median(100, 120) = 110 (22.2%), 100 against 105 (5%), 120 against
    # 95 (20.8%). A small size and a 2-run point add to the model's rows only, then none at all.
    rows = [("allreduce", "ring", 4, 1 << 20, m, 1.1 * m) for m in (90, 100, 120)]
    rows += [("allreduce", "ring", 4, 1024, 10, 30)] + [("allreduce", "tree", 4, 1 << 20, m, m) for m in (50, 60)]
    with h5py.File(write(tmp_path / "p.h5", rows), "r") as f:
        model, others = pr.run_by_run(f["model/predictions"][:])
    assert sorted(np.round(model, 3)) == [0.0, 0.0, 0.1, 0.1, 0.1]
    assert sorted(np.round(others, 3)) == [0.05, 0.208, 0.222]
    pr.main(str(tmp_path / "p.h5"))
    out = capsys.readouterr().out
    section = out[out.index("run by run"):out.index("below 64 KiB")]
    assert "the model" in section and "10.0%" in section
    assert "the other runs' median" in section and "20.8%" in section


def test_half_against_half_is_the_floor_under_a_median_over_runs(tmp_path, capsys):
    # Six runs of one point: the first half 100, 110, 90 (median 100), the second 120, 115, 125
    # (120): 20%. A seventh run is left out (halves of 3). Five runs of another point, and a small
    # size, give none.
    rows = [("allreduce", "ring", 4, 1 << 20, m, m) for m in (100, 110, 90, 120, 115, 125, 1000)]
    rows += [("allreduce", "tree", 4, 1 << 20, m, m) for m in (1, 2, 3, 4, 5)]
    rows += [("allreduce", "ring", 4, 1024, m, m) for m in (1, 2, 3, 4, 5, 6)]
    with h5py.File(write(tmp_path / "p.h5", rows), "r") as f:
        assert np.round(pr.half_against_half(f["model/predictions"][:]), 6).tolist() == [0.2]
    pr.main(str(tmp_path / "p.h5"))
    out = capsys.readouterr().out
    section = out[out.index("the machine's floor"):out.index("below 64 KiB")]
    assert "half against half" in section and "20.0%" in section


def test_half_against_half_says_how_to_get_it_with_too_few_runs(tmp_path, capsys):
    pr.main(write(tmp_path / "p.h5", [("allreduce", "ring", 4, 1 << 20, m, m) for m in (1, 2, 3)]))
    assert "fewer than 6 runs of every point: --runs 6" in capsys.readouterr().out


def test_row_link_predictions_get_their_own_table_beside_the_plain_ones(tmp_path, capsys):
    # The same point priced twice: 30% slow from the curve, 5% slow at the row's own link speed.
    plain = write(tmp_path / "p.h5", [("allreduce", "tree", 4, 1 << 20, 100, 130)])
    row_link = write(tmp_path / "r.h5", [("allreduce", "tree", 4, 1 << 20, 100, 105)])
    pr.main(plain, row_link)
    out = capsys.readouterr().out
    first = out[out.index("targets"):out.index("own link test's speed")]
    second = out[out.index("own link test's speed"):out.index("by world size")]
    assert "30.0%" in first and "5.0%" not in first
    assert "allreduce tree" in second and "5.0%" in second and "30.0%" not in second
