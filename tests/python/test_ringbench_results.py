"""scripts/ringbench_results.py: opening, reading and merging results files in memory."""

import io

import h5py
import numpy as np
import pytest

import ringbench_results as rr
from results_factory import new_run_id, one_run, write_results_file


def test_open_refuses_a_file_that_is_not_hdf5(tmp_path):
    path = tmp_path / "notes.h5"
    path.write_text("not HDF5 at all\n")
    with pytest.raises(rr.ResultsError, match=r"notes\.h5: cannot open as HDF5"):
        rr.open_results(str(path))


def test_open_refuses_hdf5_without_the_schema_attribute(tmp_path):
    path = str(tmp_path / "plain.h5")
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(rr.ResultsError, match=r"plain\.h5: not a ringbench results file \(no ringbench_schema_version"):
        rr.open_results(path)


def test_open_refuses_an_unknown_schema_version(tmp_path):
    path = write_results_file(str(tmp_path / "future.h5"), schema=3)
    with pytest.raises(rr.ResultsError, match=r"future\.h5: schema version 3, this script reads \(1, 2\)"):
        rr.open_results(path)


def test_open_reads_every_older_schema_version(tmp_path):
    for version in rr.SUPPORTED_SCHEMAS:
        path = write_results_file(str(tmp_path / f"v{version}.h5"), schema=version)
        with rr.open_results(path) as f:
            assert int(f.attrs[rr.SCHEMA_ATTRIBUTE]) == version


def test_table_paths_lists_every_compound_table_and_nothing_else(tmp_path):
    run = new_run_id()
    path = write_results_file(str(tmp_path / "a.h5"), runs=[dict(run_id=run)], results=[dict(run_id=run)],
                              model={"placements": [dict(run_id=run)]})
    with h5py.File(path, "r+") as f:
        f["plain_numbers"] = np.arange(4)          # not compound
        f.create_dataset("matrix", shape=(2, 2), dtype=[("a", "<i8"), ("b", "<f8")])  # compound but 2-D
    with rr.open_results(path) as f:
        assert rr.table_paths(f) == ["/model/placements", "/results", "/runs"]


def test_table_decodes_strings_and_reads_units(tmp_path):
    run = one_run(str(tmp_path / "a.h5"), sizes=(8, 16))
    with rr.open_results(str(tmp_path / "a.h5")) as f:
        table = rr.Table.from_dataset(f["/results"])
    assert len(table) == 2
    assert "busbw_GBps" in table and "nonexistent" not in table
    assert list(table["run_id"]) == [run, run]  # str, not bytes
    assert isinstance(table["collective"][0], str)
    assert table.units["t_avg_us"] == "us"
    assert table.units["bytes"] == "B"
    rows = list(table.rows())
    assert [int(r["bytes"]) for r in rows] == [8, 16]
    small = table.select(table["bytes"] > 8)
    assert len(small) == 1 and int(small["bytes"][0]) == 16 and small.units == table.units


def test_load_concatenates_the_runs_of_several_files(tmp_path):
    a = one_run(str(tmp_path / "a.h5"), sizes=(8, 16, 32))
    b = one_run(str(tmp_path / "b.h5"), sizes=(8, 16), world_size=3)
    tables = rr.load([str(tmp_path / "a.h5"), str(tmp_path / "b.h5")], log=None)
    assert sorted(tables) == ["/results", "/runs"]
    assert sorted(tables["/runs"]["run_id"]) == sorted([a, b])
    results = tables["/results"]
    assert len(results) == 5
    assert sorted(int(n) for n, r in zip(results["world_size"], results["run_id"]) if r == b) == [3, 3]


def test_load_keeps_a_run_met_twice_once_and_says_so(tmp_path):
    path = str(tmp_path / "a.h5")
    one_run(path, sizes=(8, 16, 32))
    log = io.StringIO()
    tables = rr.load([path, path], log=log)
    assert len(tables["/runs"]) == 1
    assert len(tables["/results"]) == 3
    assert "1 run(s) appear in more than one file; each is kept once" in log.getvalue()


def test_load_takes_each_runs_rows_from_the_first_file_that_holds_it(tmp_path):
    shared, extra = new_run_id(), new_run_id()
    first = write_results_file(str(tmp_path / "first.h5"), runs=[dict(run_id=shared)],
                               results=[dict(run_id=shared, bytes=8, t_avg_us=1.0)])
    # The same run again (say, an older copy with different rows) next to a run of its own.
    second = write_results_file(str(tmp_path / "second.h5"), runs=[dict(run_id=shared), dict(run_id=extra)],
                                results=[dict(run_id=shared, bytes=8, t_avg_us=999.0),
                                         dict(run_id=shared, bytes=16, t_avg_us=999.0),
                                         dict(run_id=extra, bytes=8, t_avg_us=5.0)])
    tables = rr.load([first, second], log=None)
    results = tables["/results"]
    by_run = {}
    for r in results.rows():
        by_run.setdefault(r["run_id"], []).append((int(r["bytes"]), float(r["t_avg_us"])))
    assert by_run == {shared: [(8, 1.0)], extra: [(8, 5.0)]}
    assert sorted(tables["/runs"]["run_id"]) == sorted([shared, extra])


def test_load_refuses_tables_with_different_columns_naming_both_files(tmp_path):
    one_run(str(tmp_path / "a.h5"))
    other = str(tmp_path / "other.h5")
    with h5py.File(other, "w") as f:
        f.attrs[rr.SCHEMA_ATTRIBUTE] = np.int64(1)
        data = np.array([("some-run", 7)], dtype=[("run_id", h5py.string_dtype()), ("extra", "<i8")])
        f.create_dataset("runs", data=data, maxshape=(None,))
    with pytest.raises(rr.ResultsError) as error:
        rr.load([str(tmp_path / "a.h5"), other], log=None)
    message = str(error.value)
    assert "other.h5: table /runs has columns ['run_id', 'extra']" in message
    assert "a.h5" in message and "different ringbench versions" in message


def test_load_of_an_empty_table_gives_an_empty_table(tmp_path):
    path = write_results_file(str(tmp_path / "a.h5"), runs=[dict(run_id=new_run_id())])
    with h5py.File(path, "r+") as f:
        f["/runs"].resize((0,))
    tables = rr.load([path], log=None)
    assert len(tables["/runs"]) == 0
    assert "run_id" in tables["/runs"]


def test_run_owners_maps_each_run_to_its_first_file(tmp_path):
    a, b = new_run_id(), new_run_id()
    p1 = write_results_file(str(tmp_path / "1.h5"), runs=[dict(run_id=a)], results=[dict(run_id=a)])
    p2 = write_results_file(str(tmp_path / "2.h5"), runs=[dict(run_id=a), dict(run_id=b)])
    with rr.open_results(p1) as f1, rr.open_results(p2) as f2:
        owner, repeated = rr.run_owners([f1, f2])
    assert owner == {a: 0, b: 1}
    assert repeated == [a]


def test_replace_durably_swaps_in_the_new_content(tmp_path):
    target, tmp = tmp_path / "t.txt", tmp_path / "t.txt.tmp"
    target.write_text("old")
    tmp.write_text("new")
    rr.replace_durably(str(tmp), str(target))
    assert target.read_text() == "new"
    assert not tmp.exists()
