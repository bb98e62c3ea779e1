#!/usr/bin/python3
"""The issue's case under the real mpirun: a stranger that connects to mpirun's own ports during
start-up and says nothing holds MPI_Init in every rank (3 of 3 jobs hung with no output before the
launch deadline). The strangers connect once mpirun has started the ranks. Now each rank must say it waited for MPI start-up and exit 4, so that mpirun
ends the job, within the deadline (10 s for --timeout 1) plus a margin.

usage: launch_stranger_mpirun_test.py RINGBENCH MPIRUN
A stranger that arrives after MPI_Init is done is no trial (the job then simply runs); after 3 such
tries the test is skipped (exit 77). Nothing here is random.
"""

import os
import socket
import subprocess
import sys
import tempfile
import time

DEADLINE_S = 10  # LaunchWatchdog::kMinimum: the deadline for --timeout 1
MARGIN_S = 20    # mpirun's own teardown after the first rank exits


def listening_ports(pid):
    """TCP ports process `pid` listens on, from /proc (no ss or netstat needed)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        return []
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return sorted(ports)


def children(pid):
    """The processes whose parent is `pid` (the ranks mpirun has started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state, parent = f.read().rsplit(")", 1)[1].split()[:2]
                if int(parent) == pid and state != "Z":  # a zombie has ended
                    found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def one_try(ringbench, mpirun, scratch):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    err_path = os.path.join(scratch, "err")
    with open(err_path, "w") as err, open(os.path.join(scratch, "out"), "w") as out:
        job = subprocess.Popen([mpirun, "-np", "3", "--oversubscribe", ringbench, "-m", "8", "--no-link-test",
                                "--timeout", "1", "-o", os.path.join(scratch, "out.h5")],
                               stdout=out, stderr=err, env=env)
        strangers = []
        give_up = time.monotonic() + 10
        # Once the ranks exist, so the strangers meet their MPI_Init. (Before that they meet
        # mpirun alone, which may then start no rank for a long time: no ringbench to bound.)
        while len(children(job.pid)) < 3 and time.monotonic() < give_up and job.poll() is None:
            time.sleep(0.002)
        while not strangers and time.monotonic() < give_up and job.poll() is None:
            for port in listening_ports(job.pid):
                s = socket.socket()
                try:
                    s.connect(("127.0.0.1", port))
                    strangers.append(s)  # held open, silent
                except OSError:
                    s.close()
            time.sleep(0.01)
        started = time.monotonic()
        # The ranks are ringbench's: each must end by itself past the deadline.
        while children(job.pid) and time.monotonic() < started + DEADLINE_S + MARGIN_S and job.poll() is None:
            time.sleep(0.05)
        ranks_left = len(children(job.pid)) if job.poll() is None else 0
        ranks_s = time.monotonic() - started
        # mpirun is Open MPI's: with the strangers still at its ports it may not end; they leave now.
        for s in strangers:
            s.close()
        try:
            code = job.wait(timeout=MARGIN_S)
        except subprocess.TimeoutExpired:
            job.kill()
            job.wait()
            code = None
    with open(err_path) as f:
        return code, ranks_left, ranks_s, len(strangers), f.read()


def main():
    ringbench, mpirun = sys.argv[1], sys.argv[2]
    for attempt in range(3):
        with tempfile.TemporaryDirectory(prefix="ringbench-launch-stranger-") as scratch:
            code, ranks_left, ranks_s, strangers, err = one_try(ringbench, mpirun, scratch)
        print(f"try {attempt}: {strangers} stranger(s) at mpirun's ports; {ranks_left} rank(s) left after "
              f"{ranks_s:.1f} s; mpirun exit {code} once the strangers left (None: killed after {MARGIN_S} s)")
        if code == 0:
            continue  # the strangers came after MPI_Init: no trial
        if ranks_left:
            print(f"FAIL: {ranks_left} rank(s) still ran {DEADLINE_S + MARGIN_S} s after the strangers came:\n{err}")
            return 1
        said = [line for line in err.splitlines() if "launch deadline" in line]
        print("\n".join(said))
        if not any(f"launch deadline {DEADLINE_S} s passed while waiting for MPI start-up" in line for line in said):
            print(f"FAIL: no rank said it waited for MPI start-up:\n{err}")
            return 1
        return 0
    print("skipped: in 3 tries the strangers always came after MPI start-up")
    return 77


if __name__ == "__main__":
    sys.exit(main())
