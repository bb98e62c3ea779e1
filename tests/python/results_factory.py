"""Small ringbench results files, written with h5py in the layout bench/results writes.

The columns, their order and their types are those of a real `mpirun -np 2 ringbench -o x.h5`
file (schema version 1, and with schema=2 or 3 the columns those versions add at the end of /runs
and /results), and of topomodel's /model tables: variable-length UTF-8 strings,
int64 and uint64 counts, float64 figures, each table a chunked 1-D compound dataset with
unlimited length and `description`, `column_units` and `column_descriptions` attributes. Any
value a test does not give gets a plausible default, so a test states only what it checks.
"""

import uuid

import h5py
import numpy as np

SCHEMA_ATTRIBUTE = "ringbench_schema_version"

# (name, numpy kind or "str", unit, default)
RUNS_COLUMNS = [
    ("run_id", "str", "", None),
    ("start_utc", "str", "ISO 8601 UTC", "2025-01-01T00:00:00Z"),
    ("end_utc", "str", "ISO 8601 UTC", "2025-01-01T00:00:10Z"),
    ("ringbench_version", "str", "", "0.1.0"),
    ("git_revision", "str", "", "abcdef123456"),
    ("mpi_library", "str", "", "Open MPI v4.1.4"),
    ("mca_parameters", "str", "", "pml=ob1"),
    ("world_size", "<i8", "ranks", 2),
    ("hosts", "str", "", "vm"),
    ("cpu_model", "str", "", "Test CPU"),
    ("kernel", "str", "", "Linux 6.1"),
    ("socket_buffers", "str", "", "request 0 B"),
    ("timing_method", "str", "", "osu: barrier before each call"),
    ("command_line", "str", "", "ringbench -m 8:64K"),
    ("interface", "str", "", "lo (127.0.0.1)"),
    ("plain_pair_GBps", "<f8", "GB/s (1e9 B/s)", 3.0),
    ("plain_pair_path", "str", "", "loopback on vm"),
    ("exit_status", "str", "", "ok"),
]

RESULTS_COLUMNS = [
    ("run_id", "str", "", None),
    ("collective", "str", "", "allreduce"),
    ("algorithm", "str", "", "ring"),
    ("chosen_algorithm", "str", "", "ring"),
    ("transport", "str", "", "ringbench tcp"),
    ("in_place", "<i8", "bool", 1),
    ("world_size", "<i8", "ranks", 2),
    ("dtype", "str", "", "float32"),
    ("op", "str", "", "sum"),
    ("bytes", "<u8", "B", 1024),
    ("count", "<u8", "elements", 256),
    ("iterations", "<i8", "", 100),
    ("warmup", "<i8", "", 10),
    ("t_avg_us", "<f8", "us", 100.0),
    ("t_min_us", "<f8", "us", 90.0),
    ("t_max_us", "<f8", "us", 110.0),
    ("algbw_GBps", "<f8", "GB/s (1e9 B/s)", 0.01),
    ("busbw_GBps", "<f8", "GB/s (1e9 B/s)", 0.01),
    ("sent_min_bytes", "<u8", "B", 1024),
    ("sent_max_bytes", "<u8", "B", 1024),
    ("overhead_bytes", "<u8", "B", 64),
    ("formula_ok", "<i8", "bool", 1),
    ("bound_bytes", "<f8", "B", 1024.0),
    ("link_bound_us", "<f8", "us", 80.0),
    ("efficiency", "<f8", "fraction", 0.8),
    ("verified", "<i8", "bool", 1),
    ("wrong_count", "<u8", "elements", 0),
    ("max_abs_error", "<f8", "", 0.0),
]

