"""Checks a ringbench results file written by a real run, for the script and Slurm tests.

    check_results.py FILE [--runs N] [--world-size N ...] [--hosts h1,h2] [--interface eth0]
                          [--model] [--print-busbw]

Fails (exit 1, one line per problem) unless every run ended "ok", each run has /results rows
for its world size with formula_ok and verified set, and the options' expectations hold.
--print-busbw prints the median busbw of the largest size of the last run (for comparisons).
"""

import argparse
import sys

import pathlib
import re

import h5py
import numpy as np

# The version this ringbench writes, from its one definition.
HEADER = pathlib.Path(__file__).resolve().parents[2] / "bench" / "results" / "results_file.h"
WRITTEN_SCHEMA = int(re.search(r"kSchemaVersion = (\d+);", HEADER.read_text()).group(1))


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--runs", type=int)
    p.add_argument("--world-size", type=int, action="append")
    p.add_argument("--hosts")
    p.add_argument("--interface")
    p.add_argument("--model", action="store_true", help="expect /model/placements and /model/collectives rows")
    p.add_argument("--print-busbw", action="store_true")
    a = p.parse_args()
    problems = []
    with h5py.File(a.file, "r") as f:
        if int(f.attrs.get("ringbench_schema_version", -1)) != WRITTEN_SCHEMA:
            problems.append(f"schema version attribute missing or not {WRITTEN_SCHEMA} (what this ringbench writes)")
        if a.model:
            for table in ("model/placements", "model/collectives", "model/runs"):
                if table not in f or len(f[table]) == 0:
                    problems.append(f"no rows in /{table}")
        runs = f["runs"][:] if "runs" in f else None
        results = f["results"][:] if "results" in f else None
    if runs is not None:
        ids = [text(r) for r in runs["run_id"]]
        if len(set(ids)) != len(ids):
            problems.append("duplicate run ids in /runs")
        if a.runs is not None and len(ids) != a.runs:
            problems.append(f"{len(ids)} runs, expected {a.runs}")
        for run in runs:
            rid, status = text(run["run_id"]), text(run["exit_status"])
            if status != "ok":
                problems.append(f"run {rid}: exit_status {status!r}")
            if a.hosts and text(run["hosts"]) != a.hosts:
                problems.append(f"run {rid}: hosts {text(run['hosts'])!r}, expected {a.hosts!r}")
            if a.interface and not text(run["interface"]).startswith(a.interface + " "):
                problems.append(f"run {rid}: interface {text(run['interface'])!r}, expected {a.interface}")
            mine = results[np.array([text(x) == rid for x in results["run_id"]])] if results is not None else []
            if len(mine) == 0:
                problems.append(f"run {rid}: no /results rows")
                continue
            if set(int(n) for n in mine["world_size"]) != {int(run["world_size"])}:
                problems.append(f"run {rid}: /results world sizes differ from /runs")
            # The mpi rows' bytes cross the MPI library's connections: not counted (-1).
            expected_ok = np.array([-1 if text(a) == "mpi" else 1 for a in mine["algorithm"]])
            if not np.all(mine["formula_ok"] == expected_ok):
                problems.append(f"run {rid}: byte formula check failed in {int(np.sum(mine['formula_ok'] != expected_ok))} rows")
            if not np.all(mine["verified"] == 1):
                problems.append(f"run {rid}: verification failed in {int(np.sum(mine['verified'] != 1))} rows")
            if not np.all(mine["t_avg_us"] > 0):
                problems.append(f"run {rid}: non-positive latency")
        if a.world_size and sorted(int(n) for n in runs["world_size"]) != sorted(a.world_size):
            problems.append(f"world sizes {sorted(int(n) for n in runs['world_size'])}, expected {sorted(a.world_size)}")
        if a.print_busbw and results is not None:
            last = text(runs["run_id"][-1])
            mine = results[np.array([text(x) == last for x in results["run_id"]])]
            largest = mine[mine["bytes"] == mine["bytes"].max()]
            print(f"{float(np.median(largest['busbw_GBps'])):.6f}")
    elif not a.model:
        problems.append("no /runs table")
    for problem in problems:
        print(f"check_results: {a.file}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
