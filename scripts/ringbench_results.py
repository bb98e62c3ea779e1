"""Reading and merging ringbench results files (HDF5, written by bench/results).

A results file holds 1-D compound datasets ("tables"): /runs and /results from ringbench,
/model/* from topomodel. Strings are variable-length UTF-8 and come out of h5py as bytes; the
helpers here decode them. Every run has a globally unique id (UUID v4), so tables from any
number of files (array tasks, different days, different machines) concatenate without
collisions; a run met twice (a file merged with a copy of itself, or with its own merge output)
is kept once.

Schema versions only add (tables, and columns at the end of a table), so files of every version up
to the newest known are read and merged together: a table from an older file is widened to the
newest layout, its missing columns filled as ringbench itself fills them when it appends to an
older file (NaN, "", -1 for signed integers, 0 for unsigned counts). A newer file is refused.

Used by ringbench_merge.py and ringbench_analyze.py; needs h5py and numpy, and pandas only for
load_frame:

    import ringbench_results
    df = ringbench_results.load_frame("ringbench.h5")  # /results joined with /runs, one row per row
    df.groupby(["collective", "algorithm", "bytes"])["busbw_GBps"].median()
"""

import io
import os
import struct
import sys

import h5py
import numpy as np

SCHEMA_ATTRIBUTE = "ringbench_schema_version"
# The newest version these scripts know (bench/results/results_file.h, kSchemaVersion). Versions
# are additive: an older file's tables are the first columns of a newer one's, so every version up
# to this one is read, and files of several versions merge (see merged_dtypes).
NEWEST_SCHEMA = 10
SUPPORTED_SCHEMAS = tuple(range(1, NEWEST_SCHEMA + 1))
# Tables whose rows are runs: every results file has one (ringbench's or topomodel's).
RUNS_TABLES = ("/runs", "/model/runs")


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
    if version > NEWEST_SCHEMA:
        raise ResultsError(f"{path}: schema version {version} is newer than these scripts read (1 to "
                           f"{NEWEST_SCHEMA}): use the scripts of the ringbench that wrote it")
    if version < 1:
        raise ResultsError(f"{path}: schema version {version} is not a ringbench schema version (1 to {NEWEST_SCHEMA})")
    return version


def input_problem(path):
    """Why `path` cannot be an input file ("PATH: is a directory"), or None. Checked before opening so
    that the message says what is wrong rather than what HDF5 made of it."""
    if os.path.isdir(path):
        return f"{path}: is a directory"
    if not os.path.exists(path):
        return f"{path}: no such file"
    return None


class UndoOverlay(io.RawIOBase):
    """The results file as it was before a commit that a kill left half done: the original bytes
    kept in its sealed undo log "<file>.undo" (layout: bench/results/undo_log.cpp) laid over the
    file, without writing anything. The next ringbench commit restores the file itself."""

    def __init__(self, path, size, originals):
        self.file, self.size, self.originals, self.at = open(path, "rb"), size, originals, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, offset, whence=io.SEEK_SET):
        self.at = {io.SEEK_SET: 0, io.SEEK_CUR: self.at, io.SEEK_END: self.size}[whence] + offset
        return self.at

    def tell(self):
        return self.at

    def readinto(self, buffer):
        n = max(0, min(len(buffer), self.size - self.at))
        self.file.seek(self.at)
        data = bytearray(self.file.read(n).ljust(n, b"\0"))
        for offset, original in self.originals:
            lo, hi = max(offset, self.at), min(offset + len(original), self.at + n)
            if lo < hi:
                data[lo - self.at:hi - self.at] = original[lo - offset:hi - offset]
        buffer[:n] = data
        self.at += n
        return n

    def close(self):
        self.file.close()
        super().close()


