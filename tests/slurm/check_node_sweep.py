"""Checks a merged node-count sweep (slurm.two_node) and prints it as a table.

    check_node_sweep.py MERGED.h5 [--interface NAME] NODESxRANKS [NODESxRANKS ...]

Each run's node count is the number of distinct hosts it ran on (/runs hosts). The runs' (nodes,
ranks) pairs must be exactly the ones given (as a multiset: the table's rows), every run "ok" and
every row verified, and with --interface every run's interface that one. Prints one line per run: nodes, ranks, hosts, interface, the largest size and
its median busbw. Exit 1, one line per problem, otherwise.
"""

import sys

import h5py
import numpy as np


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    args = sys.argv[1:]
    path, interface = args.pop(0), None
    if args[0] == "--interface":
        interface = args[1]
        args = args[2:]
    expected = sorted(tuple(int(x) for x in pair.split("x")) for pair in args)
    problems, found = [], []
    with h5py.File(path, "r") as f:
        runs, results = f["runs"][:], f["results"][:]
    print(f"{'nodes':>5} {'ranks':>5}  {'hosts':<6} {'interface':<24} {'bytes':>8} {'busbw GB/s':>10}")
    for run in sorted(runs, key=lambda r: (len(text(r["hosts"]).split(",")), int(r["world_size"]))):
        rid, hosts = text(run["run_id"]), text(run["hosts"])
        nodes, ranks = len(set(hosts.split(","))), int(run["world_size"])
        found.append((nodes, ranks))
        if text(run["exit_status"]) != "ok":
            problems.append(f"run {rid}: exit_status {text(run['exit_status'])!r}")
        if interface and not text(run["interface"]).startswith(interface + " "):
            problems.append(f"run {rid}: interface {text(run['interface'])!r}, expected {interface}")
        mine = results[np.array([text(x) == rid for x in results["run_id"]])]
        if len(mine) == 0 or not np.all(mine["verified"] == 1):
            problems.append(f"run {rid}: missing or unverified /results rows")
            continue
        largest = mine[mine["bytes"] == mine["bytes"].max()]
        print(f"{nodes:>5} {ranks:>5}  {hosts:<6} {text(run['interface'])[:24]:<24} {int(largest['bytes'][0]):>8} "
              f"{float(np.median(largest['busbw_GBps'])):>10.4f}")
    if sorted(found) != expected:
        problems.append(f"(nodes, ranks) of the runs {sorted(found)}, expected {expected}")
    for problem in problems:
        print(f"check_node_sweep: {path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
