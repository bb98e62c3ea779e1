"""Reading and merging ringbench results files (HDF5, written by bench/results).

A results file holds 1-D compound datasets ("tables"): /runs and /results from ringbench,
/model/* from topomodel. Strings are variable-length UTF-8 and come out of h5py as bytes; the
helpers here decode them. Every run has a globally unique id (UUID v4), so tables from any
number of files (array tasks, different days, different machines) concatenate without
collisions; a run met twice (a file merged with a copy of itself, or with its own merge output)
is kept once.

Used by ringbench_merge.py and ringbench_analyze.py; needs h5py and numpy only.
"""

import os
import sys

import h5py
import numpy as np

SCHEMA_ATTRIBUTE = "ringbench_schema_version"
# Versions are additive (bench/results/results_file.h): an older file's tables are the first
# columns of a newer one's, so every reader here reads both. (Merging files of two versions is
# still refused by check_compatible: their tables differ in columns.)
SUPPORTED_SCHEMAS = (1, 2)


class ResultsError(Exception):
    """A problem with an input file that the user can act on; printed as one line."""


def replace_durably(tmp, path):
    """Renames the finished copy `tmp` over `path` so that a crash leaves one or the other: the
    copy is fsynced first and the directory after, as ringbench's own commits do."""
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def table_paths(f):
    """Paths ("/runs", "/model/placements") of every compound 1-D dataset in an open file."""
    paths = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.dtype.names and obj.ndim == 1:
            paths.append("/" + name)

    f.visititems(visit)
    return sorted(paths)


def schema_version(f, path):
    if SCHEMA_ATTRIBUTE not in f.attrs:
        raise ResultsError(f"{path}: not a ringbench results file (no {SCHEMA_ATTRIBUTE} attribute)")
    version = int(f.attrs[SCHEMA_ATTRIBUTE])
    if version not in SUPPORTED_SCHEMAS:
        raise ResultsError(f"{path}: schema version {version}, this script reads {SUPPORTED_SCHEMAS}")
    return version


def open_results(path):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ResultsError(f"{path}: cannot open as HDF5 ({e})") from None
    schema_version(f, path)
    return f


def decode(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


class Table:
    """A table in memory: column names, one numpy array per column (strings decoded)."""

    def __init__(self, path, names, columns, units=None):
        self.path = path
        self.names = list(names)
        self.columns = columns  # name -> np.ndarray
        self.units = units or {}

    def __len__(self):
        return len(self.columns[self.names[0]]) if self.names else 0

    def __contains__(self, name):
        return name in self.columns

    def __getitem__(self, name):
        return self.columns[name]

    def rows(self):
        for i in range(len(self)):
            yield {n: self.columns[n][i] for n in self.names}

    def select(self, mask):
        return Table(self.path, self.names, {n: c[mask] for n, c in self.columns.items()}, self.units)

    @staticmethod
    def from_dataset(ds):
        data = ds[:]
        columns = {}
        for name in data.dtype.names:
            column = data[name]
            if column.dtype.kind in "OS":
                column = np.array([decode(v) for v in column], dtype=object)
            columns[name] = column
        units = {}
        if "column_units" in ds.attrs:
            for name, unit in zip(data.dtype.names, ds.attrs["column_units"]):
                units[name] = decode(unit)
        return Table(ds.name, data.dtype.names, columns, units)


def run_owners(files):
    """Maps each run id to the first file (index) that holds it, and lists run ids met again."""
    owner, repeated = {}, []
    for index, f in enumerate(files):
        for path in table_paths(f):
            ds = f[path]
            if "run_id" not in ds.dtype.names:
                continue
            for run_id in set(decode(v) for v in ds["run_id"]):
                if run_id not in owner:
                    owner[run_id] = index
                elif owner[run_id] != index and run_id not in repeated:
                    repeated.append(run_id)
    return owner, repeated


def check_compatible(files, names):
    """Every table present in several files must have the same columns and types there."""
    first = {}
    for f, name in zip(files, names):
        for path in table_paths(f):
            dtype = f[path].dtype
            if path not in first:
                first[path] = (name, dtype)
                continue
            other, other_dtype = first[path]
            if dtype.names != other_dtype.names:
                raise ResultsError(f"{name}: table {path} has columns {list(dtype.names)}, but {other} has "
                                   f"{list(other_dtype.names)}: files from different ringbench versions")


def selected_rows(files, path, owner):
    """Rows of table `path` from every file, each run's rows from the first file that holds it."""
    parts = []
    for index, f in enumerate(files):
        if path not in f:
            continue
        data = f[path][:]
        if "run_id" in data.dtype.names:
            keep = np.array([owner[decode(v)] == index for v in data["run_id"]], dtype=bool)
            data = data[keep] if len(data) else data
        parts.append(data)
    return parts


def load(paths, log=sys.stderr):
    """Merged tables of all files, in memory: {"/runs": Table, "/results": Table, "/model/...": ...}."""
    files, names = [], []
    try:
        for p in paths:
            files.append(open_results(p))
            names.append(p)
        check_compatible(files, names)
        owner, repeated = run_owners(files)
        if repeated and log:
            print(f"# note: {len(repeated)} run(s) appear in more than one file; each is kept once", file=log)
        tables = {}
        all_paths = sorted({p for f in files for p in table_paths(f)})
        for path in all_paths:
            parts = selected_rows(files, path, owner)
            template = next(f[path] for f in files if path in f)
            merged = np.concatenate(parts) if parts else template[:0]
            table = Table.from_dataset(template)  # for names and units
            columns = {}
            for name in merged.dtype.names:
                column = merged[name]
                if column.dtype.kind in "OS":
                    column = np.array([decode(v) for v in column], dtype=object)
                columns[name] = column
            tables[path] = Table(path, merged.dtype.names, columns, table.units)
        return tables
    finally:
        for f in files:
            f.close()


def merge_files(paths, output, log=sys.stderr):
    """Writes the merge of `paths` to `output` in the same layout (so ringbench and topomodel can
    keep appending to it): each table is copied with its attributes from the first file holding
    it, then filled with every file's rows, each run once. Written to a temporary file, fsynced
    and renamed into place, so a failure never leaves a half-written output."""
    files = []
    tmp = f"{output}.tmp.{os.getpid()}"
    try:
        for p in paths:
            files.append(open_results(p))
        check_compatible(files, paths)
        owner, repeated = run_owners(files)
        counts = {}
        with h5py.File(tmp, "w") as out:
            out.attrs[SCHEMA_ATTRIBUTE] = np.int64(schema_version(files[0], paths[0]))
            for path in sorted({p for f in files for p in table_paths(f)}):
                parts = selected_rows(files, path, owner)
                rows = np.concatenate(parts)
                source = next(f for f in files if path in f)
                parent = os.path.dirname(path)
                group = out.require_group(parent) if parent != "/" else out
                # h5py's copy keeps the exact types (UTF-8 variable-length strings), chunking,
                # unlimited shape and attributes; the rows are then replaced by the merged ones.
                source.copy(source[path], group, name=os.path.basename(path))
                ds = out[path]
                ds.resize((len(rows),))
                if len(rows):
                    ds[:] = rows
                counts[path] = len(rows)
        replace_durably(tmp, output)
        return counts, len(owner), repeated
    finally:
        for f in files:
            f.close()
        if os.path.exists(tmp):
            os.unlink(tmp)
