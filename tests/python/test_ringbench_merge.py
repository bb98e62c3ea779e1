"""scripts/ringbench_merge.py (and merge_files in ringbench_results.py): every run kept once,
the layout kept so that ringbench can append to the output, conflicts refused with exit 2 and no
output left behind."""

import math
import os

import h5py
import numpy as np
import pytest

import ringbench_merge
import ringbench_results as rr
from results_factory import RESULTS_COLUMNS, columns_of, new_run_id, one_run, rows_array, write_results_file


def run_ids(path, table="/runs"):
    with h5py.File(path, "r") as f:
        return sorted(rr.decode(v) for v in f[table]["run_id"])


def test_merge_keeps_every_run_and_every_row(tmp_path, capsys):
    a = one_run(str(tmp_path / "a.h5"), sizes=(8, 16, 32))
    b = one_run(str(tmp_path / "b.h5"), sizes=(8, 16), world_size=3)
    out = str(tmp_path / "merged.h5")
    assert ringbench_merge.main(["-o", out, str(tmp_path / "a.h5"), str(tmp_path / "b.h5")]) == 0
    assert run_ids(out) == sorted([a, b])
    assert run_ids(out, "/results") == sorted([a] * 3 + [b] * 2)
    printed = capsys.readouterr().out
    assert "2 file(s), 2 run(s)" in printed
    assert "/results 5 rows" in printed and "/runs 2 rows" in printed
    assert "kept once" not in printed


def test_merge_keeps_values_and_the_layout_ringbench_appends_to(tmp_path):
    run = one_run(str(tmp_path / "a.h5"), sizes=(8, 65536), t_avg_us=12.5)
    model_run = new_run_id()
    write_results_file(str(tmp_path / "m.h5"), model={"placements": [dict(run_id=model_run, tp=4, step_comm_us=7.0)]})
    out = str(tmp_path / "merged.h5")
    counts, runs, repeated = rr.merge_files([str(tmp_path / "a.h5"), str(tmp_path / "m.h5")], out, log=None)
    assert counts == {"/runs": 1, "/results": 2, "/model/placements": 1, "/model/runs": 1}
    assert runs == 2 and repeated == []
    with h5py.File(out, "r") as merged, h5py.File(str(tmp_path / "a.h5"), "r") as source:
        assert int(merged.attrs[rr.SCHEMA_ATTRIBUTE]) == 1
        for path in ("/runs", "/results"):
            ds, original = merged[path], source[path]
            assert ds.dtype == original.dtype  # variable-length UTF-8 strings stay so
            assert h5py.check_string_dtype(ds.dtype["run_id"]).encoding == "utf-8"
            assert ds.maxshape == (None,) and ds.chunks is not None  # ringbench can still resize it
            assert list(ds.attrs["column_units"]) == list(original.attrs["column_units"])
            assert rr.decode(ds.attrs["description"]) == rr.decode(original.attrs["description"])
        results = merged["/results"][:]
        assert [int(v) for v in results["bytes"]] == [8, 65536]
        assert list(results["t_avg_us"]) == [12.5, 12.5]
        assert rr.decode(merged["/model/placements"][0]["run_id"]) == model_run
        assert int(merged["/model/placements"][0]["tp"]) == 4
    # Appending as bench/results does (resize, write) works on the merged table.
    with h5py.File(out, "r+") as f:
        ds = f["/results"]
        ds.resize((3,))
        ds[2] = rows_array(RESULTS_COLUMNS, [dict(run_id=run, bytes=4)])[0]
    assert len(rr.load([out], log=None)["/results"]) == 3