def sealed_undo(path):
    """An UndoOverlay for `path` when a sealed undo log lies beside it, else None."""
    try:
        with open(path + ".undo", "rb") as f:
            log = f.read()
    except OSError:
        return None
    if len(log) < 40 or log[:8] != b"RBUNDO01" or log[-8:] != b"SEALED01":
        return None  # never sealed: the file was not touched
    checksum = 14695981039346656037
    for byte in log[:-16]:
        checksum = ((checksum ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    if checksum != struct.unpack_from("<Q", log, len(log) - 16)[0]:
        return None
    size, count = struct.unpack_from("<QQ", log, 8)
    at, originals = 24, []
    for _ in range(count):
        offset, length = struct.unpack_from("<QQ", log, at)
        originals.append((offset, log[at + 16:at + 16 + length]))
        at += 16 + length
    return UndoOverlay(path, size, originals)


def open_results(path):
    """The results file at `path`, open for reading; ResultsError (one line naming it) for a
    directory, a missing file, a file that is not HDF5, has no or a newer schema version, or holds no
    table of runs (neither /runs nor /model/runs)."""
    problem = input_problem(path)
    if problem:
        raise ResultsError(problem)
    try:
        f = h5py.File(sealed_undo(path) or path, "r")
    except OSError as e:
        raise ResultsError(f"{path}: cannot open as HDF5 ({e})") from None
    try:
        schema_version(f, path)
        if not any(table in f for table in RUNS_TABLES):
            raise ResultsError(f"{path}: no /runs table, so not a file ringbench or topomodel wrote")
    except ResultsError:
        f.close()
        raise
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
        return Table(ds.name, data.dtype.names, columns, column_units(ds))


def column_units(ds):
    """Column name -> unit, from a table's `column_units` attribute ({} without one)."""
    return {name: decode(unit) for name, unit in zip(ds.dtype.names, ds.attrs.get("column_units", []))}


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


def column_type(dtype):
    """A column's type as results files know it: "str" (variable-length UTF-8) or numpy's "<i8"."""
    return "str" if h5py.check_string_dtype(dtype) else dtype.str


def missing_value(dtype):
    """What a row written before a column existed holds in it, as ringbench writes it when it widens
    an older table (bench/results, missing_value): NaN, "", -1 (signed), 0 (unsigned)."""
    kind = "str" if h5py.check_string_dtype(dtype) else dtype.kind
    return {"str": b"", "f": np.nan, "i": -1, "u": 0}.get(kind, 0)


def merged_dtypes(files, names):
    """Table path -> (the widest dtype any file has for it, the index of that file). Every file's
    columns of a table must be the first columns of the widest (names and types), as the schema's
    additive versions make them; anything else is refused, naming both files."""
    widest = {}
    for index, (f, name) in enumerate(zip(files, names)):
        for path in table_paths(f):
            dtype = f[path].dtype
            if path in widest:
                best, best_index = widest[path]
                short, long_ = sorted((dtype, best), key=lambda d: len(d.names))
                if column_types(short) != column_types(long_)[:len(short.names)]:
                    raise ResultsError(f"{name}: table {path} has columns {list(dtype.names)}, but {names[best_index]} "
                                       f"has {list(best.names)}: neither is the first columns of the other, so they "
                                       "are not two ringbench versions of one table")
                if len(dtype.names) <= len(best.names):
                    continue
            widest[path] = (dtype, index)
    return widest


def column_types(dtype):
    return [(name, column_type(dtype[name])) for name in dtype.names]


def widen(data, dtype):
    """The rows `data` in the layout `dtype` (whose first columns are data's): the columns data lacks
    hold missing_value."""
    if data.dtype.names == dtype.names:
        return data
    out = np.empty(len(data), dtype=dtype)
    for name in dtype.names:
        out[name] = data[name] if name in data.dtype.names else missing_value(dtype[name])
    return out


def selected_rows(files, path, owner, dtype):
    """Rows of table `path` from every file in the layout `dtype`, each run's rows from the first file
    that holds it."""
    parts = []
    for index, f in enumerate(files):
        if path not in f:
            continue
        data = f[path][:]
        if "run_id" in data.dtype.names:
            keep = np.array([owner[decode(v)] == index for v in data["run_id"]], dtype=bool)
            data = data[keep] if len(data) else data
        parts.append(widen(data, dtype))
    return parts


def as_paths(paths):
    return [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)


def load(paths, log=sys.stderr):
    """Merged tables of all files (one path or several), in memory: {"/runs": Table, "/results":
    Table, "/model/...": ...}. Tables of older files are widened to the newest layout among them."""
    files, names = [], []
    try:
        for p in as_paths(paths):
            files.append(open_results(p))
            names.append(p)
        layouts = merged_dtypes(files, names)
        owner, repeated = run_owners(files)
        if repeated and log:
            print(f"# note: {len(repeated)} run(s) appear in more than one file; each is kept once", file=log)
        tables = {}
        for path, (dtype, widest) in sorted(layouts.items()):
            merged = np.concatenate(selected_rows(files, path, owner, dtype))
            units = column_units(files[widest][path])
            columns = {}
            for name in merged.dtype.names:
                column = merged[name]
                if column.dtype.kind in "OS":
                    column = np.array([decode(v) for v in column], dtype=object)
                columns[name] = column
            tables[path] = Table(path, merged.dtype.names, columns, units)
        return tables
    finally:
        for f in files:
            f.close()


def load_frame(paths, table="/results", log=sys.stderr):
    """One tidy pandas DataFrame of `table` from all files (one path or several), merged as load
    merges them: one row per row of the table, strings decoded, *_utc columns as UTC timestamps, and
    each row's run (/runs, or /model/runs for a /model table) joined on run_id. A run column whose
    name the table also has gets the suffix "_run" (world_size_run). Needs pandas."""
    import pandas as pd

    tables = load(paths, log=log)
    if table not in tables:
        raise ResultsError(f"{', '.join(as_paths(paths))}: no {table} table (tables: {', '.join(sorted(tables))})")
    frame = table_frame(pd, tables[table])
    runs_path = "/model/runs" if table.startswith("/model/") else "/runs"
    if table != runs_path and runs_path in tables and "run_id" in frame.columns:
        runs = table_frame(pd, tables[runs_path]).drop_duplicates("run_id", keep="last")
        frame = frame.merge(runs, on="run_id", how="left", suffixes=("", "_run"), validate="many_to_one")
    return frame


def table_frame(pd, table):
    frame = pd.DataFrame({name: table[name] for name in table.names})
    for name in table.names:
        if name.endswith("_utc"):
            frame[name] = pd.to_datetime(frame[name], utc=True, errors="coerce")
    return frame


def merge_files(paths, output, log=sys.stderr):
    """Writes the merge of `paths` to `output` in the same layout (so ringbench and topomodel can
    keep appending to it): each table is copied with its attributes from the file with its newest
    layout, then filled with every file's rows (older rows widened), each run once; the output's
    schema version is the newest of the inputs'. Written to a temporary file, fsynced
    and renamed into place, so a failure never leaves a half-written output."""
    files = []
    tmp = f"{output}.tmp.{os.getpid()}"
    try:
        for p in paths:
            files.append(open_results(p))
        layouts = merged_dtypes(files, paths)
        owner, repeated = run_owners(files)
        counts = {}
        with h5py.File(tmp, "w") as out:
            out.attrs[SCHEMA_ATTRIBUTE] = np.int64(max(schema_version(f, p) for f, p in zip(files, paths)))
            for path, (dtype, widest) in sorted(layouts.items()):
                rows = np.concatenate(selected_rows(files, path, owner, dtype))
                source = files[widest]  # the newest layout of the table, with its attributes
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
        # A killed commit's undo log beside the output belongs to the file just replaced (whose
        # content the merge read through it): over the new file, readers would lay stale bytes and
        # the next ringbench would "restore" them into it.
        if os.path.exists(output + ".undo"):
            os.unlink(output + ".undo")
        return counts, len(owner), repeated
    finally:
        for f in files:
            f.close()
        if os.path.exists(tmp):
            os.unlink(tmp)
