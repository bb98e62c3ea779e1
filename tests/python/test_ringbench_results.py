"""scripts/ringbench_results.py: opening, reading and merging results files in memory."""

import io
import math

import h5py
import numpy as np
import pytest

import ringbench_results as rr
from results_factory import ADDED_COLUMNS, new_run_id, one_run, write_results_file

# A schema version later than any written yet, to check that versions up to the newest known are
# all read together: it adds one column at the end of each table.
LATER = rr.NEWEST_SCHEMA + 1
LATER_COLUMNS = {LATER: {"/runs": [("site_note", "str", "", "rack 7")],
                         "/results": [("root", "<i8", "", 0), ("wrong_out_of_place", "<u8", "", 3)]}}


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


def test_open_refuses_a_newer_schema_version_saying_what_it_reads(tmp_path):
    path = write_results_file(str(tmp_path / "future.h5"), runs=[dict(run_id=new_run_id())], schema=LATER)
    with pytest.raises(rr.ResultsError) as error:
        rr.open_results(path)
    assert str(error.value) == (f"{path}: schema version {LATER} is newer than these scripts read (1 to "
                                f"{rr.NEWEST_SCHEMA}): use the scripts of the ringbench that wrote it")


def test_open_refuses_a_version_below_one(tmp_path):
    path = write_results_file(str(tmp_path / "zero.h5"), runs=[dict(run_id=new_run_id())], schema=0)
    with pytest.raises(rr.ResultsError, match=r"zero\.h5: schema version 0 is not a ringbench schema version"):
        rr.open_results(path)


def test_supported_schemas_are_every_version_up_to_the_newest():
    assert rr.SUPPORTED_SCHEMAS == tuple(range(1, rr.NEWEST_SCHEMA + 1))
    assert max(ADDED_COLUMNS) <= rr.NEWEST_SCHEMA  # the factory writes no version the scripts refuse


def test_open_reads_every_older_schema_version(tmp_path):
    for version in rr.SUPPORTED_SCHEMAS:
        path = write_results_file(str(tmp_path / f"v{version}.h5"), runs=[dict(run_id=new_run_id())], schema=version)
        with rr.open_results(path) as f:
            assert int(f.attrs[rr.SCHEMA_ATTRIBUTE]) == version


def test_open_refuses_a_directory(tmp_path):
    with pytest.raises(rr.ResultsError) as error:
        rr.open_results(str(tmp_path))
    assert str(error.value) == f"{tmp_path}: is a directory"


def test_open_refuses_a_missing_file(tmp_path):
    with pytest.raises(rr.ResultsError) as error:
        rr.open_results(str(tmp_path / "gone.h5"))
    assert str(error.value) == f"{tmp_path / 'gone.h5'}: no such file"


def test_open_refuses_a_file_without_a_runs_table(tmp_path):
    path = write_results_file(str(tmp_path / "bare.h5"))  # the version attribute, no table
    with pytest.raises(rr.ResultsError) as error:
        rr.open_results(path)
    assert str(error.value) == f"{path}: no /runs table, so not a file ringbench or topomodel wrote"
    run = new_run_id()
    model = write_results_file(str(tmp_path / "model.h5"), model={"placements": [dict(run_id=run)]})
    with rr.open_results(model) as f:  # topomodel's files hold /model/runs instead
        assert "/model/runs" in f


def test_table_paths_lists_every_compound_table_and_nothing_else(tmp_path):
    run = new_run_id()
    path = write_results_file(str(tmp_path / "a.h5"), runs=[dict(run_id=run)], results=[dict(run_id=run)],
                              model={"placements": [dict(run_id=run)]})
    with h5py.File(path, "r+") as f:
        f["plain_numbers"] = np.arange(4)          # not compound
        f.create_dataset("matrix", shape=(2, 2), dtype=[("a", "<i8"), ("b", "<f8")])  # compound but 2-D
    with rr.open_results(path) as f:
        assert rr.table_paths(f) == ["/model/placements", "/model/runs", "/results", "/runs"]


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
    assert "a.h5" in message and "not two ringbench versions of one table" in message


def test_load_refuses_a_column_of_another_type(tmp_path):
    one_run(str(tmp_path / "a.h5"))
    other = str(tmp_path / "other.h5")
    with h5py.File(other, "w") as f:
        f.attrs[rr.SCHEMA_ATTRIBUTE] = np.int64(1)
        data = np.array([(7,)], dtype=[("run_id", "<i8")])  # run_id as a number: not a version of /runs
        f.create_dataset("runs", data=data, maxshape=(None,))
    with pytest.raises(rr.ResultsError, match=r"other\.h5: table /runs has columns \['run_id'\]"):
        rr.load([str(tmp_path / "a.h5"), other], log=None)


@pytest.fixture
def later_schema(monkeypatch):
    """The scripts as they will be once a version after the newest exists (additive, as every
    version is): only NEWEST_SCHEMA moves."""
    monkeypatch.setattr(rr, "NEWEST_SCHEMA", LATER)
    return LATER


