"""Issue 17's overlap check: the bucketed DDP step as ringbench measured it (/workloads) against
what topomodel predicts for it (/model/ddp_steps), bucket size by bucket size.

    overlap_report.py plan MEASURED.h5 [--run-id ID]
        One line per bucket size of the ddp run (the newest in the file unless --run-id): the
        topomodel flags that price the same step, "WORLD ALGO GRAD_BYTES LAYERS BUCKET_BYTES
        COMPUTE_MS", for scripts/overlap-check.sh to loop over.
    overlap_report.py report MEASURED.h5 PREDICTED.h5 [--run-id ID] [--tolerance PCT]
        The table: per bucket size the measured median step and its interval, the predicted step,
        the error (predicted - measured) / measured, exposed communication and overlap of both;
        then the best bucket of each, how many sweep steps apart they are (the sizes whose measured
        interval overlaps the best's are named: the measurement cannot tell them apart, and a
        prediction within one step of any of them is a tie), and the largest error, each against
        issue 17's targets (within --tolerance at every size, best buckets within one sweep step).

Rows join on (world_size, grad_bytes, layers, bucket_bytes); a bucket size predicted more than once
takes the newest prediction. Files are read with ringbench_results (any schema version it reads).
Bad input (a file that is not a results file, no ddp run, an unknown run id) is one line on stderr
and exit status 2; a missed target is reported, not an error (exit 0).
"""

import argparse
import sys

import ringbench_results as rr

WORKLOADS = "/workloads"
PREDICTED = "/model/ddp_steps"
# ringbench's all-reduce names (spec/) as topomodel's --algo knows the same algorithms; `default`
# is ringbench's first all-reduce, the ring.
MODEL_ALGORITHM = {"rhd": "halving-doubling", "default": "ring"}
JOIN = ("world_size", "grad_bytes", "layers", "bucket_bytes")


def human(size):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def measured_rows(path, run_id=None):
    """The /workloads rows of one ddp run (the newest appended unless `run_id`), as dicts in
    bucket-size order; ResultsError naming the file when there is none."""
    tables = rr.load(path, log=None)
    if WORKLOADS not in tables:
        raise rr.ResultsError(f"{path}: no {WORKLOADS} table (run ringbench --workload ddp -o {path})")
    rows = [r for r in tables[WORKLOADS].rows() if r["workload"] == "ddp"]
    if not rows:
        raise rr.ResultsError(f"{path}: {WORKLOADS} holds no ddp run")
    run_id = run_id or rows[-1]["run_id"]
    rows = [r for r in rows if r["run_id"] == run_id]
    if not rows:
        raise rr.ResultsError(f"{path}: no ddp run {run_id} in {WORKLOADS}")
    return sorted(rows, key=lambda r: int(r["bucket_bytes"]))


def predicted_rows(path):
    """(world_size, grad_bytes, layers, bucket_bytes) -> the newest /model/ddp_steps row for it."""
    tables = rr.load(path, log=None)
    if PREDICTED not in tables:
        raise rr.ResultsError(f"{path}: no {PREDICTED} table (run topomodel step --workload ddp -o {path})")
    return {tuple(int(r[k]) for k in JOIN): r for r in tables[PREDICTED].rows()}


def model_algorithm(name):
    return MODEL_ALGORITHM.get(name, name)


def plan_lines(rows):
    return [f"{int(r['world_size'])} {model_algorithm(r['algorithm'])} {int(r['grad_bytes'])} {int(r['layers'])} "
            f"{int(r['bucket_bytes'])} {float(r['compute_us_per_layer']) / 1e3!r}" for r in rows]


def compare(measured, predicted):
    """One dict per measured row: its figures, the prediction's (None when missing) and the error."""
    out = []
    for m in measured:
        p = predicted.get(tuple(int(m[k]) for k in JOIN))
        row = {"bucket_bytes": int(m["bucket_bytes"]), "measured": m, "predicted": p, "error_pct": None}
        if p is not None:
            row["error_pct"] = 100.0 * (float(p["step_us"]) - float(m["step_us"])) / float(m["step_us"])
        out.append(row)
    return out


def best_index(rows, side):
    """Index of the shortest step on `side` ("measured" or "predicted") among rows that have it."""
    have = [i for i, r in enumerate(rows) if r[side] is not None]
    return min(have, key=lambda i: float(rows[i][side]["step_us"])) if have else None


def measured_interval(row):
    """The measured step's 95% interval (low, high) in us; None where ringbench printed n/a."""
    m = row["measured"]
    step, ci = float(m["step_us"]), float(m["step_ci_pct"])
    return None if ci != ci else (step * (1 - ci / 100), step * (1 + ci / 100))


def measured_ties(rows, best):
    """Indices of the bucket sizes whose measured interval overlaps the measured best's: sizes the
    measurement cannot tell from the best (issue 13's rule: a difference counts only where the
    intervals separate). Just `best` when its interval is n/a."""
    around = measured_interval(rows[best])
    if around is None:
        return [best]
    ties = []
    for i, r in enumerate(rows):
        other = measured_interval(r)
        if i == best or (other is not None and other[0] <= around[1] and around[0] <= other[1]):
            ties.append(i)
    return ties