# What each later schema adds at the end of each table (bench/ringbench/run_record.cpp). Of schema
# 3's opt_* columns (one per option) only the first few: enough for the tests, and the list grows.
ADDED_COLUMNS = {
    2: {"/runs": [("load_average", "<f8", "", 0.5),
                  ("ranks_per_core", "<f8", "", 1.0),
                  ("barrier_skew_us", "<f8", "us", 2.0),
                  ("median_ci_width", "<f8", "fraction", 0.01)],
        "/results": [("t_median_us", "<f8", "us", 95.0),
                     ("t_p05_us", "<f8", "us", 90.0),
                     ("t_p95_us", "<f8", "us", 120.0),
                     ("t_ci95_low_us", "<f8", "us", 94.0),
                     ("t_ci95_high_us", "<f8", "us", 96.0),
                     ("calls", "<i8", "", 100),
                     ("stop_reason", "str", "", "ci"),
                     ("foreign_cpu_share", "<f8", "fraction", 0.0)]},
    3: {"/runs": [("interface_reason", "str", "", "all ranks on one host: loopback"),
                  ("compiler", "str", "", "GNU 12.2.0"),
                  ("compiler_flags", "str", "", "-O3 -DNDEBUG"),
                  ("build_type", "str", "", "Release"),
                  ("hdf5_library", "str", "", "1.10.8"),
                  ("slurm_job_id", "str", "", ""),
                  ("slurm_array_job_id", "str", "", ""),
                  ("slurm_array_task_id", "str", "", ""),
                  ("opt_collective", "str", "", "allreduce"),
                  ("opt_algo", "str", "", "default"),
                  ("opt_dtype", "str", "", "float32"),
                  ("opt_op", "str", "", "sum"),
                  ("opt_min_bytes", "<u8", "B", 8),
                  ("opt_max_bytes", "<u8", "B", 65536)]},
}
BASE_COLUMNS = {"/runs": RUNS_COLUMNS, "/results": RESULTS_COLUMNS}


def columns_of(path, schema, added=None):
    """The columns of table `path` in schema version `schema`: version 1's, then each later version's
    additions; `added` ({version: {path: columns}}) stands in for versions not yet written."""
    columns = list(BASE_COLUMNS[path])
    versions = {**ADDED_COLUMNS, **(added or {})}
    for version in sorted(versions):
        if version <= (schema or 1):
            columns += versions[version].get(path, [])
    return columns


MODEL_RUNS_COLUMNS = [
    ("run_id", "str", "", None),
    ("command", "str", "", "sweep"),
    ("start_utc", "str", "ISO 8601 UTC", "2025-01-01T00:00:00Z"),
    ("end_utc", "str", "ISO 8601 UTC", "2025-01-01T00:00:01Z"),
    ("version", "str", "", "0.1.0"),
    ("git_revision", "str", "", "abcdef123456"),
    ("command_line", "str", "", "topomodel sweep"),
    ("cluster", "str", "", "dgx-h100"),
    ("cluster_json", "str", "", "{}"),
    ("gpus", "<i8", "GPUs", 16),
    ("exit_status", "<i8", "", 0),
]

MODEL_PLACEMENTS_COLUMNS = [
    ("run_id", "str", "", None),
    ("cluster", "str", "", "dgx-h100"),
    ("gpus", "<i8", "GPUs", 16),
    ("rank", "<i8", "", 1),
    ("tp", "<i8", "", 8),
    ("dp", "<i8", "", 2),
    ("pp", "<i8", "", 1),
    ("order", "str", "", "tp-dp-pp"),
    ("step_comm_us", "<f8", "us", 1000.0),
]

MODEL_COLLECTIVES_COLUMNS = [
    ("run_id", "str", "", None),
    ("cluster", "str", "", "dgx-h100"),
    ("gpus", "<i8", "GPUs", 16),
    ("op", "str", "", "allreduce"),
    ("algorithm", "str", "", "ring"),
    ("best", "<i8", "", 0),
    ("applicable", "<i8", "", 1),
    ("placement", "str", "", "dp16"),
    ("bytes", "<u8", "bytes", 1 << 20),
    ("time_us", "<f8", "us", 50.0),
    ("busbw_GBps", "<f8", "GB/s (1e9 B/s)", 40.0),
]

