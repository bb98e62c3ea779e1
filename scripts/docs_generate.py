#!/usr/bin/python3
"""Keeps README.md and docs/*.md from drifting away from the code.

  scripts/docs_generate.py [--bin-dir build/bin]          check: exit 1, naming each stale block
  scripts/docs_generate.py --write [--bin-dir build/bin]  rewrite the stale blocks in place

Generated blocks are the lines between `<!-- NAME:begin -->` and `<!-- NAME:end -->`; NAME says
what produces them (BLOCKS below: the binaries' --help, print_algorithm_table, the exit codes in
bench/ringbench/exit_codes.h). Every block in BLOCKS must appear exactly once in the docs, so a
deleted marker fails the check as loudly as a stale block. Both modes also check that every
relative link resolves (file, and heading anchor in a .md file), that README.md links every
page in docs/, and that docs/results.md states the schema version results_file.h writes. Only
Python's standard library: it runs under any python3.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPOMODEL_SUBCOMMANDS = ("clusters", "collective", "sweep", "validate", "step", "failures", "calibrate", "predict")
EXIT_CODES_HEADER = ROOT / "bench" / "ringbench" / "exit_codes.h"
RESULTS_HEADER = ROOT / "bench" / "results" / "results_file.h"
RESULTS_PAGE = ROOT / "docs" / "results.md"


def run_binary(bin_dir, name, *args):
    """stdout of bin_dir/name with argv[0] = name, so the text does not depend on the build path."""
    path = bin_dir / name
    if not path.is_file():
        raise SystemExit(f"docs_generate: {path} not found: build it first (cmake --build BUILD --target {name})")
    env = dict(os.environ, LC_ALL="C", COLUMNS="100")
    done = subprocess.run([name, *args], executable=str(path), env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise SystemExit(f"docs_generate: `{name} {' '.join(args)}` exited {done.returncode}: {done.stderr.strip()}")
    # Trailing blanks would be stripped by the next editor to touch the page, and drift.
    return "\n".join(line.rstrip() for line in done.stdout.rstrip("\n").split("\n")) + "\n"


def fenced(text):
    return "```text\n" + text + "```\n"


def help_block(binary, *subcommand):
    return lambda bin_dir: fenced(run_binary(bin_dir, binary, *subcommand, "--help"))


def algorithm_table(bin_dir):
    # print_algorithm_table prints the block with its markers; the docs carry what lies between.
    lines = run_binary(bin_dir, "print_algorithm_table").splitlines(keepends=True)
    return "".join(lines[1:-1])


def exit_codes(_bin_dir):
    """The table of ringbench's exit codes, from the constants and their comments."""
    pattern = re.compile(r"inline constexpr int (k\w+) = (\d+);\s*//\s*(.+)")
    rows = [pattern.search(line) for line in EXIT_CODES_HEADER.read_text().splitlines()]
    rows = [m for m in rows if m]
    if not rows:
        raise SystemExit(f"docs_generate: no `inline constexpr int kName = N; // meaning` lines in {EXIT_CODES_HEADER}")
    table = "| exit status | meaning |\n|---:|---|\n"
    for name, code, meaning in (m.groups() for m in rows):
        table += f"| {code} | {meaning.strip()} (`{name}`) |\n"
    return table


BLOCKS = {
    "algorithm-table": algorithm_table,
    "ringbench-help": help_block("ringbench"),
    "ringbench-exit-codes": exit_codes,
    "topomodel-help": help_block("topomodel"),
    **{f"topomodel-{sub}-help": help_block("topomodel", sub) for sub in TOPOMODEL_SUBCOMMANDS},
}
MARKER = re.compile(r"^<!-- ([a-z0-9-]+):(begin|end) -->$")


def doc_files():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def rel(path):
    return path.relative_to(ROOT).as_posix()


def find_blocks(path, lines):
    """{name: (first content line, end marker line)}; malformed markers are errors."""
    blocks, open_name, open_at = {}, None, 0
    for number, line in enumerate(lines):
        m = MARKER.match(line.rstrip("\n"))
        if not m:
            continue
        name, kind = m.groups()
        if kind == "begin":
            if open_name:
                raise SystemExit(f"docs_generate: {rel(path)}:{number + 1}: block {name} begins inside {open_name}")
            open_name, open_at = name, number + 1
        elif name != open_name:
            raise SystemExit(f"docs_generate: {rel(path)}:{number + 1}: end of {name} without its begin")
        else:
            blocks[name] = (open_at, number)
            open_name = None
    if open_name:
        raise SystemExit(f"docs_generate: {rel(path)}: block {open_name} has no end marker")
    return blocks


