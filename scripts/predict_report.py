"""predict-check.sh's report: topomodel predict's /model/predictions, medians over runs.

Per (collective, algorithm, N, bytes): the median over runs of the measured and of the predicted
times, error = predicted / measured - 1. Per algorithm: rows, median and 90th percentile of
|error| at 64 KiB and up (issue 15's targets), and the same below 64 KiB, reported without a
target. With --row-link, a second file's predictions of the same runs (topomodel predict
--row-link) get the first table too. Reads h5py directly: the table is topomodel's (docs/model.md#calibrate-and-predict).
"""
import sys
from collections import defaultdict

import h5py
import numpy as np

TARGET_BYTES = 64 << 10


def decode(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def point_key(row):
    """A point: (collective, algorithm, N, bytes)."""
    return decode(row["collective"]), decode(row["algorithm"]), int(row["world_size"]), int(row["bytes"])


def measured_by_point(table):
    """At 64 KiB and up, each point's measured times, one per run, in the order the table holds them."""
    measured = defaultdict(list)
    for row in table:
        if int(row["bytes"]) >= TARGET_BYTES:
            measured[point_key(row)].append(float(row["measured_us"]))
    return measured


def medians_over_runs(table):
    groups = defaultdict(lambda: ([], []))
    for row in table:
        key = point_key(row)
        groups[key][0].append(float(row["measured_us"]))
        groups[key][1].append(float(row["predicted_us"]))
    return {key: (np.median(m), np.median(p), len(m)) for key, (m, p) in groups.items()}


def report(points, title, select):
    by_algorithm = defaultdict(list)
    for (collective, algorithm, n, size), (measured, predicted, _) in points.items():
        if select(size):
            by_algorithm[f"{collective} {algorithm}"].append(abs(predicted / measured - 1))
    print(f"# {title}")
    print(f"# {'algorithm':<34} {'points':>6} {'median':>8} {'p90':>8} {'worst':>8}")
    everything = []
    for name in sorted(by_algorithm):
        errors = np.array(by_algorithm[name])
        everything.extend(errors)
        print(f"  {name:<34} {len(errors):>6} {100 * np.median(errors):>7.1f}% "
              f"{100 * np.percentile(errors, 90):>7.1f}% {100 * errors.max():>7.1f}%")
    if everything:
        e = np.array(everything)
        print(f"  {'all':<34} {len(e):>6} {100 * np.median(e):>7.1f}% {100 * np.percentile(e, 90):>7.1f}% "
              f"{100 * e.max():>7.1f}%")


def report_by_ranks(points):
    by_ranks = defaultdict(list)
    for (_, _, n, size), (measured, predicted, _) in points.items():
        if size >= TARGET_BYTES:
            by_ranks[n].append(abs(predicted / measured - 1))
    print("# 64 KiB and up, every algorithm, by world size")
    for n in sorted(by_ranks):
        e = np.array(by_ranks[n])
        print(f"  N={n:<33} {len(e):>6} {100 * np.median(e):>7.1f}% {100 * np.percentile(e, 90):>7.1f}% "
              f"{100 * e.max():>7.1f}%")


def run_by_run(table):
    """At 64 KiB and up, one run at a time: |predicted / measured - 1| of every row, and, for points
    measured in at least 3 runs, how far each run's time lies from the median of the other runs.
    The second is the machine's own reproducibility: how much a run's time moves by itself from run
    to run. The model calibrates on each run's own link test, so it may follow a run's state closer
    than the other runs do; where its error is larger, the gap is the model's (issue 15's targets
    are on medians over runs)."""
    model = [abs(float(row["predicted_us"]) / float(row["measured_us"]) - 1)
             for row in table if int(row["bytes"]) >= TARGET_BYTES]
    others = []
    for times in measured_by_point(table).values():
        if len(times) >= 3:
            for i, t in enumerate(times):
                others.append(abs(np.median(times[:i] + times[i + 1:]) / t - 1))
    return np.array(model), np.array(others)


def report_run_by_run(table):
    model, others = run_by_run(table)
    if len(model) == 0:
        return
    print("# run by run, 64 KiB and up: one run's time against the model's prediction, and against the median of")
    print("# the other runs of the same point (this machine's reproducibility: how much one run moves by itself)")
    print(f"# {'against':<34} {'rows':>6} {'median':>8} {'p90':>8}")
    for name, errors in (("the model", model), ("the other runs' median", others)):
        if len(errors):
            print(f"  {name:<34} {len(errors):>6} {100 * np.median(errors):>7.1f}% {100 * np.percentile(errors, 90):>7.1f}%")
        else:
            print(f"  {name:<34} {0:>6}      n/a (fewer than 3 runs of every point)")


def half_against_half(table):
    """At 64 KiB and up, for points measured in at least 6 runs: the median of the first half of the
    runs against the median of the second half, |second / first - 1|. That is the floor under the
    target's statistic (a median over runs) on this machine: two halves of one experiment differ by
    this much, so even a model that priced every point exactly would lie about 1/sqrt(2) of it from
    the median of either half. Runs are taken in the order the table holds them."""
    differences = []
    for times in measured_by_point(table).values():
        if len(times) >= 6:
            half = len(times) // 2
            differences.append(abs(np.median(times[half:2 * half]) / np.median(times[:half]) - 1))
    return np.array(differences)


def report_half_against_half(table):
    differences = half_against_half(table)
    print("# the machine's floor, 64 KiB and up: the median of the first half of the runs against that of the")
    print("# second half, for each point (a model exact at every point would lie about 1/sqrt(2) of this from either)")
    if len(differences):
        print(f"  {'half against half':<34} {len(differences):>6} {100 * np.median(differences):>7.1f}% "
              f"{100 * np.percentile(differences, 90):>7.1f}%")
    else:
        print(f"  {'half against half':<34} {0:>6}      n/a (fewer than 6 runs of every point: --runs 6)")


def hierarchical_against_ring(points):
    """Per (N, size) with both all-reduces: ring time / hierarchical time, measured and predicted,
    and whether the model names the same winner (issue 15's two-host test: hierarchical must beat
    the flat ring where the model says it will)."""
    verdicts = []
    for (collective, algorithm, n, size), (ring_measured, ring_predicted, _) in sorted(points.items()):
        other = points.get((collective, "hierarchical", n, size))
        if collective != "allreduce" or algorithm != "ring" or other is None:
            continue
        measured, predicted = ring_measured / other[0], ring_predicted / other[1]
        verdicts.append((n, size, measured, predicted, (measured > 1) == (predicted > 1)))
    return verdicts


def report_hierarchical_against_ring(points):
    verdicts = hierarchical_against_ring(points)
    if not verdicts:
        return
    agree = sum(v[4] for v in verdicts)
    print(f"# hierarchical against the flat ring (ring time / hierarchical time; > 1: hierarchical faster): "
          f"the model names the measured winner at {agree} of {len(verdicts)} sizes")
    print(f"# {'N':>3} {'bytes':>9} {'measured':>9} {'predicted':>9}  same winner")
    for n, size, measured, predicted, same in verdicts:
        print(f"  {n:>3} {size:>9} {measured:>9.2f} {predicted:>9.2f}  {'yes' if same else 'NO'}")


def read_predictions(path):
    with h5py.File(path, "r") as f:
        return f["model/predictions"][:]


def main(path, row_link_path=None):
    table = read_predictions(path)
    points = medians_over_runs(table)
    runs = max((count for _, _, count in points.values()), default=0)
    print(f"# {len(points)} (collective, algorithm, N, size) points, medians over up to {runs} run(s)")
    report(points, "64 KiB and up (targets: median <= 10%, p90 <= 25%)", lambda size: size >= TARGET_BYTES)
    if row_link_path:
        report(medians_over_runs(read_predictions(row_link_path)),
               "64 KiB and up, each row priced at its own link test's speed (topomodel predict --row-link: the "
               "host's drift between rows taken out; a ring row is then nearly its own link test)",
               lambda size: size >= TARGET_BYTES)
    report_by_ranks(points)
    report_run_by_run(table)
    report_half_against_half(table)
    report(points, "below 64 KiB (no target)", lambda size: size < TARGET_BYTES)
    report_hierarchical_against_ring(points)
    print("# per point: collective algorithm N bytes measured_us predicted_us error")
    for key in sorted(points):
        measured, predicted, _ = points[key]
        print(f"  {key[0]:<13} {key[1]:<20} {key[2]:>2} {key[3]:>9} {measured:>11.1f} {predicted:>11.1f} "
              f"{100 * (predicted / measured - 1):>+7.1f}%")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--row-link"):
        sys.exit("usage: predict_report.py PREDICTIONS.h5 [--row-link ROW_LINK_PREDICTIONS.h5]")
    main(sys.argv[1], sys.argv[3] if len(sys.argv) == 4 else None)