def test_merging_into_an_existing_output_keeps_what_it_held(tmp_path, capsys):
    a = one_run(str(tmp_path / "a.h5"))
    b = one_run(str(tmp_path / "b.h5"))
    out = str(tmp_path / "merged.h5")
    assert ringbench_merge.main(["-o", out, str(tmp_path / "a.h5")]) == 0
    assert ringbench_merge.main(["-o", out, str(tmp_path / "b.h5")]) == 0
    assert run_ids(out) == sorted([a, b])
    # Again with an input already merged, and the output named as an input too: nothing doubles.
    capsys.readouterr()
    assert ringbench_merge.main(["-o", out, out, str(tmp_path / "a.h5")]) == 0
    assert run_ids(out) == sorted([a, b])
    assert run_ids(out, "/results") == sorted([a] * 3 + [b] * 3)
    assert "1 run(s) were in more than one input and were kept once" in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path)) == ["a.h5", "b.h5", "merged.h5"]  # no temporary copy left


def test_merge_refuses_a_newer_schema_and_leaves_no_output(tmp_path, capsys):
    one_run(str(tmp_path / "a.h5"))
    write_results_file(str(tmp_path / "other.h5"), runs=[dict(run_id=new_run_id())], schema=99)
    out = tmp_path / "merged.h5"
    assert ringbench_merge.main(["-o", str(out), str(tmp_path / "a.h5"), str(tmp_path / "other.h5")]) == 2
    assert "other.h5: schema version 99 is newer than these scripts read" in capsys.readouterr().err
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["a.h5", "other.h5"]


def test_merge_refuses_tables_of_another_version_and_keeps_the_existing_output(tmp_path, capsys):
    a = one_run(str(tmp_path / "a.h5"))
    out = str(tmp_path / "merged.h5")
    assert ringbench_merge.main(["-o", out, str(tmp_path / "a.h5")]) == 0
    before = open(out, "rb").read()
    other = str(tmp_path / "old.h5")
    write_results_file(other, runs=[dict(run_id=new_run_id())])
    with h5py.File(other, "r+") as f:
        data = np.array([(new_run_id(), 1.0)], dtype=[("run_id", h5py.string_dtype()), ("t_us", "<f8")])
        f.create_dataset("results", data=data, maxshape=(None,))
    assert ringbench_merge.main(["-o", out, other]) == 2
    err = capsys.readouterr().err
    assert "ringbench-merge: error: " in err and "old.h5: table /results has columns" in err
    assert open(out, "rb").read() == before  # untouched
    assert run_ids(out) == [a]


def test_merge_of_schema_1_and_2_widens_the_old_rows_and_says_version_2(tmp_path, capsys):
    old = one_run(str(tmp_path / "v1.h5"), sizes=(8, 16), schema=1, t_avg_us=11.0)
    new = one_run(str(tmp_path / "v2.h5"), sizes=(8,), schema=2, t_avg_us=22.0)
    out = str(tmp_path / "merged.h5")
    # The older file first: the layout still comes from the newer one.
    assert ringbench_merge.main(["-o", out, str(tmp_path / "v1.h5"), str(tmp_path / "v2.h5")]) == 0
    assert "2 file(s), 2 run(s)" in capsys.readouterr().out
    with h5py.File(out, "r") as f, h5py.File(str(tmp_path / "v2.h5"), "r") as v2:
        assert int(f.attrs[rr.SCHEMA_ATTRIBUTE]) == 2
        for path in ("/runs", "/results"):
            assert f[path].dtype.names == v2[path].dtype.names
            assert list(f[path].attrs["column_units"]) == list(v2[path].attrs["column_units"])
        rows = {(rr.decode(r["run_id"]), int(r["bytes"])): r for r in f["/results"][:]}
    assert sorted(rows) == sorted([(old, 8), (old, 16), (new, 8)])
    assert float(rows[(old, 8)]["t_avg_us"]) == 11.0 and math.isnan(rows[(old, 8)]["t_median_us"])
    assert int(rows[(old, 8)]["calls"]) == -1 and rr.decode(rows[(old, 8)]["stop_reason"]) == ""
    assert float(rows[(new, 8)]["t_median_us"]) == 95.0 and int(rows[(new, 8)]["calls"]) == 100
    # ringbench (as bench/results appends: resize, write a row of the new layout) can append to it.
    with h5py.File(out, "r+") as f:
        ds = f["/results"]
        ds.resize((4,))
        ds[3] = rows_array(columns_of("/results", 2), [dict(run_id=new, bytes=4)])[0]
    assert len(rr.load([out], log=None)["/results"]) == 4