@pytest.mark.parametrize("order", ["oldest first", "newest first"])
def test_load_reads_files_of_every_version_together_filling_missing_columns(tmp_path, later_schema, order):
    runs = {v: one_run(str(tmp_path / f"v{v}.h5"), sizes=(8, 16), schema=v, added=LATER_COLUMNS, t_avg_us=float(v))
            for v in range(1, later_schema + 1)}
    paths = [str(tmp_path / f"v{v}.h5") for v in sorted(runs, reverse=order == "newest first")]
    tables = rr.load(paths, log=None)
    results, run_rows = tables["/results"], tables["/runs"]
    assert list(results.names[-3:]) == ["foreign_cpu_share", "root", "wrong_out_of_place"]  # the newest layout
    assert results.units["t_median_us"] == "us"
    by_run = {r["run_id"]: r for r in results.rows()}
    old, new = by_run[runs[1]], by_run[runs[later_schema]]
    assert float(old["t_avg_us"]) == 1.0 and float(new["t_avg_us"]) == float(later_schema)
    # Missing columns hold what ringbench writes when it widens an older table.
    assert math.isnan(old["t_median_us"]) and old["stop_reason"] == "" and int(old["calls"]) == -1
    assert int(old["wrong_out_of_place"]) == 0 and int(old["root"]) == -1
    assert float(new["t_median_us"]) == 95.0 and new["stop_reason"] == "ci" and int(new["wrong_out_of_place"]) == 3
    if later_schema > 2:
        v2 = by_run[runs[2]]
        assert float(v2["t_median_us"]) == 95.0 and int(v2["root"]) == -1
    runs_by_id = {r["run_id"]: r for r in run_rows.rows()}
    assert runs_by_id[runs[1]]["site_note"] == "" and math.isnan(runs_by_id[runs[1]]["load_average"])
    assert runs_by_id[runs[later_schema]]["site_note"] == "rack 7"


def test_missing_values_match_what_ringbench_writes():
    string = h5py.string_dtype("utf-8")
    assert rr.missing_value(string) == b""
    assert math.isnan(rr.missing_value(np.dtype("<f8")))
    assert rr.missing_value(np.dtype("<i8")) == -1
    assert rr.missing_value(np.dtype("<u8")) == 0


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


def test_load_frame_is_one_tidy_row_per_result_with_its_run_joined(tmp_path):
    pd = pytest.importorskip("pandas", reason="load_frame needs pandas (python3-pandas, scripts/setup.sh)")
    a = one_run(str(tmp_path / "a.h5"), sizes=(8, 16, 32), world_size=2, hosts="h1,h2", schema=1)
    b = one_run(str(tmp_path / "b.h5"), sizes=(8,), world_size=3, schema=2, t_avg_us=7.0)
    frame = rr.load_frame([str(tmp_path / "a.h5"), str(tmp_path / "b.h5")], log=None)
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 4  # one row per /results row: the join multiplies nothing
    assert list(frame["run_id"]) == [a, a, a, b]
    assert list(frame["bytes"]) == [8, 16, 32, 8]
    # Strings are str, not bytes; the runs' columns sit beside the results' own.
    assert frame["collective"].map(type).eq(str).all() and frame.loc[0, "collective"] == "allreduce"
    assert list(frame["hosts"]) == ["h1,h2"] * 3 + ["vm"]
    assert frame.loc[3, "t_avg_us"] == 7.0
    # A column both tables have keeps the results' name; the run's copy gets "_run".
    assert "world_size" in frame and "world_size_run" in frame
    assert list(frame["world_size_run"]) == [2, 2, 2, 3]
    # *_utc columns are timestamps; a schema-1 row's schema-2 columns are missing values.
    assert frame.loc[0, "start_utc"] == pd.Timestamp("2025-01-01T00:00:00Z")
    assert math.isnan(frame.loc[0, "t_median_us"]) and frame.loc[3, "t_median_us"] == 95.0
    assert math.isnan(frame.loc[0, "load_average"]) and frame.loc[3, "load_average"] == 0.5
    # One path alone works too, and /runs itself comes back without a join.
    runs = rr.load_frame(str(tmp_path / "a.h5"), table="/runs", log=None)
    assert list(runs["run_id"]) == [a] and "world_size_run" not in runs


def test_load_frame_joins_model_tables_with_model_runs_and_names_a_missing_table(tmp_path):
    pytest.importorskip("pandas", reason="load_frame needs pandas (python3-pandas, scripts/setup.sh)")
    sweep = new_run_id()
    path = write_results_file(str(tmp_path / "m.h5"), model={"placements": [dict(run_id=sweep, tp=4),
                                                                            dict(run_id=sweep, tp=8)]})
    frame = rr.load_frame(path, table="/model/placements", log=None)
    assert list(frame["tp"]) == [4, 8]
    assert list(frame["command"]) == ["sweep", "sweep"]  # from /model/runs
    assert "cluster_run" in frame and "gpus_run" in frame
    with pytest.raises(rr.ResultsError, match=r"m\.h5: no /results table \(tables: /model/placements, /model/runs\)"):
        rr.load_frame(path, log=None)


def test_load_frame_of_a_real_schema_1_file(scripts_dir):
    pytest.importorskip("pandas", reason="load_frame needs pandas (python3-pandas, scripts/setup.sh)")
    path = scripts_dir.parent / "tests" / "data" / "results-schema1.h5"
    frame = rr.load_frame(str(path), log=None)
    assert len(frame) == 4 and frame["run_id"].nunique() == 1
    assert set(frame["exit_status"]) == {"ok"} and frame["interface"].iloc[0] == "lo (127.0.0.1)"
    # Alone, a file keeps its own layout: widening goes to the newest layout among the inputs.
    assert "t_median_us" not in frame and "t_avg_us" in frame


def test_the_scripts_know_the_version_ringbench_writes(scripts_dir):
    """ringbench's schema version (bench/results/results_file.h) must be one the scripts read: a
    bump there without one here would make every new file unreadable to them."""
    import re

    header = (scripts_dir.parent / "bench" / "results" / "results_file.h").read_text()
    written = int(re.search(r"kSchemaVersion = (\d+);", header).group(1))
    assert written <= rr.NEWEST_SCHEMA, (f"ringbench writes schema {written}, the scripts know up to "
                                         f"{rr.NEWEST_SCHEMA}: raise NEWEST_SCHEMA in scripts/ringbench_results.py "
                                         "(and ADDED_COLUMNS in tests/python/results_factory.py)")