def update_blocks(write, bin_dir):
    """Regenerates every block; returns the problems found (stale blocks, missing or unknown ones)."""
    problems, seen = [], {}
    for path in doc_files():
        lines = path.read_text().splitlines(keepends=True)
        blocks = find_blocks(path, lines)
        # From the last block up, so replacing one does not move the line numbers of the others.
        for name, (first, end) in sorted(blocks.items(), key=lambda item: -item[1][0]):
            if name not in BLOCKS:
                problems.append(f"{rel(path)}:{first}: unknown generated block {name} (known: {', '.join(BLOCKS)})")
                continue
            if name in seen:
                problems.append(f"{rel(path)}:{first}: block {name} appears again (first in {seen[name]})")
            seen[name] = rel(path)
            carried, wanted = "".join(lines[first:end]), BLOCKS[name](bin_dir)
            if carried == wanted:
                continue
            if write:
                lines[first:end] = [wanted]
                print(f"docs_generate: {rel(path)}: rewrote block {name}")
            else:
                diff = difflib.unified_diff(carried.splitlines(), wanted.splitlines(), "carried", "generated", lineterm="")
                problems.append(f"{rel(path)}:{first}: block {name} is out of date:\n" + "\n".join(diff))
        if write:
            path.write_text("".join(lines))
    for name in BLOCKS:
        if name not in seen:
            problems.append(f"block {name} is in no page: add `<!-- {name}:begin -->` and `<!-- {name}:end -->`")
    return problems


FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"`+[^`]*`+")


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            yield number, line


def github_anchors(path):
    """The heading anchors GitHub makes: lower case, punctuation dropped, spaces to hyphens."""
    anchors, counts = set(), {}
    for _, line in prose_lines(path.read_text()):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        anchors.add(slug if slug not in counts else f"{slug}-{counts[slug]}")
        counts[slug] = counts.get(slug, 0) + 1
    return anchors


def check_links():
    problems = []
    for path in doc_files():
        for number, line in prose_lines(path.read_text()):
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:: not ours to check offline
                file_part, _, anchor = target.partition("#")
                linked = (path.parent / file_part).resolve() if file_part else path
                where = f"{rel(path)}:{number}: link {target}"
                if not linked.exists():
                    problems.append(f"{where}: no such file")
                elif ROOT not in linked.parents and linked != ROOT:
                    problems.append(f"{where}: leaves the repository")
                elif anchor and linked.suffix == ".md" and anchor not in github_anchors(linked):
                    problems.append(f"{where}: no heading #{anchor} in {rel(linked)}")
    readme = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        if f"(docs/{page.name}" not in readme:
            problems.append(f"README.md: no link to docs/{page.name} (where to go next lists every page)")
    return problems


def check_schema_version():
    """docs/results.md states the version ringbench writes twice; both must be kSchemaVersion."""
    written = re.search(r"kSchemaVersion = (\d+);", RESULTS_HEADER.read_text()).group(1)
    page = RESULTS_PAGE.read_text()
    problems = []
    for pattern in (r"`ringbench_schema_version` is (\d+)", r"this ringbench's \((\d+)\)"):
        stated = re.search(pattern, page)
        if not stated:
            problems.append(f"{rel(RESULTS_PAGE)}: no sentence matching {pattern!r} (the schema version)")
        elif stated.group(1) != written:
            line = page.count("\n", 0, stated.start()) + 1
            problems.append(f"{rel(RESULTS_PAGE)}:{line}: says schema {stated.group(1)}; "
                            f"{rel(RESULTS_HEADER)} writes {written}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite stale blocks instead of failing")
    parser.add_argument("--bin-dir", type=Path, default=ROOT / "build" / "bin",
                        help="where ringbench, topomodel and print_algorithm_table are (default: build/bin)")
    args = parser.parse_args()
    block_problems = update_blocks(args.write, args.bin_dir.resolve())
    problems = block_problems + check_links() + check_schema_version()
    for problem in problems:
        print(f"docs_generate: {problem}", file=sys.stderr)
    if problems:
        if block_problems and not args.write:  # --write mends blocks only, not links or prose
            print("docs_generate: regenerate with: scripts/docs_generate.py --write --bin-dir BUILD/bin", file=sys.stderr)
        return 1
    print(f"docs_generate: {len(BLOCKS)} generated blocks {'written' if args.write else 'up to date'}, links resolve, schema version stated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
