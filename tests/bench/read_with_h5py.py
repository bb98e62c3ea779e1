#!/usr/bin/env python3
"""Reads the sample results file (results_sample.h) with h5py, as analysis scripts will.

Usage: read_with_h5py.py SAMPLE.h5
Checks the layout and the values, including how strings come out (bytes, decode as UTF-8), and,
when pandas is installed, the DataFrame recipe the team uses. Exits non-zero on any mismatch.
"""
import sys

import h5py
import numpy as np


def check(condition, what):
    if not condition:
        sys.exit(f"read_with_h5py: {what}")


def main(path):
    with h5py.File(path, "r") as f:
        check(int(f.attrs["ringbench_schema_version"]) == 10, "schema version is not 10 (what this ringbench writes)")

        results = f["results"]
        check(results.maxshape == (None,), f"/results is not extendible: {results.maxshape}")
        check(results.dtype.names == ("run_id", "bytes", "t_avg_us", "busbw_GBps", "wrong"),
              f"/results columns: {results.dtype.names}")
        check(results.dtype["bytes"] == np.uint64 and results.dtype["wrong"] == np.int64,
              f"/results column types: {results.dtype}")
        check(list(results.attrs["column_units"]) == ["", "bytes", "us", "GB/s (1e9 bytes/s)", ""],
              f"column_units: {list(results.attrs['column_units'])}")
        check(len(results.attrs["column_descriptions"]) == 5, "column_descriptions length")
        check(results.attrs["description"] == "one row per (run, size)", "description attribute")

        rows = results[:]
        check(len(rows) == 3, f"/results has {len(rows)} rows")
        # Variable-length strings inside a compound come back as bytes.
        check(rows["run_id"].tolist() == [b"run-a", b"run-a", b"run-b"], f"run_id: {rows['run_id']}")
        check(rows["bytes"].tolist() == [1024, 1 << 20, 2**64 - 1], f"bytes: {rows['bytes']}")
        check(rows["t_avg_us"].tolist() == [12.5, 250.0, 1e9], f"t_avg_us: {rows['t_avg_us']}")
        check(rows["wrong"].tolist() == [0, 0, -1], f"wrong: {rows['wrong']}")

        runs = f["runs"][:]
        check([s.decode("utf-8") for s in runs["note"]] == ["", "µs ✓"], f"runs.note: {runs['note']}")
        check(f["model/placements"][:]["cost_us"].tolist() == [3.25], "model/placements")

    try:
        import pandas as pd
    except ImportError:
        print("read_with_h5py: h5py reads the file; pandas not installed, DataFrame recipe not checked")
        return

    # The recipe in the team's notes: a DataFrame with str (not bytes) string columns.
    df = pd.DataFrame(h5py.File(path, "r")["results"][:])
    for column in df.select_dtypes(object):
        df[column] = df[column].str.decode("utf-8")
    check(df["run_id"].tolist() == ["run-a", "run-a", "run-b"], f"pandas run_id: {df['run_id'].tolist()}")
    check(df.groupby("run_id")["bytes"].count().to_dict() == {"run-a": 2, "run-b": 1}, "pandas groupby")
    print("read_with_h5py: h5py and pandas read the file")


if __name__ == "__main__":
    main(sys.argv[1])
