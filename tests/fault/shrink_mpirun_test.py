#!/usr/bin/python3
"""--on-failure shrink under the real mpirun (Open MPI 4.1.4) with `--mca orte_enable_recovery 1`,
which lets the survivors of a dead rank live on (without it mpirun kills them all at once). One rank
of N = 4 kills itself (--inject kill) in a random collective call of the sweep; the survivors must
agree, rebuild, finish every row verified and exit 0; the first survivor must print the shrink; the
results file must hold the /events row. `--algo ring,mpi` asks for the mpi rows too, which
--on-failure shrink leaves out (a failure inside an MPI collective hangs the others there): the
file must hold none.

usage: shrink_mpirun_test.py RINGBENCH MPIRUN [TRIALS]
TRIALS (default 1) trials, the victim chosen at random (rank 0 every fourth trial); each prints its
time from the kill to the resumed sweep. The seed is printed; RINGBENCH_TEST_SEED replays it.
"""

import os
import random
import re
import subprocess
import sys
import tempfile

import h5py

RANKS = 4
TIMEOUT_S = 2
HANG_S = 90  # a run takes about 5 s; subprocess.run kills mpirun after this


def trial(ringbench, mpirun, victim, call, directory):
    out_file = os.path.join(directory, "out.h5")
    command = [mpirun, "--mca", "orte_enable_recovery", "1", "--oversubscribe", "-np", str(RANKS), ringbench,
               "--collective", "allreduce", "--algo", "ring,mpi", "-m", "8:16K", "-i", "300", "--no-link-test",
               "--timeout", str(TIMEOUT_S), "--on-failure", "shrink", "--inject", f"kill:{victim}@{call}",
               "-o", out_file]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_S, env=env)
    except subprocess.TimeoutExpired as hung:
        print(f"FAILED: a hang: mpirun still running after {HANG_S} s\n$ {' '.join(command)}\n--- stdout:\n"
              f"{hung.stdout}\n--- stderr:\n{hung.stderr}")
        return None
    context = f"\n$ {' '.join(command)}\nexit {done.returncode}\n--- stdout:\n{done.stdout}\n--- stderr:\n{done.stderr}"
    struck = re.search(r"--inject kill: exiting abruptly in collective call \d+ at unix ([0-9.]+)", done.stderr)
    event = re.search(rf"# shrink       : rank\(s\) {victim} failed .* go on as N={RANKS - 1} .*\(unix ([0-9.]+)\)",
                      done.stdout)
    problems = []
    if not struck:
        problems.append("the victim never struck (call past the end of the run?)")
    if not event:
        problems.append("no shrink event on stdout")
    if "# result: all rows verified" not in done.stdout:
        problems.append("not every row verified")
    if re.search(r"ringbench: error", done.stderr):
        problems.append("a survivor failed")
    if not problems:
        with h5py.File(out_file, "r") as f:
            events = f["events"][:]
            results = f["results"][:]
        if len(events) != 1 or int(events[0]["new_world_size"]) != RANKS - 1 or \
                events[0]["failed_ranks"].decode() != str(victim):
            problems.append(f"/events is not the one shrink: {events}")
        after = [r for r in results if int(r["epoch"]) == 1]
        if not after or any(r["algorithm"].decode() == "mpi" for r in results):
            problems.append("no rows after the shrink, or an mpi row in the file")
        if any(int(r["verified"]) != 1 for r in results):
            problems.append("a row in the file is not verified")
    if problems:
        print("FAILED: " + "; ".join(problems) + context)
        return None
    return float(event.group(1)) - float(struck.group(1))


def main():
    ringbench, mpirun = sys.argv[1], sys.argv[2]
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    seed = int(os.environ.get("RINGBENCH_TEST_SEED", random.SystemRandom().randrange(2**32)))
    print(f"shrink under mpirun: seed {seed} (replay with RINGBENCH_TEST_SEED={seed})", flush=True)
    rng = random.Random(seed)
    failed = 0
    for k in range(trials):
        victim = 0 if k % 4 == 0 else rng.randrange(1, RANKS)
        call = rng.randrange(300, 3000)  # each size about 700 calls (300 timed calls and their barriers)
        with tempfile.TemporaryDirectory(prefix="ringbench-shrink-mpirun-") as directory:
            seconds = trial(ringbench, mpirun, victim, call, directory)
        if seconds is None:
            failed += 1
            continue
        print(f"mpirun trial {k + 1}: kill rank {victim} at call {call}: failure to resumed sweep {seconds:.2f} s "
              f"(timeout {TIMEOUT_S} s)", flush=True)
    print(f"{trials - failed} of {trials} mpirun trials passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