def best_bucket_line(rows, best_m, best_p):
    """Where the two best buckets lie, in sweep steps, against issue 17's target (one step). A
    measured best the measurement cannot tell from its neighbours is reported with them: the
    prediction counts as met, as a tie, when it lies within one step of any of them."""
    apart = abs(best_m - best_p)
    ties = measured_ties(rows, best_m)
    near_tie = min(abs(i - best_p) for i in ties)
    line = f"# best bucket measured {human(rows[best_m]['bucket_bytes'])}"
    if len(ties) > 1:
        line += f" (not separable from {', '.join(human(rows[i]['bucket_bytes']) for i in ties if i != best_m)})"
    line += f", predicted {human(rows[best_p]['bucket_bytes'])}: {apart} sweep step(s) apart (target <= 1: "
    if apart <= 1:
        return line + "met)"
    if near_tie <= 1:
        return line + f"met as a tie: {near_tie} step(s) from a size the measurement cannot tell from the best)"
    return line + "missed)"


def verdict(rows, tolerance):
    """The summary lines: best buckets, their distance in sweep steps, the largest error."""
    lines = []
    best_m, best_p = best_index(rows, "measured"), best_index(rows, "predicted")
    if best_p is None:
        return ["# predicted   none of the measured bucket sizes has a prediction"]
    lines.append(best_bucket_line(rows, best_m, best_p))
    errors = [(abs(r["error_pct"]), r["bucket_bytes"]) for r in rows if r["error_pct"] is not None]
    worst, at = max(errors)
    missing = sum(r["predicted"] is None for r in rows)
    lines.append(f"# step error  largest |error| {worst:.1f}% at {human(at)} (target <= {tolerance:g}% at every size: "
                 f"{'met' if worst <= tolerance and not missing else 'missed'})"
                 + (f"; {missing} size(s) without a prediction" if missing else ""))
    return lines


def cell(row, side, key, scale=1.0, fmt="{:.1f}"):
    source = row[side]
    return "-" if source is None else fmt.format(float(source[key]) * scale)


def table_lines(rows):
    m0 = rows[0]["measured"]
    best_m, best_p = best_index(rows, "measured"), best_index(rows, "predicted")
    lines = [f"# overlap     ringbench ddp run {m0['run_id']}: N={int(m0['world_size'])}, {m0['algorithm']}, "
             f"{int(m0['grad_bytes'])} B of gradients over {int(m0['layers'])} layers",
             "# error       (predicted - measured) / measured step; exp = exposed communication = step - compute; "
             "ovl = overlap fraction; best: m measured, p predicted",
             "#",
             f"# {'bucket':>8} {'buckets':>11} {'measured':>11} {'+-ci':>6} {'predicted':>11} {'error':>7} "
             f"{'meas_exp':>10} {'pred_exp':>10} {'meas_ovl':>8} {'pred_ovl':>8} {'best':>4}",
             f"# {'(B)':>8} {'(meas/pred)':>11} {'(us)':>11} {'(%)':>6} {'(us)':>11} {'(%)':>7} "
             f"{'(us)':>10} {'(us)':>10} {'(%)':>8} {'(%)':>8} {'':>4}"]
    for i, r in enumerate(rows):
        m, p = r["measured"], r["predicted"]
        buckets = f"{int(m['buckets'])}/{'-' if p is None else int(p['buckets'])}"
        error = "-" if r["error_pct"] is None else f"{r['error_pct']:+.1f}"
        best = ("m" if i == best_m else "") + ("p" if i == best_p else "")
        lines.append(f"  {human(r['bucket_bytes']):>8} {buckets:>11} {float(m['step_us']):>11.1f} "
                     f"{float(m['step_ci_pct']):>6.1f} {cell(r, 'predicted', 'step_us'):>11} {error:>7} "
                     f"{float(m['exposed_comm_us']):>10.1f} {cell(r, 'predicted', 'exposed_comm_us'):>10} "
                     f"{100 * float(m['overlap_fraction']):>8.1f} {cell(r, 'predicted', 'overlap_fraction', 100):>8} "
                     f"{best:>4}")
    return lines


def report_lines(measured_path, predicted_path, run_id=None, tolerance=15.0):
    rows = compare(measured_rows(measured_path, run_id), predicted_rows(predicted_path))
    lines = table_lines(rows) + ["#"] + verdict(rows, tolerance)
    mismatched = [human(r["bucket_bytes"]) for r in rows
                  if r["predicted"] is not None and int(r["predicted"]["buckets"]) != int(r["measured"]["buckets"])]
    if mismatched:
        lines.append(f"# warning     the model cut the gradients into a different number of buckets at "
                     f"{', '.join(mismatched)}: the two do not split them the same way")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description="ringbench's measured DDP step against topomodel's prediction")
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser("plan", help="the topomodel flags of each measured bucket size")
    plan.add_argument("measured")
    plan.add_argument("--run-id")
    report = sub.add_parser("report", help="measured against predicted, per bucket size")
    report.add_argument("measured")
    report.add_argument("predicted")
    report.add_argument("--run-id")
    report.add_argument("--tolerance", type=float, default=15.0, help="step error target, %% (issue 17: 15)")
    args = parser.parse_args(argv)
    try:
        if args.command == "plan":
            lines = plan_lines(measured_rows(args.measured, args.run_id))
        else:
            lines = report_lines(args.measured, args.predicted, args.run_id, args.tolerance)
    except rr.ResultsError as e:
        print(f"overlap_report.py: error: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