MODEL_VALIDATION_COLUMNS = [
    ("run_id", "str", "", None),
    ("case", "str", "", "nccl-tests allreduce 8 GPUs"),
    ("role", "str", "", "checked"),
    ("published_GBps", "<f8", "GB/s (1e9 B/s)", 100.0),
    ("model_GBps", "<f8", "GB/s (1e9 B/s)", 110.0),
    ("error_pct", "<f8", "%", 10.0),
]


def new_run_id():
    return str(uuid.uuid4())


def dtype_of(columns):
    string = h5py.string_dtype("utf-8")
    return np.dtype([(name, string if kind == "str" else kind) for name, kind, _, _ in columns])


def rows_array(columns, rows):
    data = np.zeros(len(rows), dtype=dtype_of(columns))
    for i, row in enumerate(rows):
        unknown = set(row) - {c[0] for c in columns}
        assert not unknown, f"no such column: {unknown}"
        for name, _, _, default in columns:
            value = row.get(name, default)
            assert value is not None, f"column {name} needs a value"
            data[i][name] = value
    return data


def write_table(f, path, columns, rows, description="test table"):
    """Creates (or appends to) the table at `path` of the open file `f`."""
    data = rows_array(columns, rows)
    if path not in f:
        ds = f.create_dataset(path, shape=(0,), maxshape=(None,), chunks=(64,), dtype=data.dtype)
        ds.attrs["description"] = description
        ds.attrs["column_units"] = [unit for _, _, unit, _ in columns]
        ds.attrs["column_descriptions"] = [f"the {name} column" for name, _, _, _ in columns]
    ds = f[path]
    start = len(ds)
    ds.resize((start + len(data),))
    if len(data):
        ds[start:] = data
    return ds


def write_results_file(path, runs=(), results=(), model=None, schema=1, added=None):
    """A results file at `path` of schema version `schema` (None: no version attribute): /runs and
    /results rows (dicts; run_id is required in each), and optionally /model tables given as
    {"placements": [...], "collectives": [...], "validation": [...]} (with a /model/runs row for
    each of their run ids). `added` as in columns_of. Returns `path`."""
    model = model or {}
    with h5py.File(path, "w") as f:
        if schema is not None:
            f.attrs[SCHEMA_ATTRIBUTE] = np.int64(schema)
        if runs:
            write_table(f, "/runs", columns_of("/runs", schema, added), list(runs), "one row per ringbench run")
        if results:
            write_table(f, "/results", columns_of("/results", schema, added), list(results),
                        "one row per (run, collective, algorithm, size)")
        tables = {"placements": MODEL_PLACEMENTS_COLUMNS, "collectives": MODEL_COLLECTIVES_COLUMNS,
                  "validation": MODEL_VALIDATION_COLUMNS}
        model_runs = sorted({row["run_id"] for rows in model.values() for row in rows})
        if model_runs:
            write_table(f, "/model/runs", MODEL_RUNS_COLUMNS, [dict(run_id=r) for r in model_runs], "topomodel runs")
        for name, rows in model.items():
            write_table(f, f"/model/{name}", tables[name], list(rows), f"topomodel {name}")
    return path


def one_run(path, sizes=(8, 1024, 65536), world_size=2, hosts="vm", run_id=None, schema=1, added=None,
            **result_values):
    """A file holding one run: its /runs row and one /results row per size. Returns the run id."""
    run_id = run_id or new_run_id()
    results = [dict(run_id=run_id, world_size=world_size, bytes=size, count=size // 4, sent_min_bytes=size,
                    sent_max_bytes=size, bound_bytes=float(size), **result_values) for size in sizes]
    write_results_file(path, runs=[dict(run_id=run_id, world_size=world_size, hosts=hosts)], results=results,
                       schema=schema, added=added)
    return run_id
