"""ringbench-merge: merge any number of ringbench results files into one.

    scripts/ringbench-merge -o MERGED.h5 FILE.h5 [FILE.h5 ...]

Tables (/runs, /results, /model/*) are concatenated; run ids are globally unique (UUID v4), so
files from a sweep's array tasks or from different days never collide, and a run met in several
inputs (say, MERGED.h5 itself given again as an input) is kept once. If MERGED.h5 exists it is
merged into, not overwritten. Files of different schema versions merge: the output has the newest
layout and version among them (older rows get missing values in the newer columns, as ringbench
gives them when it appends to an older file), so ringbench and topomodel can keep appending to it.
Exit status: 0 merged, 2 bad input (named on stderr).
"""

import argparse
import os
import sys

from ringbench_results import ResultsError, input_problem, merge_files


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ringbench-merge", description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="merged HDF5 file (merged into if it exists)")
    parser.add_argument("inputs", nargs="+", help="results files to merge")
    args = parser.parse_args(argv)
    inputs = list(args.inputs)
    if os.path.exists(args.output) and os.path.abspath(args.output) not in map(os.path.abspath, inputs):
        inputs.insert(0, args.output)
    problems = [problem for problem in map(input_problem, inputs) if problem]
    if problems:
        print(f"ringbench-merge: error: {'; '.join(problems)}", file=sys.stderr)
        return 2
    try:
        counts, runs, repeated = merge_files(inputs, args.output)
    except ResultsError as e:
        print(f"ringbench-merge: error: {e}", file=sys.stderr)
        return 2
    tables = ", ".join(f"{path} {n} rows" for path, n in sorted(counts.items()))
    print(f"ringbench-merge: {len(inputs)} file(s), {runs} run(s) -> {args.output}: {tables}")
    if repeated:
        print(f"ringbench-merge: {len(repeated)} run(s) were in more than one input and were kept once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