def test_merge_into_an_older_output_widens_it(tmp_path):
    old = one_run(str(tmp_path / "v1.h5"), schema=1)
    out = str(tmp_path / "merged.h5")
    assert ringbench_merge.main(["-o", out, str(tmp_path / "v1.h5")]) == 0
    new = one_run(str(tmp_path / "v2.h5"), schema=2)
    assert ringbench_merge.main(["-o", out, str(tmp_path / "v2.h5")]) == 0
    with h5py.File(out, "r") as f:
        assert int(f.attrs[rr.SCHEMA_ATTRIBUTE]) == 2 and "t_median_us" in f["/results"].dtype.names
    assert run_ids(out) == sorted([old, new])


def sealed_undo_log(path, size, originals):
    """A sealed undo log as bench/results/undo_log.cpp writes it (a killed commit's), for `path`."""
    import struct

    body = b"RBUNDO01" + struct.pack("<QQ", size, len(originals))
    for offset, data in originals:
        body += struct.pack("<QQ", offset, len(data)) + data
    checksum = 14695981039346656037
    for byte in body:
        checksum = ((checksum ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    with open(path + ".undo", "wb") as f:
        f.write(body + struct.pack("<Q", checksum) + b"SEALED01")


def test_merge_into_a_file_with_a_killed_commits_undo_log_removes_the_stale_log(tmp_path):
    out = str(tmp_path / "merged.h5")
    old = one_run(out)
    with open(out, "rb") as f:
        original = f.read()
    # A killed commit scribbled over the first 512 bytes (the superblock); the log holds them.
    with open(out, "r+b") as f:
        f.write(b"\xff" * 512)
    sealed_undo_log(out, len(original), [(0, original[:512])])
    new = one_run(str(tmp_path / "b.h5"))
    assert ringbench_merge.main(["-o", out, str(tmp_path / "b.h5")]) == 0
    assert not os.path.exists(out + ".undo")  # it described the file the merge replaced
    assert run_ids(out) == sorted([old, new])  # the old run read through the log, the new one added


def test_merge_names_missing_inputs(tmp_path, capsys):
    one_run(str(tmp_path / "a.h5"))
    code = ringbench_merge.main(["-o", str(tmp_path / "m.h5"), str(tmp_path / "a.h5"), str(tmp_path / "gone.h5")])
    assert code == 2
    err = capsys.readouterr().err
    assert err == f"ringbench-merge: error: {tmp_path / 'gone.h5'}: no such file\n"
    assert not (tmp_path / "m.h5").exists()


def test_merge_of_a_directory_says_so(tmp_path, capsys):
    one_run(str(tmp_path / "a.h5"))
    (tmp_path / "dir.h5").mkdir()
    assert ringbench_merge.main(["-o", str(tmp_path / "m.h5"), str(tmp_path / "a.h5"), str(tmp_path / "dir.h5")]) == 2
    assert capsys.readouterr().err == f"ringbench-merge: error: {tmp_path / 'dir.h5'}: is a directory\n"
    assert not (tmp_path / "m.h5").exists()


def test_merge_of_a_file_without_runs_exits_2(tmp_path, capsys):
    write_results_file(str(tmp_path / "bare.h5"))
    assert ringbench_merge.main(["-o", str(tmp_path / "m.h5"), str(tmp_path / "bare.h5")]) == 2
    assert "bare.h5: no /runs table" in capsys.readouterr().err


def test_merge_of_a_file_that_is_not_hdf5_exits_2(tmp_path, capsys):
    (tmp_path / "text.h5").write_text("hello")
    assert ringbench_merge.main(["-o", str(tmp_path / "m.h5"), str(tmp_path / "text.h5")]) == 2
    assert "text.h5: cannot open as HDF5" in capsys.readouterr().err


def test_merge_needs_an_output(tmp_path):
    with pytest.raises(SystemExit) as exit_:
        ringbench_merge.main([str(tmp_path / "a.h5")])
    assert exit_.value.code == 2
